// ResNet-50's forward pass on one 3 x 224 x 224 image in eval mode, then the softmax and the sort of its scores, as
// SeBS 411.image-recognition's function runs them (torchvision's resnet50 layout: bottleneck blocks with the stride on
// the 3 x 3 convolution; autograd on, as SeBS calls the model without torch.no_grad()), on
// one and on two threads of LibTorch: the model part of the stand-in step of validation/sebs/
// sebs_resnet50_inference_*mb (its image work: calibration/python/sebs_image_preprocess.py). The weights are
// random: a forward pass costs the same whatever they are, and SeBS's trained weights are not needed for time.
//
// Build and run (Debian's libtorch-dev; calibration/run_shipped_calibration.sh does both):
//   c++ -O2 -std=c++17 calibration/tools/resnet50_inference.cpp -I/usr/include/torch/csrc/api/include \
//       -ltorch -ltorch_cpu -lc10 -o resnet50_inference && ./resnet50_inference [samples=21]
// Prints, for 1 and 2 threads, every sample's seconds and a last line: median, p10 and p90.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

struct BottleneckImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};

  BottleneckImpl(int64_t in, int64_t width, int64_t stride) {
    conv1 = register_module("conv1", conv(in, width, 1, 1, 0));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(width));
    conv2 = register_module("conv2", conv(width, width, 3, stride, 1));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(width));
    conv3 = register_module("conv3", conv(width, 4 * width, 1, 1, 0));
    bn3 = register_module("bn3", torch::nn::BatchNorm2d(4 * width));
    if (stride != 1 || in != 4 * width)
      downsample = register_module("downsample", torch::nn::Sequential(conv(in, 4 * width, 1, stride, 0),
                                                                       torch::nn::BatchNorm2d(4 * width)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto identity = downsample ? downsample->forward(x) : x;
    auto y = torch::relu(bn1(conv1(x)));
    y = torch::relu(bn2(conv2(y)));
    return torch::relu(bn3(conv3(y)) + identity);
  }
};
TORCH_MODULE(Bottleneck);

struct ResNet50 : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layers;
  torch::nn::Linear fc{nullptr};

  ResNet50() {
    conv1 = register_module("conv1", conv(3, 64, 7, 2, 3));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
    int64_t in = 64;
    const int64_t blocks[] = {3, 4, 6, 3}, widths[] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; ++stage)
      for (int64_t b = 0; b < blocks[stage]; ++b) {
        layers->push_back(Bottleneck(in, widths[stage], b == 0 && stage > 0 ? 2 : 1));
        in = 4 * widths[stage];
      }
    register_module("layers", layers);
    fc = register_module("fc", torch::nn::Linear(2048, 1000));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 3, 2, 1);
    x = torch::adaptive_avg_pool2d(layers->forward(x), {1, 1});
    return fc(torch::flatten(x, 1));
  }
};

double quantile(std::vector<double> v, double q) {  // numpy's linear quantile
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 21;
  if (samples < 3) {
    std::fprintf(stderr, "usage: resnet50_inference [samples >= 3]\n");
    return 2;
  }
  torch::manual_seed(0);
  ResNet50 model;
  model.eval();
  const auto image = torch::randn({1, 3, 224, 224});
  for (int threads : {1, 2}) {
    torch::set_num_threads(threads);
    for (int i = 0; i < 3; ++i) model.forward(image);  // untimed: the allocator's and oneDNN's first calls
    std::vector<double> seconds;
    for (int i = 0; i < samples; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto scores = model.forward(image);
      const auto probabilities = torch::softmax(scores[0], 0);
      const auto order = std::get<1>(torch::sort(scores, 1, /*descending=*/true));
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (probabilities.size(0) != 1000 || order.size(1) != 1000) return 1;
    }
    std::printf("# threads %d:", threads);
    for (double s : seconds) std::printf(" %.4f", s);
    std::printf("\nthreads %d median %.4f s (p10 %.4f, p90 %.4f, %d samples)\n", threads, quantile(seconds, 0.5),
                quantile(seconds, 0.1), quantile(seconds, 0.9), samples);
  }
  return 0;
}
