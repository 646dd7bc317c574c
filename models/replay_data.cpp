#include "replay_data.hpp"

#include <filesystem>
#include <random>

#include "../sim/util/dataset_files.hpp"
#include "batches.hpp"
#include "datasets.hpp"

namespace p2psim::models {
namespace {

namespace fs = std::filesystem;

std::string folder(const std::string& dataset, const std::string& data_dir) {
  if (!data_dir.empty()) return data_dir;
  if (dataset == "fashion_mnist") return kDebianFashionMnistDir;
  throw data::DataError(dataset + ": no data_dir given; only Fashion-MNIST has a Debian package (set "
                        "<accuracy data_dir=\"...\"/> to the folder holding the dataset's files)");
}

// A seeded permutation, the same on every platform (std::shuffle's is the library's own).
std::vector<int64_t> permutation(int64_t n, unsigned long long seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 engine(seed);
  for (int64_t i = n - 1; i > 0; --i) std::swap(order[static_cast<size_t>(i)], order[engine() % static_cast<uint64_t>(i + 1)]);
  return order;
}

// Pixels in [0, 1], as the model takes them: grey images repeated over its channels, resized bilinearly when
// its input is another size (the shipped MNIST experiments use the paper's upsampled inputs).
torch::Tensor to_model_input(torch::Tensor x, const InputShape& input) {
  if (x.size(1) != input[0]) {
    if (x.size(1) != 1)
      throw data::DataError("a " + std::to_string(x.size(1)) + "-channel dataset cannot feed a " +
                            std::to_string(input[0]) + "-channel model");
    x = x.expand({x.size(0), input[0], x.size(2), x.size(3)}).contiguous();
  }
  if (x.size(2) != input[1] || x.size(3) != input[2])
    x = torch::nn::functional::interpolate(
        x, torch::nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{input[1], input[2]})
               .mode(torch::kBilinear).align_corners(false));
  return x;
}

Batch select(const data::ImageSet& set, const std::vector<int64_t>& indices, const InputShape& input) {
  // Index the bytes, then convert only the chosen samples.
  auto pixels = torch::from_blob(const_cast<uint8_t*>(set.pixels.data()), {set.count, set.channels, set.height, set.width},
                                 torch::kUInt8);
  auto labels = torch::from_blob(const_cast<uint8_t*>(set.labels.data()), {set.count}, torch::kUInt8);
  auto idx = torch::from_blob(const_cast<int64_t*>(indices.data()), {static_cast<int64_t>(indices.size())}, torch::kInt64);
  return {to_model_input(pixels.index_select(0, idx).to(torch::kFloat32).div_(255.0), input),
          labels.index_select(0, idx).to(torch::kInt64)};
}

}  // namespace

std::vector<std::string> replay_data_files(const std::string& dataset, const std::string& data_dir) {
  return dataset_files(dataset, folder(dataset, data_dir));
}

ReplayData load_replay_data(const ReplayDataSpec& spec) {
  ReplayData d;
  d.files = replay_data_files(spec.dataset, spec.data_dir);
  data::ImageSet train, test;
  if (spec.dataset == "cifar10") {
    train = data::read_cifar10({d.files.begin(), d.files.begin() + 5});
    test = data::read_cifar10({d.files[5]});
  } else {
    train = data::read_idx(d.files[0], d.files[1]);
    test = data::read_idx(d.files[2], d.files[3]);
  }
  if (train.count < spec.train_samples)
    throw data::DataError(d.files[0] + ": holds " + std::to_string(train.count) + " samples, the experiment trains on " +
                          std::to_string(spec.train_samples));
  if (test.count < spec.test_samples)
    throw data::DataError(d.files.back() + ": holds " + std::to_string(test.count) + " test samples, " +
                          std::to_string(spec.test_samples) + " asked");
  const auto order = permutation(train.count, spec.seed);
  auto first = order.begin();
  for (long long samples : spec.shard_samples) {
    const auto last = first + static_cast<std::ptrdiff_t>(samples);
    const auto shard = select(train, {first, last}, spec.input);
    first = last;
    d.shard_inputs.push_back(shard.inputs);
    d.shard_targets.push_back(shard.targets);
  }
  std::vector<int64_t> test_indices(static_cast<size_t>(spec.test_samples));
  for (size_t i = 0; i < test_indices.size(); ++i) test_indices[i] = static_cast<int64_t>(i);
  const auto t = select(test, test_indices, spec.input);
  d.test_inputs = t.inputs;
  d.test_targets = t.targets;
  return d;
}

}  // namespace p2psim::models
