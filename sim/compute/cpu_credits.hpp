// Burstable instances' CPU credits (T2/T3). 1 credit = 1 vCPU at 100 % for 1 minute. Work at full speed keeping
// b vCPUs busy spends b/60 credits per second while credits_earned_per_hour/3600 come in; idle time only earns,
// up to max_credits (T2 launch credits are spent first and not capped). At zero balance a standard-mode
// instance runs at its baseline, earned/60 vCPUs; an unlimited one keeps full speed and its surplus credits
// are billed. Pure: no SimGrid.
#pragma once
#include "../inputs/cloud_profile.hpp"

namespace p2psim {

class CpuCredits {
 public:
  explicit CpuCredits(const InstanceType& type);

  /// Wall seconds that `full_speed_s` seconds of work keeping `busy_vcpus` vCPUs busy take when started at
  /// `now_s`: credits drain by busy_vcpus / 60 per second. Throughput at the baseline is taken as proportional
  /// to the CPU share of all vCPUs (conservative when fewer are busy).
  double run(double now_s, double full_speed_s, double busy_vcpus);
  /// The same with every vCPU busy.
  double run(double now_s, double full_speed_s) { return run(now_s, full_speed_s, type_.vcpus); }
  /// Of the last run's work, the seconds done at full speed before the credits ran out (all of it when
  /// they did not): the simulation runs the rest with the host at its baseline speed.
  double last_full_speed_s() const { return last_full_speed_s_; }
  /// A standard-mode instance's throughput at zero balance, as a share of its full throughput.
  double baseline_share() const { return type_.credits_earned_per_hour / 60.0 / type_.vcpus; }
  bool throttles() const { return type_.burstable() && !type_.unlimited; }

  double balance() const { return launch_ + earned_; }
  double exhausted_at_s() const { return exhausted_at_s_; }  // first time the balance hit zero; -1 if never
  double surplus_credits() const { return earned_ < 0 ? -earned_ : 0; }  // unlimited: spent beyond earnings

 private:
  void accrue(double now_s);
  InstanceType type_;
  double launch_ = 0, earned_ = 0, last_s_ = 0, exhausted_at_s_ = -1, last_full_speed_s_ = 0;
};

}  // namespace p2psim
