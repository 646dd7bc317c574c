// A double as fmt's "{:.9f}" writes it, byte for byte, from integer arithmetic: trace.csv's three times per row.
// fmt prints a fixed precision through arbitrary-precision decimals, which was ~6 % of a paper-grid sweep's CPU.
#pragma once
#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>

namespace p2psim {

/// Appends `v` with nine decimals, rounded to nearest from its exact binary value, ties to even, as fmt and printf
/// round; a sign for negative values and negative zero. Outside (-9e9, 9e9), or not finite, fmt writes it.
inline void append_fixed9(std::string& out, double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9e9) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.9f}"), v);
    return;
  }
  if (std::signbit(v)) out += '-', v = -v;
  int exponent = 0;
  const double fraction = std::frexp(v, &exponent);                        // v = fraction * 2^exponent
  const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 53));  // v = mantissa * 2^(exponent - 53)
  const int shift = 53 - exponent;  // > 0: v < 9e9 < 2^34
  const unsigned __int128 scaled = static_cast<unsigned __int128>(mantissa) * 1000000000u;  // v * 1e9 * 2^shift
  std::uint64_t units = 0;  // round(v * 1e9)
  if (shift < 100) {        // else scaled < 2^83 is under half of 2^shift: 0
    const unsigned __int128 one = static_cast<unsigned __int128>(1) << shift;
    units = static_cast<std::uint64_t>(scaled >> shift);
    const unsigned __int128 rest = scaled & (one - 1), half = one >> 1;
    if (rest > half || (rest == half && (units & 1))) ++units;
  }
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}."), units / 1000000000u);
  char digits[9];
  std::uint64_t fraction_units = units % 1000000000u;
  for (int i = 8; i >= 0; --i) digits[i] = static_cast<char>('0' + fraction_units % 10), fraction_units /= 10;
  out.append(digits, 9);
}

}  // namespace p2psim
