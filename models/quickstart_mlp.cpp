// The network of PyTorch's Quickstart tutorial, which Ray's training-parity benchmark trains on Fashion-MNIST
// (release/air_tests/air_benchmarks/workloads/torch_benchmark.py): flatten, two hidden layers of 512 units, a
// layer to the classes, a ReLU after each of the three (the benchmark's copy keeps the tutorial's last ReLU).
#include "zoo.hpp"

namespace p2psim::models {
namespace {

struct QuickstartMlp : Net {
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
  QuickstartMlp(int64_t num_classes, const InputShape& input) {
    fc1 = register_module("fc1", torch::nn::Linear(input[0] * input[1] * input[2], 512));
    fc2 = register_module("fc2", torch::nn::Linear(512, 512));
    fc3 = register_module("fc3", torch::nn::Linear(512, num_classes));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(fc1(torch::flatten(x, 1)));
    return torch::relu(fc3(torch::relu(fc2(x))));
  }
};

}  // namespace

NetPtr make_quickstart_mlp(int64_t num_classes, const InputShape& input) {
  return std::make_shared<QuickstartMlp>(num_classes, input);
}

}  // namespace p2psim::models
