// p2psim-torch: the subcommands that run LibTorch kernels (`models`, `calibrate`). The `p2psim` front end
// execs this binary for them, so that `p2psim run` never loads libtorch.
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "../sim/util/args.hpp"
#include "../sim/util/heap.hpp"
#include "../sim/util/input_error.hpp"
#include "calibrate.hpp"
#include "datasets.hpp"
#include "replay.hpp"
#include "replay_command.hpp"
#include "zoo.hpp"

namespace po = boost::program_options;
using namespace p2psim;
using namespace p2psim::models;

namespace {

InputShape parse_shape(const std::string& text, const std::string& option) {
  InputShape s{};
  std::vector<std::string> parts;
  size_t start = 0, x;
  while ((x = text.find('x', start)) != std::string::npos) {
    parts.push_back(text.substr(start, x - start));
    start = x + 1;
  }
  parts.push_back(text.substr(start));
  if (parts.size() != 3) throw p2psim::UsageError("--" + option + ": input shape '" + text + "' is not CxHxW");
  for (int i = 0; i < 3; ++i) s[i] = p2psim::parse_int(parts[i], option, 1, 4096);
  return s;
}

int cmd_models(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("classes", po::value<int64_t>()->default_value(10),
                                                  "number of output classes")(
      "csv", "print CSV (model,num_classes,parameters,gradient_bytes,default_input_shape)");
  po::variables_map vm;
  if (!p2psim::parse_or_help(argc, argv, desc,
                          "usage: p2psim models [--classes N] [--csv]\n"
                          "Lists every model of the zoo with its parameter count and float32 gradient size.",
                          vm))
    return p2psim::kExitOk;
  const int64_t classes = p2psim::parse_int(std::to_string(vm["classes"].as<int64_t>()), "classes", 1, 1 << 20);
  const bool csv = vm.count("csv") > 0;
  if (csv)
    std::cout << "model,num_classes,parameters,gradient_bytes,default_input_shape\n";
  else
    std::cout << std::left << std::setw(20) << "model" << std::right << std::setw(14) << "parameters"
              << std::setw(16) << "gradient_bytes" << "  default input  description\n";
  for (const auto& m : zoo()) {
    auto net = build_model(m.name, classes, m.default_input);
    const int64_t params = parameter_count(*net);
    const std::string shape = std::to_string(m.default_input[0]) + "x" + std::to_string(m.default_input[1]) + "x" +
                              std::to_string(m.default_input[2]);
    if (csv)
      std::cout << m.name << ',' << classes << ',' << params << ',' << params * 4 << ',' << shape << '\n';
    else
      std::cout << std::left << std::setw(20) << m.name << std::right << std::setw(14) << params << std::setw(16)
                << params * 4 << "  " << std::left << std::setw(13) << shape << "  " << m.description << '\n';
  }
  return p2psim::kExitOk;
}

int cmd_calibrate(int argc, char** argv, const std::string& command) {
  CalibrateOptions o;
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")(
      "model,m", po::value<std::vector<std::string>>()->required(),
      "model to time, NAME or NAME@CxHxW (repeatable); see `p2psim models`")(
      "classes", po::value<std::string>()->default_value("10"), "number of output classes")(
      "batch-sizes", po::value<std::string>()->default_value("1,2,4,8,16,32,64,128,256,512,1024"), "batch sizes")(
      "threads", po::value<std::string>()->default_value("1,2"), "intra-op thread counts")(
      "warmup", po::value<std::string>()->default_value("2"), "untimed runs per configuration")(
      "repeats", po::value<std::string>()->default_value("5"), "timed samples per configuration, at most")(
      "min-repeats", po::value<std::string>()->default_value("2"), "timed samples per configuration, at least")(
      "budget-s", po::value<double>()->default_value(20), "time per configuration that sets the repeat count")(
      "max-foreign-cpu", po::value<double>()->default_value(0.1, "0.1"),
      "redo a sample (up to 10 times) when other processes took more than this share of the CPUs")(
      "contention-window-s", po::value<double>()->default_value(0.5),
      "each sample is the last run of a window at least this long (untimed runs before it), over which other "
      "processes' CPU use is judged")(
      "max-core-round-trip-ns", po::value<double>()->default_value(200),
      "redo a sample of 2 or more threads (up to 10 times) when a cache line's round trip between its CPUs took "
      "longer (they share no cache: a VM's vCPUs on different chiplets); 0 does not judge it")(
      "max-wait-for-shared-cache-s", po::value<double>()->default_value(300),
      "before each attempt at such a sample, wait at most this long for its CPUs to share a cache again (probed "
      "every 0.5 s)")(
      "average-counts", po::value<std::string>()->default_value("2,4,8"), "gradient counts N to average")(
      "codecs", po::value<std::string>()->default_value("qsgd8_paper,qsgd8_packed,topk,fp16"),
      "compression codecs to time")("topk-ratio", po::value<double>()->default_value(0.01, "0.01"), "fraction kept by topk")(
      "no-train-steps", "skip forward+backward timing")(
      "memory-only", "training steps: measure peak memory only (one untimed warm-up, one memory run)")("no-tensor-ops", "skip averaging, compression and serialisation timing")(
      "serialization-only", "tensor ops: time only serialisation (torch::save / torch::load of each gradient)")(
      "seed", po::value<uint64_t>()->default_value(1), "seed of the random inputs")(
      "out,o", po::value<std::string>()->required(), "output CSV (a .meta.json is written beside it)");
  po::variables_map vm;
  if (!p2psim::parse_or_help(argc, argv, desc,
                          "usage: p2psim calibrate -m MODEL[@CxHxW] [-m ...] --out FILE.csv [options]\n"
                          "Times one training step's gradient computation, gradient averaging and compression\n"
                          "on this machine with LibTorch, one CSV row per sample.",
                          vm))
    return p2psim::kExitOk;
  for (const auto& spec : vm["model"].as<std::vector<std::string>>()) {
    auto at = spec.find('@');
    std::string name = spec.substr(0, at);
    try {
      const auto& info = find_model(name);
      o.models.push_back({name, at == std::string::npos ? info.default_input : parse_shape(spec.substr(at + 1), "model")});
    } catch (const std::invalid_argument& e) {
      throw p2psim::UsageError(std::string("--model: ") + e.what());
    }
  }
  o.num_classes = p2psim::parse_int(vm["classes"].as<std::string>(), "classes", 1, 1 << 20);
  o.batch_sizes = p2psim::parse_int_list<int64_t>(vm["batch-sizes"].as<std::string>(), "batch-sizes", 1, 1 << 16);
  o.threads = p2psim::parse_int_list<int>(vm["threads"].as<std::string>(), "threads", 1, 256);
  o.warmup = p2psim::parse_int(vm["warmup"].as<std::string>(), "warmup", 1, 100);
  o.repeats = p2psim::parse_int(vm["repeats"].as<std::string>(), "repeats", 1, 10000);
  o.min_repeats = p2psim::parse_int(vm["min-repeats"].as<std::string>(), "min-repeats", 1, o.repeats);
  o.budget_s = vm["budget-s"].as<double>();
  if (!(o.budget_s > 0)) throw p2psim::UsageError("--budget-s must be > 0");
  o.max_foreign_cpu = vm["max-foreign-cpu"].as<double>();
  if (!(o.max_foreign_cpu >= 0 && o.max_foreign_cpu <= 1)) throw p2psim::UsageError("--max-foreign-cpu must be in [0, 1]");
  o.contention_window_s = vm["contention-window-s"].as<double>();
  if (!(o.contention_window_s >= 0 && o.contention_window_s <= 60))
    throw p2psim::UsageError("--contention-window-s must be in [0, 60]");
  o.max_core_round_trip_ns = vm["max-core-round-trip-ns"].as<double>();
  if (!(o.max_core_round_trip_ns >= 0 && o.max_core_round_trip_ns <= 1e6))
    throw p2psim::UsageError("--max-core-round-trip-ns must be in [0, 1000000]");
  o.max_wait_for_shared_cache_s = vm["max-wait-for-shared-cache-s"].as<double>();
  if (!(o.max_wait_for_shared_cache_s >= 0 && o.max_wait_for_shared_cache_s <= 86400))
    throw p2psim::UsageError("--max-wait-for-shared-cache-s must be in [0, 86400]");
  o.average_counts = p2psim::parse_int_list<int>(vm["average-counts"].as<std::string>(), "average-counts", 1, 1024);
  o.codecs = p2psim::split_list(vm["codecs"].as<std::string>(), "codecs");
  o.topk_ratio = vm["topk-ratio"].as<double>();
  if (!(o.topk_ratio > 0 && o.topk_ratio <= 1)) throw p2psim::UsageError("--topk-ratio must be in (0, 1]");
  o.train_steps = vm.count("no-train-steps") == 0;
  o.tensor_ops = vm.count("no-tensor-ops") == 0;
  o.serialization_only = vm.count("serialization-only") > 0;
  o.memory_only = vm.count("memory-only") > 0;
  o.seed = vm["seed"].as<uint64_t>();
  o.out_csv = vm["out"].as<std::string>();
  o.command = command;
  // Before any timing: a folder, a missing folder or one that takes no file would lose the whole run at its end.
  p2psim::check_output_file(o.out_csv);
  p2psim::check_output_file(o.out_csv + ".meta.json");
  try {
    calibrate(o, std::cerr);
  } catch (const std::invalid_argument& e) {
    throw p2psim::UsageError(e.what());
  }
  std::cerr << "wrote " << o.out_csv << " and " << o.out_csv << ".meta.json\n";
  return p2psim::kExitOk;
}

