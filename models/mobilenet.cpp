// MobileNetV2 (Sandler et al. 2018) and MobileNetV3-small (Howard et al. 2019), as in
// torchvision.models.mobilenet_v2 and torchvision.models.mobilenet_v3_small (width 1.0).
#include "zoo.hpp"

namespace p2psim::models {
namespace {

enum class Act { None, ReLU, ReLU6, Hardswish };

torch::Tensor activate(torch::Tensor x, Act act) {
  switch (act) {
    case Act::ReLU: return torch::relu(x);
    case Act::ReLU6: return torch::clamp(x, 0, 6);
    case Act::Hardswish: return torch::hardswish(x);
    case Act::None: break;
  }
  return x;
}

// torchvision's Conv2dNormActivation: conv (no bias) + batch norm + activation.
struct ConvBnActImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  Act act;
  ConvBnActImpl(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups, Act act) : act(act) {
    conv = register_module(
        "conv", torch::nn::Conv2d(
                    torch::nn::Conv2dOptions(in, out, k).stride(stride).padding((k - 1) / 2).groups(groups).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(out));
  }
  torch::Tensor forward(torch::Tensor x) { return activate(bn(conv(x)), act); }
};
TORCH_MODULE(ConvBnAct);

// torchvision's _make_divisible: round to a multiple of 8, never more than 10 % below v.
int64_t make_divisible(double v, int64_t divisor = 8) {
  int64_t rounded = std::max<int64_t>(divisor, static_cast<int64_t>(v + divisor / 2.0) / divisor * divisor);
  return rounded < 0.9 * v ? rounded + divisor : rounded;
}

struct InvertedResidualV2Impl : torch::nn::Module {
  torch::nn::Sequential body;
  bool residual;
  InvertedResidualV2Impl(int64_t in, int64_t out, int64_t stride, int64_t expand) {
    residual = stride == 1 && in == out;
    int64_t hidden = in * expand;
    if (expand != 1) body->push_back(ConvBnAct(in, hidden, 1, 1, 1, Act::ReLU6));
    body->push_back(ConvBnAct(hidden, hidden, 3, stride, hidden, Act::ReLU6));
    body->push_back(ConvBnAct(hidden, out, 1, 1, 1, Act::None));
    register_module("conv", body);
  }
  torch::Tensor forward(torch::Tensor x) { return residual ? x + body->forward(x) : body->forward(x); }
};
TORCH_MODULE(InvertedResidualV2);

struct MobileNetV2 : Net {
  torch::nn::Sequential features, classifier;
  explicit MobileNetV2(int64_t num_classes) {
    struct Stage { int64_t expand, channels, repeats, stride; };
    const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    features->push_back(ConvBnAct(3, 32, 3, 2, 1, Act::ReLU6));
    int64_t in = 32;
    for (const auto& s : stages)
      for (int64_t i = 0; i < s.repeats; ++i) {
        features->push_back(InvertedResidualV2(in, s.channels, i == 0 ? s.stride : 1, s.expand));
        in = s.channels;
      }
    features->push_back(ConvBnAct(in, 1280, 1, 1, 1, Act::ReLU6));
    register_module("features", features);
    classifier = register_module("classifier",
                                 torch::nn::Sequential(torch::nn::Dropout(0.2), torch::nn::Linear(1280, num_classes)));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::adaptive_avg_pool2d(features->forward(x), {1, 1});
    return classifier->forward(torch::flatten(x, 1));
  }
};

struct SqueezeExcitationImpl : torch::nn::Module {
  torch::nn::Conv2d fc1{nullptr}, fc2{nullptr};
  explicit SqueezeExcitationImpl(int64_t channels) {
    int64_t squeeze = make_divisible(channels / 4);
    fc1 = register_module("fc1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, squeeze, 1)));
    fc2 = register_module("fc2", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze, channels, 1)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto scale = torch::adaptive_avg_pool2d(x, {1, 1});
    scale = torch::hardsigmoid(fc2(torch::relu(fc1(scale))));
    return x * scale;
  }
};
TORCH_MODULE(SqueezeExcitation);

struct InvertedResidualV3Impl : torch::nn::Module {
  torch::nn::Sequential body;
  bool residual;
  InvertedResidualV3Impl(int64_t in, int64_t kernel, int64_t expanded, int64_t out, bool se, Act act,
                         int64_t stride) {
    residual = stride == 1 && in == out;
    if (expanded != in) body->push_back(ConvBnAct(in, expanded, 1, 1, 1, act));
    body->push_back(ConvBnAct(expanded, expanded, kernel, stride, expanded, act));
    if (se) body->push_back(SqueezeExcitation(expanded));
    body->push_back(ConvBnAct(expanded, out, 1, 1, 1, Act::None));
    register_module("block", body);
  }
  torch::Tensor forward(torch::Tensor x) { return residual ? x + body->forward(x) : body->forward(x); }
};
TORCH_MODULE(InvertedResidualV3);

struct MobileNetV3Small : Net {
  torch::nn::Sequential features;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::Dropout dropout{0.2};
  explicit MobileNetV3Small(int64_t num_classes) {
    struct Block { int64_t in, kernel, expanded, out; bool se; Act act; int64_t stride; };
    const Act RE = Act::ReLU, HS = Act::Hardswish;
    const Block blocks[] = {{16, 3, 16, 16, true, RE, 2},   {16, 3, 72, 24, false, RE, 2},
                            {24, 3, 88, 24, false, RE, 1},  {24, 5, 96, 40, true, HS, 2},
                            {40, 5, 240, 40, true, HS, 1},  {40, 5, 240, 40, true, HS, 1},
                            {40, 5, 120, 48, true, HS, 1},  {48, 5, 144, 48, true, HS, 1},
                            {48, 5, 288, 96, true, HS, 2},  {96, 5, 576, 96, true, HS, 1},
                            {96, 5, 576, 96, true, HS, 1}};
    features->push_back(ConvBnAct(3, 16, 3, 2, 1, Act::Hardswish));
    for (const auto& b : blocks)
      features->push_back(InvertedResidualV3(b.in, b.kernel, b.expanded, b.out, b.se, b.act, b.stride));
    features->push_back(ConvBnAct(96, 576, 1, 1, 1, Act::Hardswish));
    register_module("features", features);
    fc1 = register_module("fc1", torch::nn::Linear(576, 1024));
    register_module("dropout", dropout);
    fc2 = register_module("fc2", torch::nn::Linear(1024, num_classes));
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::flatten(torch::adaptive_avg_pool2d(features->forward(x), {1, 1}), 1);
    return fc2(dropout(torch::hardswish(fc1(x))));
  }
};

}  // namespace

NetPtr make_mobilenet_v2(int64_t num_classes) { return std::make_shared<MobileNetV2>(num_classes); }
NetPtr make_mobilenet_v3_small(int64_t num_classes) { return std::make_shared<MobileNetV3Small>(num_classes); }

}  // namespace p2psim::models
