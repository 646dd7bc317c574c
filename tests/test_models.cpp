// The model zoo against torchvision's published parameter counts, and forward shapes.
#include "torch_doctest.hpp"

#include "zoo.hpp"

using namespace p2psim::models;

TEST_CASE("parameter counts equal torchvision's with 1000 classes") {
  // torchvision model documentation, "Params" column.
  const std::pair<const char*, int64_t> published[] = {{"resnet18", 11689512},     {"vgg11", 132863336},
                                                       {"squeezenet1_1", 1235496}, {"mobilenet_v2", 3504872},
                                                       {"mobilenet_v3_small", 2542856}};
  for (const auto& [name, count] : published) {
    CAPTURE(name);
    CHECK(parameter_count(*find_model(name).build(1000, find_model(name).default_input)) == count);
  }
}

TEST_CASE("parameter counts of the CIFAR variants, the MNIST CNN and the Quickstart MLP") {
  // kuangliu/pytorch-cifar ResNet18 and PyTorch's examples/mnist Net; VGG-11-BN keeps its conv biases.
  CHECK(parameter_count(*make_resnet18_cifar(10)) == 11173962);
  CHECK(parameter_count(*make_mnist_cnn(10, {1, 28, 28})) == 1199882);
  CHECK(parameter_count(*make_vgg11_cifar(10)) == 9231114);
  // The 10-class torchvision VGG-11 the paper trained: ~515 MB of float32 gradient.
  CHECK(parameter_count(*make_vgg11(10)) == 128807306);
  // PyTorch's Quickstart MLP, weights and biases by hand: 784x512 + 512, 512x512 + 512, 512x10 + 10.
  CHECK(parameter_count(*make_quickstart_mlp(10, {1, 28, 28})) == 784 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10);
}

TEST_CASE("forward passes give [batch, classes] at the paper's input sizes") {
  const std::tuple<const char*, InputShape> cases[] = {
      {"vgg11", {3, 32, 32}},         {"squeezenet1_1", {3, 21, 21}}, {"mobilenet_v3_small", {3, 29, 29}},
      {"mobilenet_v2", {3, 64, 64}},  {"resnet18", {3, 64, 64}},      {"vgg11_cifar", {3, 32, 32}},
      {"resnet18_cifar", {3, 32, 32}}, {"mnist_cnn", {1, 28, 28}},     {"mnist_cnn", {3, 32, 32}},
      {"quickstart_mlp", {1, 28, 28}}};
  for (const auto& [name, shape] : cases) {
    CAPTURE(name);
    auto net = build_model(name, 7, shape);
    auto out = net->forward(torch::randn({3, shape[0], shape[1], shape[2]}));
    CHECK(out.sizes() == torch::IntArrayRef{3, 7});
  }
}

TEST_CASE("an input the architecture cannot take is a clear error") {
  CHECK_THROWS_WITH_AS(build_model("vgg11_cifar", 10, {3, 16, 16}),
                       doctest::Contains("model 'vgg11_cifar' does not accept input 3x16x16"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(build_model("resnet18", 10, {1, 64, 64}), doctest::Contains("does not accept input 1x64x64"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(find_model("vgg19"), doctest::Contains("unknown model 'vgg19' (known: vgg11"),
                       std::invalid_argument);
}

TEST_CASE("a training step produces a gradient for every parameter") {
  auto net = build_model("mnist_cnn", 10, {1, 28, 28});
  auto loss = torch::nn::functional::cross_entropy(net->forward(torch::randn({4, 1, 28, 28})),
                                                   torch::randint(0, 10, {4}, torch::kInt64));
  loss.backward();
  int64_t with_grad = 0;
  for (const auto& p : net->parameters()) with_grad += p.grad().defined() ? p.numel() : 0;
  CHECK(with_grad == parameter_count(*net));
}
