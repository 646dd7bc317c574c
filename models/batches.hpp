// Turning datasets into tensors, and synthetic batches of any shape for timing.
#pragma once
#include "datasets.hpp"
#include "net.hpp"

namespace p2psim::models {

struct Batch {
  torch::Tensor inputs;   // [batch, C, H, W] float32
  torch::Tensor targets;  // [batch] int64 class indices
};

/// Samples [begin, begin+count) of `set`, pixels scaled to [0, 1].
Batch to_batch(const data::ImageSet& set, int64_t begin, int64_t count);

/// Standard-normal inputs and uniform labels in [0, num_classes), reproducible from `seed`.
Batch synthetic_batch(int64_t batch_size, const InputShape& input, int64_t num_classes, uint64_t seed);

}  // namespace p2psim::models
