// The data a replay trains and tests on: the experiment's dataset read from disk, shuffled with the seed,
// cut to its first train_samples, split into the peers' shards and shaped to the model's input.
#pragma once
#include <string>
#include <vector>

#include "net.hpp"

namespace p2psim::models {

struct ReplayDataSpec {
  std::string dataset;   // fashion_mnist | mnist | cifar10
  std::string data_dir;  // empty: Debian's dataset-fashion-mnist folder (fashion_mnist only)
  InputShape input{};    // the model's input: a dataset of another shape is converted (channels, size)
  long long train_samples = 0, test_samples = 0;
  std::vector<long long> shard_samples;  // per peer, in order (peer p's shard follows peer p-1's)
  unsigned long long seed = 0;
};

struct ReplayData {
  std::vector<torch::Tensor> shard_inputs, shard_targets;  // per peer: [its samples, C, H, W] and [its samples]
  torch::Tensor test_inputs, test_targets;
  std::vector<std::string> files;  // what was read, for the cache key
};

/// Reads and prepares the data. Throws data::DataError naming the missing or malformed file.
ReplayData load_replay_data(const ReplayDataSpec& spec);

/// The files load_replay_data() reads, without reading them.
std::vector<std::string> replay_data_files(const std::string& dataset, const std::string& data_dir);

}  // namespace p2psim::models
