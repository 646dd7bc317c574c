// Whole-string number parsing shared by the XML inputs and the command line: nothing when any character is
// left over, when the text is empty, or (for reals) when the value is not finite.
#pragma once
#include <cctype>
#include <cmath>
#include <optional>
#include <string>

namespace p2psim {

/// Plain decimal notation only: an optional '-', digits with at most one '.', an optional exponent. No
/// spaces, '+', hexadecimal, "inf" or "nan": what a user did not mean as a number is an error, not a value.
inline bool plain_decimal(const std::string& s, bool integer) {
  size_t i = s[0] == '-' ? 1 : 0, digits = 0, dots = 0;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || (!integer && s[i] == '.')); ++i)
    s[i] == '.' ? ++dots : ++digits;
  if (digits == 0 || dots > 1) return false;
  if (i < s.size() && !integer && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t exponent_start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == exponent_start) return false;
  }
  return i == s.size();
}

inline std::optional<double> parse_real(const std::string& s) {
  if (s.empty() || !plain_decimal(s, false)) return std::nullopt;
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
  if (s.empty() || !plain_decimal(s, true)) return std::nullopt;
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
