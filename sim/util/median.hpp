// The median of a sample (the mean of the two middle values when their number is even).
#pragma once
#include <algorithm>
#include <vector>

namespace p2psim {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace p2psim
