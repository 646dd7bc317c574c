#include "compression.hpp"

#include <stdexcept>

namespace p2psim::models {
namespace {

// Stochastic rounding of |g|/norm*s to an integer level: floor plus Bernoulli(fractional part).
torch::Tensor qsgd_levels(const torch::Tensor& g, const torch::Tensor& norm, double s, at::Generator& gen) {
  auto scaled = g.abs() / norm.clamp_min(1e-30) * s;
  auto low = scaled.floor();
  auto up = torch::rand(g.sizes(), gen).lt(scaled - low);
  return (low + up.to(torch::kFloat32)) * g.sign();
}

}  // namespace

const std::vector<std::pair<std::string, Codec>>& codec_names() {
  static const std::vector<std::pair<std::string, Codec>> names{
      {"qsgd8_paper", Codec::Qsgd8Paper}, {"qsgd8_packed", Codec::Qsgd8Packed}, {"topk", Codec::TopK},
      {"fp16", Codec::Fp16}};
  return names;
}

Codec parse_codec(const std::string& name) {
  std::string known;
  for (const auto& [n, c] : codec_names()) {
    if (n == name) return c;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("unknown codec '" + name + "' (known: " + known + ")");
}

int64_t Encoded::payload_bytes() const {
  int64_t bytes = 0;
  for (const auto& p : parts) bytes += p.numel() * static_cast<int64_t>(p.element_size());
  return bytes;
}

Encoded encode(Codec codec, const torch::Tensor& g, double topk_ratio, at::Generator& gen) {
  switch (codec) {
    case Codec::Qsgd8Paper: {
      constexpr double s = 255;  // quantization_level = 8 -> s = 2^8 - 1
      auto norm = g.abs().max();
      auto xi = qsgd_levels(g, norm, s, gen).to(torch::kInt32);
      // torch.cat([float norm, int32 xi]) promotes to float32: the message is N+1 floats.
      return {{torch::cat({(norm / s).reshape({1}), xi.to(torch::kFloat32)})}};
    }
    case Codec::Qsgd8Packed: {
      constexpr double s = 127;
      auto norm = g.abs().max();
      return {{(norm / s).reshape({1}), qsgd_levels(g, norm, s, gen).to(torch::kInt8)}};
    }
    case Codec::TopK: {
      if (!(topk_ratio > 0 && topk_ratio <= 1)) throw std::invalid_argument("top-k ratio must be in (0, 1]");
      const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(topk_ratio * static_cast<double>(g.numel())));
      auto idx = std::get<1>(g.abs().topk(k, 0, true, false));
      return {{g.index_select(0, idx), idx.to(torch::kInt32)}};
    }
    case Codec::Fp16: return {{g.to(torch::kHalf)}};
  }
  throw std::logic_error("unhandled codec");
}

torch::Tensor decode(Codec codec, const Encoded& msg, int64_t numel) {
  switch (codec) {
    case Codec::Qsgd8Paper: return msg.parts[0].slice(0, 1) * msg.parts[0][0];
    case Codec::Qsgd8Packed: return msg.parts[1].to(torch::kFloat32) * msg.parts[0][0];
    case Codec::TopK:
      return torch::zeros({numel}, torch::kFloat32).index_put_({msg.parts[1].to(torch::kInt64)}, msg.parts[0]);
    case Codec::Fp16: return msg.parts[0].to(torch::kFloat32);
  }
  throw std::logic_error("unhandled codec");
}

}  // namespace p2psim::models
