// ResNet-18 (He et al. 2016) as in torchvision.models.resnet18, and the CIFAR variant (3x3 stride-1 stem,
// no max-pool; kuangliu/pytorch-cifar's ResNet18).
#include "zoo.hpp"

namespace p2psim::models {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

struct BasicBlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};

  BasicBlockImpl(int64_t in, int64_t out, int64_t stride) {
    conv1 = register_module("conv1", conv(in, out, 3, stride, 1));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(out));
    conv2 = register_module("conv2", conv(out, out, 3, 1, 1));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(out));
    if (stride != 1 || in != out)
      downsample = register_module("downsample", torch::nn::Sequential(conv(in, out, 1, stride, 0),
                                                                       torch::nn::BatchNorm2d(out)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto identity = downsample ? downsample->forward(x) : x;
    auto y = torch::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    return torch::relu(y + identity);
  }
};
TORCH_MODULE(BasicBlock);

struct ResNet18 : Net {
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layers;
  torch::nn::Linear fc{nullptr};
  bool imagenet_stem;

  ResNet18(int64_t num_classes, bool imagenet_stem) : imagenet_stem(imagenet_stem) {
    conv1 = register_module("conv1", imagenet_stem ? conv(3, 64, 7, 2, 3) : conv(3, 64, 3, 1, 1));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
    int64_t in = 64;
    for (int64_t out : {64, 128, 256, 512}) {
      int64_t stride = out == 64 ? 1 : 2;
      layers->push_back(BasicBlock(in, out, stride));
      layers->push_back(BasicBlock(out, out, 1));
      in = out;
    }
    register_module("layers", layers);
    fc = register_module("fc", torch::nn::Linear(512, num_classes));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(bn1(conv1(x)));
    if (imagenet_stem) x = torch::max_pool2d(x, 3, 2, 1);
    x = torch::adaptive_avg_pool2d(layers->forward(x), {1, 1});
    return fc(torch::flatten(x, 1));
  }
};

}  // namespace

NetPtr make_resnet18(int64_t num_classes) { return std::make_shared<ResNet18>(num_classes, true); }
NetPtr make_resnet18_cifar(int64_t num_classes) { return std::make_shared<ResNet18>(num_classes, false); }

}  // namespace p2psim::models
