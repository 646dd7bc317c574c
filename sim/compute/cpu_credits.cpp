#include "cpu_credits.hpp"

#include <algorithm>

namespace p2psim {

CpuCredits::CpuCredits(const InstanceType& type) : type_(type), launch_(type.launch_credits) {}

void CpuCredits::accrue(double now_s) {
  // Earnings repay an unlimited instance's surplus first, then fill up to the cap.
  earned_ = std::min(type_.max_credits, earned_ + type_.credits_earned_per_hour / 3600.0 * (now_s - last_s_));
  last_s_ = now_s;
}

double CpuCredits::run(double now_s, double full_speed_s, double busy_vcpus) {
  last_full_speed_s_ = full_speed_s;
  if (!type_.burstable()) return full_speed_s;
  accrue(now_s);
  const double earn_per_s = type_.credits_earned_per_hour / 3600.0;
  const double net_per_s = std::clamp(busy_vcpus, 0.0, 1.0 * type_.vcpus) / 60.0 - earn_per_s;  // drain at full speed
  double wall = full_speed_s;
  if (net_per_s > 0) {
    const double need = net_per_s * full_speed_s;
    const double available = launch_ + std::max(earned_, 0.0);
    const double from_launch = std::min(launch_, need);  // launch credits go first
    launch_ -= from_launch;
    const double rest = need - from_launch;
    if (rest <= std::max(earned_, 0.0)) {
      earned_ -= rest;
    } else if (type_.unlimited) {  // full speed on: the balance goes negative, which is the billed surplus
      if (exhausted_at_s_ < 0) exhausted_at_s_ = now_s + available / net_per_s;
      earned_ -= rest;
    } else {  // standard: full speed while credits last, then the baseline
      const double full_s = available / net_per_s;
      if (exhausted_at_s_ < 0) exhausted_at_s_ = now_s + full_s;
      earned_ = 0;
      last_full_speed_s_ = full_s;
      wall = full_s + (full_speed_s - full_s) / baseline_share();
    }
  }
  last_s_ = now_s + wall;
  return wall;
}

}  // namespace p2psim
