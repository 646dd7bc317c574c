// The model zoo: names users write in experiment files, mapped to LibTorch definitions that match
// torchvision (or the cited reference) layer for layer.
#pragma once
#include "net.hpp"

namespace p2psim::models {

struct ModelInfo {
  std::string name;
  std::string description;   // architecture and its reference
  InputShape default_input;  // the input the reference architecture was designed for
  std::function<NetPtr(int64_t num_classes, const InputShape& input)> build;
};

const std::vector<ModelInfo>& zoo();
/// Throws std::invalid_argument naming the known models when `name` is unknown.
const ModelInfo& find_model(const std::string& name);
/// Builds the model and checks, with a one-sample forward pass, that it accepts `input`;
/// throws std::invalid_argument naming the model and shape when it does not.
NetPtr build_model(const std::string& name, int64_t num_classes, const InputShape& input);

// One factory per architecture family (each in its own file).
NetPtr make_vgg11(int64_t num_classes);
NetPtr make_vgg11_cifar(int64_t num_classes);
NetPtr make_resnet18(int64_t num_classes);
NetPtr make_resnet18_cifar(int64_t num_classes);
NetPtr make_squeezenet1_1(int64_t num_classes);
NetPtr make_mobilenet_v2(int64_t num_classes);
NetPtr make_mobilenet_v3_small(int64_t num_classes);
NetPtr make_mnist_cnn(int64_t num_classes, const InputShape& input);
NetPtr make_quickstart_mlp(int64_t num_classes, const InputShape& input);

}  // namespace p2psim::models
