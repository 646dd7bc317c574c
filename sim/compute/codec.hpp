// Message sizes of the gradient encodings that models/compression.cpp implements and `p2psim calibrate` times.
// A unit test checks these against the payload_bytes the calibration measured on real tensors.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

namespace p2psim {

/// Bytes of a gradient of `elements` float32 entries once encoded with `codec`.
inline double encoded_bytes(const std::string& codec, double elements, double topk_ratio) {
  if (codec == "qsgd8_paper") return 4 * (elements + 1);  // float norm + int32 levels, promoted to N+1 floats
  if (codec == "qsgd8_packed") return elements + 4;       // int8 levels + one float32 scale
  if (codec == "fp16") return 2 * elements;
  if (codec == "topk") return 8 * std::max(1.0, std::floor(topk_ratio * elements));  // float32 value + int32 index
  return 4 * elements;                                                             // none
}

}  // namespace p2psim
