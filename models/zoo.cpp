#include "zoo.hpp"

#include <sstream>
#include <stdexcept>

namespace p2psim::models {

int64_t parameter_count(const Net& net) {
  int64_t n = 0;
  for (const auto& p : net.parameters())
    if (p.requires_grad()) n += p.numel();
  return n;
}

const std::vector<ModelInfo>& zoo() {
  auto classes_only = [](NetPtr (*make)(int64_t)) {
    return [make](int64_t classes, const InputShape&) { return make(classes); };
  };
  static const std::vector<ModelInfo> models{
      {"vgg11", "VGG-11 (torchvision layout, no BN, 3 FC layers)", {3, 224, 224}, classes_only(make_vgg11)},
      {"vgg11_cifar", "VGG-11-BN CIFAR variant, one 512->classes FC (kuangliu/pytorch-cifar)", {3, 32, 32},
       classes_only(make_vgg11_cifar)},
      {"resnet18", "ResNet-18 (torchvision layout)", {3, 224, 224}, classes_only(make_resnet18)},
      {"resnet18_cifar", "ResNet-18 CIFAR variant, 3x3 stem, no max-pool (kuangliu/pytorch-cifar)", {3, 32, 32},
       classes_only(make_resnet18_cifar)},
      {"squeezenet1_1", "SqueezeNet 1.1 (torchvision layout)", {3, 224, 224}, classes_only(make_squeezenet1_1)},
      {"mobilenet_v2", "MobileNetV2 (torchvision layout)", {3, 224, 224}, classes_only(make_mobilenet_v2)},
      {"mobilenet_v3_small", "MobileNetV3-small (torchvision layout)", {3, 224, 224},
       classes_only(make_mobilenet_v3_small)},
      {"mnist_cnn", "CNN of PyTorch's examples/mnist (conv32, conv64, fc128)", {1, 28, 28}, make_mnist_cnn},
      {"quickstart_mlp", "MLP of PyTorch's Quickstart tutorial (fc512, fc512, fc-classes, ReLU after each)", {1, 28, 28},
       make_quickstart_mlp},
  };
  return models;
}

const ModelInfo& find_model(const std::string& name) {
  std::ostringstream known;
  for (const auto& m : zoo()) {
    if (m.name == name) return m;
    known << (known.tellp() > 0 ? ", " : "") << m.name;
  }
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known.str() + ")");
}

NetPtr build_model(const std::string& name, int64_t num_classes, const InputShape& input) {
  const ModelInfo& info = find_model(name);
  if (num_classes < 1) throw std::invalid_argument("number of classes must be >= 1, got " + std::to_string(num_classes));
  auto shape_text = std::to_string(input[0]) + "x" + std::to_string(input[1]) + "x" + std::to_string(input[2]);
  NetPtr net;
  try {
    net = info.build(num_classes, input);
    // A one-sample forward pass is the only check that cannot drift from the architecture itself.
    torch::NoGradGuard no_grad;
    net->eval();
    auto out = net->forward(torch::zeros({1, input[0], input[1], input[2]}));
    if (out.sizes() != torch::IntArrayRef{1, num_classes}) throw std::runtime_error("unexpected output shape");
    net->train();
  } catch (const std::exception& e) {
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    throw std::invalid_argument("model '" + name + "' does not accept input " + shape_text + ": " + why);
  }
  return net;
}

}  // namespace p2psim::models
