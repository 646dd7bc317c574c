// SqueezeNet 1.1 (Iandola et al. 2016) as in torchvision.models.squeezenet1_1.
#include "zoo.hpp"

namespace p2psim::models {
namespace {

struct FireImpl : torch::nn::Module {
  torch::nn::Conv2d squeeze{nullptr}, expand1x1{nullptr}, expand3x3{nullptr};
  FireImpl(int64_t in, int64_t squeeze_c, int64_t e1, int64_t e3) {
    squeeze = register_module("squeeze", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, squeeze_c, 1)));
    expand1x1 = register_module("expand1x1", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze_c, e1, 1)));
    expand3x3 =
        register_module("expand3x3", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze_c, e3, 3).padding(1)));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(squeeze(x));
    return torch::cat({torch::relu(expand1x1(x)), torch::relu(expand3x3(x))}, 1);
  }
};
TORCH_MODULE(Fire);

torch::nn::MaxPool2d pool() { return torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(3).stride(2).ceil_mode(true)); }

struct SqueezeNet11 : Net {
  torch::nn::Sequential features, classifier;
  explicit SqueezeNet11(int64_t num_classes) {
    features = register_module(
        "features",
        torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3).stride(2)), torch::nn::ReLU(true),
                              pool(), Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(), Fire(128, 32, 128, 128),
                              Fire(256, 32, 128, 128), pool(), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
                              Fire(384, 64, 256, 256), Fire(512, 64, 256, 256)));
    classifier = register_module(
        "classifier", torch::nn::Sequential(torch::nn::Dropout(0.5),
                                            torch::nn::Conv2d(torch::nn::Conv2dOptions(512, num_classes, 1)),
                                            torch::nn::ReLU(true), torch::nn::AdaptiveAvgPool2d(1)));
  }
  torch::Tensor forward(torch::Tensor x) override {
    return torch::flatten(classifier->forward(features->forward(x)), 1);
  }
};

}  // namespace

NetPtr make_squeezenet1_1(int64_t num_classes) { return std::make_shared<SqueezeNet11>(num_classes); }

}  // namespace p2psim::models
