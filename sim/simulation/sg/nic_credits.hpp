// Network I/O credits of "up to N Gbit/s" instances (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
// ec2-instance-network-bandwidth.html): each direction of the NIC has a bucket of credits, full at launch, that
// drains while the NIC moves more than its baseline and refills while it moves less; while the bucket holds
// credits the NIC may run up to its burst rate, once empty it falls back to its baseline. The buckets are kept
// here from the NICs' actual use in the simulation: SimGrid's rates are constant between two of its events, so
// the balance is integrated exactly at each one (sg::Engine::run's time advances), and a NIC whose bucket runs
// dry is set to its baseline there, and back to its burst once it has earned enough back. So that a bucket cannot
// run dry (or refill) between two events, the buckets are a SimGrid resource model of their own: after the
// network has shared its links for the next interval, SimGrid asks each model how long until something of its
// own changes, and the buckets answer from the rates just solved, so each change is an event at its exact instant.
#pragma once
#include <memory>
#include <unordered_map>
#include <vector>

#include "adapter.hpp"

namespace p2psim::sg {

class NicCredits : public std::enable_shared_from_this<NicCredits> {
 public:
  /// `nic` (a split-duplex link; its two directions each get a bucket) of `host` bursts to `burst_bps` on a
  /// bucket of `bucket_bytes` above its `baseline_bps` (none: it runs at its baseline from the start). Call it
  /// on an object a std::shared_ptr owns: SimGrid's engine asks it through a std::weak_ptr. `owner`: an index
  /// reported with the first exhaustion (a peer's; -1: not reported, a server's).
  void add(Host* host, Link* nic, double baseline_bps, double burst_bps, double bucket_bytes, int owner);
  bool any() const { return !buckets_.empty(); }
  /// The buckets a transfer in flight holds back from bursting again (below): at most its source's download
  /// direction and its destination's upload direction.
  struct Flight {
    int held[2] = {-1, -1};
  };
  /// A transfer from `from` to `to` starts: both hosts' buckets are followed from now on (until full and idle
  /// again, with no transfer in flight). Called from an actor.
  Flight touched(const Host* from, const Host* to);
  /// That transfer ended (arrived, failed, or its actor was killed).
  void released(const Host* from, const Host* to, const Flight& flight);
  /// The clock reached `now_s`: every followed bucket takes what its direction moved since the last call.
  void advance(double now_s);
  /// Per owner, when one of its directions first ran dry (-1: never).
  const std::vector<double>& exhausted_at_s() const { return exhausted_at_s_; }
  /// At the rates SimGrid has just solved for the interval from `now_s`: how long until a followed bucket runs
  /// dry, or a dry one has earned back its burst (-1: none will at these rates).
  double next_change_in_s(double now_s) const;

 private:
  struct Bucket {
    Link* direction = nullptr;
    double baseline_bps = 0, burst_bps = 0, capacity_bytes = 0, credits_bytes = 0;
    bool throttled = false, followed = false;
    /// Transfers in flight that cross this direction only as their cross-traffic (the ACKs of transfers the
    /// other way) and began while it was at its baseline: it bursts again only once none is left. SimGrid 3.32
    /// changes the sharing penalty of every flow on a link whose bandwidth changes by weight-S x (1/new - 1/old)
    /// (NetworkCm02Link::set_bandwidth, src/surf/network_cm02.cpp), also of those whose penalty never counted
    /// that link, because it lies on their back route only (comm_action_set_bounds sums the route's links): a
    /// flow that began at the baseline and saw the NIC burst again lost more than it ever had, and SimGrid
    /// aborted ("Variable penalty should not be negative!", 8 of the paper grid's 450 scenarios, 2026-12-04).
    /// Held back so, a flow's penalty is off by at most one drain's (+weight-S x (1/baseline - 1/burst)).
    int held = 0;
    int owner = 0;
    const Host* host = nullptr;
    /// What a dry bucket must earn back before it bursts again: a second's worth of burst, or a full bucket (not
    /// at every byte, or it would flutter between the two rates); to rounding, as it is approached from below.
    double refill_target_bytes() const { return std::min(capacity_bytes, burst_bps - baseline_bps); }
    double refilled_bytes() const { return refill_target_bytes() * (1 - 1e-9); }
  };
  std::vector<Bucket> buckets_;
  std::unordered_map<const Host*, std::vector<size_t>> of_host_;
  /// Per host with a bursting NIC: its transfers in flight. While one pays its latency, the NIC carries nothing
  /// yet; a full bucket must not stop being followed then, or the transfer's bytes would never drain it.
  std::unordered_map<const Host*, int> in_flight_;
  std::vector<size_t> followed_;
  std::vector<double> exhausted_at_s_;
  double last_s_ = 0;
  bool model_added_ = false;  // to SimGrid's engine, which asks this object while it lives
  void burst_again(Bucket& b);
};

/// The platform's NIC credits, where transfers report the hosts they start from and to (adapter.cpp): none when
/// the platform has no bursting NIC.
void set_nic_credits(NicCredits* credits);

}  // namespace p2psim::sg
