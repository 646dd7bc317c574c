// VGG-11 ("configuration A", Simonyan & Zisserman 2014) as in torchvision.models.vgg11, and the CIFAR
// variant with batch norm and a single 512->classes head (kuangliu/pytorch-cifar's VGG('VGG11')).
#include "zoo.hpp"

namespace p2psim::models {
namespace {

constexpr int kPool = 0;  // marks a max-pool in the layer configuration
const std::vector<int> kVgg11Config{64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};

torch::nn::Sequential vgg_features(bool batch_norm) {
  torch::nn::Sequential features;
  int64_t in = 3;
  for (int c : kVgg11Config) {
    if (c == kPool) {
      features->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
      continue;
    }
    features->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(in, c, 3).padding(1)));
    if (batch_norm) features->push_back(torch::nn::BatchNorm2d(c));
    features->push_back(torch::nn::ReLU(torch::nn::ReLUOptions(true)));
    in = c;
  }
  return features;
}

struct Vgg11 : Net {
  torch::nn::Sequential features, classifier;
  torch::nn::AdaptiveAvgPool2d avgpool{torch::nn::AdaptiveAvgPool2dOptions({7, 7})};

  explicit Vgg11(int64_t num_classes) {
    features = register_module("features", vgg_features(false));
    register_module("avgpool", avgpool);
    classifier = register_module(
        "classifier",
        torch::nn::Sequential(torch::nn::Linear(512 * 7 * 7, 4096), torch::nn::ReLU(true), torch::nn::Dropout(0.5),
                              torch::nn::Linear(4096, 4096), torch::nn::ReLU(true), torch::nn::Dropout(0.5),
                              torch::nn::Linear(4096, num_classes)));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = avgpool(features->forward(x));
    return classifier->forward(torch::flatten(x, 1));
  }
};

struct Vgg11Cifar : Net {
  torch::nn::Sequential features;
  torch::nn::Linear classifier{nullptr};

  explicit Vgg11Cifar(int64_t num_classes) {
    features = register_module("features", vgg_features(true));
    classifier = register_module("classifier", torch::nn::Linear(512, num_classes));
  }
  torch::Tensor forward(torch::Tensor x) override {
    // Five 2x2 pools take 32x32 to 1x1; the flatten needs exactly 512 features.
    return classifier(torch::flatten(features->forward(x), 1));
  }
};

}  // namespace

NetPtr make_vgg11(int64_t num_classes) { return std::make_shared<Vgg11>(num_classes); }
NetPtr make_vgg11_cifar(int64_t num_classes) { return std::make_shared<Vgg11Cifar>(num_classes); }

}  // namespace p2psim::models
