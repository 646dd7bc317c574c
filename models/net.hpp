// The common shape of every network in the zoo. Only code under models/ includes this (it pulls in torch).
#pragma once
#include <torch/torch.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace p2psim::models {

/// Channels, height, width of one input sample.
using InputShape = std::array<int64_t, 3>;

/// A network whose forward maps [batch, C, H, W] to [batch, num_classes] logits.
struct Net : torch::nn::Module {
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};
using NetPtr = std::shared_ptr<Net>;

/// Number of trainable parameters (what a gradient holds).
int64_t parameter_count(const Net& net);

}  // namespace p2psim::models