int cmd_replay(int argc, char** argv) {
  ReplayOptions o;
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("schedule", po::value<std::string>()->required(),
                                                  "schedule.json written by `p2psim run` with <accuracy>")(
      "system,s", po::value<std::vector<std::string>>(), "replay only this system (repeatable)")(
      "out,o", po::value<std::string>()->required(), "output CSV: loss and accuracy per iteration")(
      "cache", po::value<std::string>()->default_value(default_replay_cache_dir()),
      "folder of cached replays ('' for none); default $P2PSIM_CACHE_DIR or ~/.cache/p2psim/replay")(
      "threads", po::value<std::string>()->default_value("1"), "LibTorch threads (results depend on it)");
  po::positional_options_description pos;
  pos.add("schedule", 1);
  po::variables_map vm;
  if (!p2psim::parse_or_help(argc, argv, desc,
                          "usage: p2psim replay SCHEDULE.json --out ACCURACY.csv [--system NAME]... [--cache DIR]\n"
                          "Trains the schedule's model for real with LibTorch on its dataset, applying exactly the\n"
                          "gradient versions each simulated update averaged, and writes loss and test accuracy per\n"
                          "iteration against the simulated time and cost.",
                          vm, &pos))
    return p2psim::kExitOk;
  o.schedule_path = vm["schedule"].as<std::string>();
  if (vm.count("system")) o.systems = vm["system"].as<std::vector<std::string>>();
  o.out_csv = vm["out"].as<std::string>();
  p2psim::check_output_file(o.out_csv);
  o.cache_dir = vm["cache"].as<std::string>();
  o.threads = static_cast<int>(p2psim::parse_int(vm["threads"].as<std::string>(), "threads", 1, 256));
  keep_freed_memory_in_heap();
  try {
    replay(o, std::cerr);
  } catch (const std::invalid_argument& e) {
    throw p2psim::UsageError(e.what());
  } catch (const data::DataError& e) {
    throw p2psim::UsageError(e.what());
  } catch (const InputError& e) {
    throw p2psim::UsageError(e.what());
  }
  std::cerr << "wrote " << o.out_csv << '\n';
  return p2psim::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: p2psim-torch {models|calibrate|replay} [options]   (normally run as `p2psim <cmd>`)";
  if (argc < 2) {
    std::cerr << usage << '\n';
    return p2psim::kExitBadInput;
  }
  const std::string cmd = argv[1];
  std::string command = "p2psim";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  try {
    if (cmd == "models") return cmd_models(argc - 1, argv + 1);
    if (cmd == "calibrate") return cmd_calibrate(argc - 1, argv + 1, command);
    if (cmd == "replay") return cmd_replay(argc - 1, argv + 1);
    throw p2psim::UsageError("unknown command '" + cmd + "'\n" + usage);
  } catch (const p2psim::UsageError& e) {
    std::cerr << "p2psim " << cmd << ": error: " << e.what() << '\n';
    return p2psim::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "p2psim " << cmd << ": internal error: " << e.what() << '\n';
    return p2psim::kExitInternal;
  }
}
