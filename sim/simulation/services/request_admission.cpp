#include "request_admission.hpp"

#include <cmath>

namespace p2psim::simulation {

RequestAdmission::RequestAdmission(double per_s) : per_window_(static_cast<long long>(std::floor(per_s))) {}

long long RequestAdmission::free_window(long long window) {
  // Full windows point past themselves; the chain is shortened as it is followed, so that a long run of full
  // windows (a burst far over the rate) is crossed in a few steps, not one window at a time.
  long long w = window;
  while (true) {
    const auto it = next_.find(w);
    if (it == next_.end()) break;
    w = it->second;
  }
  for (long long v = window; v != w;) {
    auto& hop = next_[v];
    v = hop;
    hop = w;
  }
  return w;
}

double RequestAdmission::admit(double at_s) {
  if (per_window_ <= 0) return at_s;
  const auto asked = static_cast<long long>(std::floor(at_s));
  const long long window = free_window(asked);
  if (++taken_[window] == per_window_) next_[window] = window + 1;
  return window == asked ? at_s : static_cast<double>(window);
}

}  // namespace p2psim::simulation
