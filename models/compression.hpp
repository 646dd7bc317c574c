// Gradient compression codecs, run on real tensors by `p2psim calibrate` to measure their CPU cost and
// message size.
#pragma once
#include "net.hpp"

namespace p2psim::models {

enum class Codec {
  Qsgd8Paper,   // the paper's QSGDWECModCompressor: s = 255, [norm/s, sign*xi] concatenated as N+1 float32
  Qsgd8Packed,  // the same quantiser packed properly: s = 127 so sign*xi fits int8, plus one float32 scale
  TopK,         // the k largest-magnitude entries: float32 values + int32 indices
  Fp16,         // IEEE half precision
};

const std::vector<std::pair<std::string, Codec>>& codec_names();
Codec parse_codec(const std::string& name);  // throws std::invalid_argument listing known names

struct Encoded {
  std::vector<torch::Tensor> parts;  // what would be serialised into the message
  int64_t payload_bytes() const;
};

/// `topk_ratio` is the fraction of entries kept by TopK; `gen` drives QSGD's stochastic rounding.
Encoded encode(Codec codec, const torch::Tensor& flat_gradient, double topk_ratio, at::Generator& gen);
torch::Tensor decode(Codec codec, const Encoded& msg, int64_t numel);

}  // namespace p2psim::models
