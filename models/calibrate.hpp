// `p2psim calibrate`: times real LibTorch kernels and writes one CSV row per timed sample.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "net.hpp"

namespace p2psim::models {

struct ModelSpec {
  std::string name;
  InputShape input;
};

struct CalibrateOptions {
  std::vector<ModelSpec> models;
  int64_t num_classes = 10;
  std::vector<int64_t> batch_sizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  std::vector<int> threads{1, 2};
  int warmup = 2;           // untimed runs before the samples (1 when a single run already exceeds the budget)
  int repeats = 5;          // samples per configuration at most ...
  int min_repeats = 2;      // ... and at least, whatever the budget
  double budget_s = 20;     // repeats are cut so a configuration's samples take about this long
  double max_foreign_cpu = 0.1;  // a sample during whose window other processes took more of the CPUs is redone
  double contention_window_s = 0.5;  // a sample ends a window this long (untimed runs before it), over which
                                     // contention is judged: /proc/stat's 10 ms ticks cannot judge one short run
  double max_core_round_trip_ns = 200;  // a multi-thread sample whose CPUs' cache-line round trip is longer (they
                                        // share no cache) is redone; 0: not judged
  double max_wait_for_shared_cache_s = 300;  // before each such attempt, the longest wait for the CPUs to share one
  bool train_steps = true;  // time forward + loss + backward
  bool tensor_ops = true;   // time averaging and compression on tensors of each model's gradient size
  bool serialization = true;       // with the tensor ops: torch::save and torch::load of a gradient
  bool serialization_only = false;  // the tensor ops are serialisation only (no averaging, no codecs)
  bool memory_only = false; // training steps: only the warm-up and the memory run, as train_step_memory rows
  std::vector<int> average_counts{2, 4, 8};
  std::vector<std::string> codecs{"qsgd8_paper", "qsgd8_packed", "topk", "fp16"};
  double topk_ratio = 0.01;
  uint64_t seed = 1;
  std::string out_csv;   // written atomically; `<out_csv>.meta.json` records machine and command
  std::string command;   // the exact command line, for the metadata
};

/// Header of the CSV written by calibrate(); sim/compute_model reads the same columns.
extern const char* const kKernelCsvHeader;

void calibrate(const CalibrateOptions& options, std::ostream& progress);

}  // namespace p2psim::models
