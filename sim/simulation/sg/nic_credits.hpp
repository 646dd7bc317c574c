// Network I/O credits of "up to N Gbit/s" instances (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
// ec2-instance-network-bandwidth.html): each direction of the NIC has a bucket of credits, full at launch, that
// drains while the NIC moves more than its baseline and refills while it moves less; while the bucket holds
// credits the NIC may run up to its burst rate, once empty it falls back to its baseline. The buckets are kept
// here from the NICs' actual use in the simulation: SimGrid's rates are constant between two of its events, so
// the balance is integrated exactly at each one (sg::Engine::run's time advances), and a NIC whose bucket runs
// dry is set to its baseline there. So that a bucket cannot run dry between two events, a daemon actor wakes the
// clock at the earliest instant one could (its balance over its largest drain, burst less baseline): at worst a
// bucket that drains more slowly is looked at a few more times, each closer to its end.
#pragma once
#include <memory>
#include <unordered_map>
#include <vector>

#include "adapter.hpp"

namespace p2psim::sg {

class NicCredits {
 public:
  /// `nic` (a split-duplex link; its two directions each get a bucket) of `host` bursts to `burst_bps` on a
  /// bucket of `bucket_bytes` above its `baseline_bps`. `owner`: an index reported with the first exhaustion (a peer's; -1: not reported, a server's).
  void add(Host* host, Link* nic, double baseline_bps, double burst_bps, double bucket_bytes, int owner);
  bool any() const { return !buckets_.empty(); }
  /// A transfer from or to `host` starts: its buckets are followed from now on (until full and idle again).
  /// Called from an actor.
  void touched(const Host* host);
  /// The clock reached `now_s`: every followed bucket takes what its direction moved since the last call.
  void advance(double now_s);
  /// Per owner, when one of its directions first ran dry (-1: never).
  const std::vector<double>& exhausted_at_s() const { return exhausted_at_s_; }

 private:
  struct Bucket {
    Link* direction = nullptr;
    double baseline_bps = 0, burst_bps = 0, capacity_bytes = 0, credits_bytes = 0;
    bool throttled = false, followed = false;
    int owner = 0;
  };
  std::vector<Bucket> buckets_;
  std::unordered_map<const Host*, std::vector<size_t>> of_host_;
  std::vector<size_t> followed_;
  std::vector<double> exhausted_at_s_;
  double last_s_ = 0;
  std::shared_ptr<Semaphore> wake_;  // the watcher's: released when a transfer starts
  bool watcher_started_ = false;
  /// The earliest instant a followed bucket could run dry; infinity when none drains.
  double earliest_dry_s() const;
  void watch();  // the daemon's loop
};

/// The platform's NIC credits, where transfers report the hosts they start from and to (adapter.cpp): none when
/// the platform has no bursting NIC.
void set_nic_credits(NicCredits* credits);

}  // namespace p2psim::sg
