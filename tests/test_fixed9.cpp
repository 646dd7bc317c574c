// append_fixed9 against fmt's own "{:.9f}", which it replaces in trace.csv: every byte the same.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>

#include "../sim/util/fixed9.hpp"

namespace {

std::string fast(double v) {
  std::string s;
  p2psim::append_fixed9(s, v);
  return s;
}

}  // namespace

TEST_CASE("fixed9: exact ties round to even, as fmt and printf do") {
  CHECK(fast(1.0 / 1024) == "0.000976562");  // 976,562.5 units
  CHECK(fast(3.0 / 1024) == "0.002929688");  // 2,929,687.5
  CHECK(fast(0.0) == "0.000000000");
  CHECK(fast(-0.0) == "-0.000000000");
  CHECK(fast(-1e-12) == "-0.000000000");
  CHECK(fast(0.9999999995) == fmt::format("{:.9f}", 0.9999999995));  // carries into the integer part
  CHECK(fast(1e-320) == "0.000000000");                                // subnormal
}

TEST_CASE("fixed9: the same bytes as fmt over magnitudes from 1e-12 to 9e9, their neighbours and specials") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-12, std::log10(9e9));
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const double v = std::pow(10.0, exponent(rng)) * (i % 7 == 0 ? -1 : 1);
    for (double w : {v, std::nextafter(v, 0.0), std::nextafter(v, 1e300), std::round(v * 1e9) / 1e9,
                     (std::floor(v * 1e9) + 0.5) / 1e9}) {
      if (fast(w) != fmt::format("{:.9f}", w)) FAIL_CHECK(fmt::format("{:.17g}: {} against fmt's {}", w, fast(w), fmt::format("{:.9f}", w)));
      ++checked;
    }
  }
  CHECK(checked == 1000000);
  for (double w : {9e9, -9e9, 1e15, std::numeric_limits<double>::infinity(), std::nan("")})
    CHECK(fast(w) == fmt::format("{:.9f}", w));
}
