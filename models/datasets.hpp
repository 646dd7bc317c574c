// Dataset readers, torch-free so that they are cheap to test: MNIST-style IDX files (gzipped or not) and
// CIFAR-10's binary batches. Both return raw bytes; models/batches.hpp turns them into tensors.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace p2psim::data {

/// A labelled set of 8-bit images stored sample-major as [count, channels, height, width].
struct ImageSet {
  int64_t count = 0, channels = 0, height = 0, width = 0;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> labels;
  int64_t sample_bytes() const { return channels * height * width; }
};

/// A file that is missing, truncated or not in the expected format. what() names the file.
struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads an IDX image file (magic 0x00000803) and its label file (0x00000801), gzipped or plain.
ImageSet read_idx(const std::string& images_path, const std::string& labels_path);

/// Reads CIFAR-10 binary batches: records of one label byte followed by 3x32x32 pixel bytes.
ImageSet read_cifar10(const std::vector<std::string>& batch_paths);

}  // namespace p2psim::data
