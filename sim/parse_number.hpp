// Whole-string number parsing shared by the XML inputs and the command line: nothing when any character is
// left over, when the text is empty, or (for reals) when the value is not finite.
#pragma once
#include <cmath>
#include <optional>
#include <string>

namespace p2psim {

inline std::optional<double> parse_real(const std::string& s) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

inline std::optional<long long> parse_integer(const std::string& s) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != s.size()) return std::nullopt;
  return v;
}

}  // namespace p2psim
