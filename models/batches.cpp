#include "batches.hpp"

namespace p2psim::models {

Batch to_batch(const data::ImageSet& set, int64_t begin, int64_t count) {
  if (begin < 0 || count < 0 || begin + count > set.count)
    throw std::out_of_range("batch [" + std::to_string(begin) + ", " + std::to_string(begin + count) +
                            ") is outside the data set of " + std::to_string(set.count) + " samples");
  const int64_t n = set.sample_bytes();
  auto pixels = torch::from_blob(const_cast<uint8_t*>(set.pixels.data() + begin * n),
                                 {count, set.channels, set.height, set.width}, torch::kUInt8);
  auto labels = torch::from_blob(const_cast<uint8_t*>(set.labels.data() + begin), {count}, torch::kUInt8);
  return {pixels.to(torch::kFloat32).div_(255.0), labels.to(torch::kInt64)};
}

Batch synthetic_batch(int64_t batch_size, const InputShape& input, int64_t num_classes, uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  return {torch::randn({batch_size, input[0], input[1], input[2]}, gen),
          torch::randint(0, num_classes, {batch_size}, gen, torch::kInt64)};
}

}  // namespace p2psim::models
