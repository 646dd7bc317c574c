// The CNN of PyTorch's examples/mnist/main.py (two 3x3 convs, a 2x2 max-pool, fc128, fc-classes).
#include "zoo.hpp"

namespace p2psim::models {
namespace {

struct MnistCnn : Net {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Dropout dropout1{0.25}, dropout2{0.5};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  MnistCnn(int64_t num_classes, const InputShape& input) {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(input[0], 32, 3)));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3)));
    register_module("dropout1", dropout1);
    register_module("dropout2", dropout2);
    // 28x28 -> two valid 3x3 convs -> 24x24 -> 2x2 pool -> 12x12: 64*12*12 = 9216 features, as in the example.
    const int64_t features = 64 * ((input[1] - 4) / 2) * ((input[2] - 4) / 2);
    fc1 = register_module("fc1", torch::nn::Linear(features, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, num_classes));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(conv2(torch::relu(conv1(x))));
    x = torch::flatten(dropout1(torch::max_pool2d(x, 2)), 1);
    return fc2(dropout2(torch::relu(fc1(x))));
  }
};

}  // namespace

NetPtr make_mnist_cnn(int64_t num_classes, const InputShape& input) {
  return std::make_shared<MnistCnn>(num_classes, input);
}

}  // namespace p2psim::models
