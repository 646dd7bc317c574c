#include "nic_credits.hpp"

#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace p2psim::sg {

namespace {
// SimGrid calls every model's next_occurring_event in the order they were added (this one after the network,
// which SimGrid makes with the platform's root zone), so the links' usage is that of the interval about to be
// simulated when the buckets are asked.
class CreditsModel : public simgrid::kernel::resource::Model {
 public:
  explicit CreditsModel(std::weak_ptr<const NicCredits> credits)
      : simgrid::kernel::resource::Model("p2psim-nic-credits"), credits_(std::move(credits)) {}
  double next_occurring_event(double now) override {
    const auto credits = credits_.lock();
    return credits ? credits->next_change_in_s(now) : -1;
  }
  void update_actions_state(double, double) override {}  // no actions: the buckets move in NicCredits::advance

 private:
  std::weak_ptr<const NicCredits> credits_;
};
}  // namespace

void NicCredits::add(Host* host, Link* nic, double baseline_bps, double burst_bps, double bucket_bytes, int owner) {
  if (owner >= 0 && static_cast<size_t>(owner) >= exhausted_at_s_.size())
    exhausted_at_s_.resize(static_cast<size_t>(owner) + 1, -1);
  auto* split = static_cast<simgrid::s4u::SplitDuplexLink*>(nic);
  if (bucket_bytes <= 0) {  // nothing to burst on: its baseline, dry from the start
    for (Link* direction : {split->get_link_up(), split->get_link_down()}) direction->set_bandwidth(baseline_bps);
    if (owner >= 0) exhausted_at_s_[static_cast<size_t>(owner)] = 0;
    return;
  }
  if (!model_added_) {
    model_added_ = true;
    simgrid::s4u::Engine::get_instance()->add_model(std::make_shared<CreditsModel>(weak_from_this()));
  }
  for (Link* direction : {split->get_link_up(), split->get_link_down()}) {
    of_host_[host].push_back(buckets_.size());
    Bucket b;
    b.direction = direction;
    b.baseline_bps = baseline_bps;
    b.burst_bps = burst_bps;
    b.capacity_bytes = b.credits_bytes = bucket_bytes;
    b.owner = owner;
    b.host = host;
    buckets_.push_back(b);
  }
}

NicCredits::Flight NicCredits::touched(const Host* from, const Host* to) {
  Flight flight;
  int n = 0;
  for (const bool source : {true, false}) {
    const Host* host = source ? from : to;
    const auto it = of_host_.find(host);
    if (it == of_host_.end()) continue;
    ++in_flight_[host];
    for (size_t i : it->second)
      if (!buckets_[i].followed) {
        buckets_[i].followed = true;
        followed_.push_back(i);
      }
    // Its cross-traffic crosses the source's download direction and the destination's upload direction.
    const size_t reverse = it->second[source ? 1 : 0];
    if (buckets_[reverse].throttled) {
      ++buckets_[reverse].held;
      flight.held[n++] = static_cast<int>(reverse);
    }
  }
  return flight;
}

void NicCredits::released(const Host* from, const Host* to, const Flight& flight) {
  for (const Host* host : {from, to}) {
    const auto it = in_flight_.find(host);
    if (it != in_flight_.end() && it->second > 0) --it->second;
  }
  for (int i : flight.held) {
    if (i < 0) continue;
    Bucket& b = buckets_[static_cast<size_t>(i)];
    if (--b.held == 0 && b.throttled && b.credits_bytes >= b.refilled_bytes())
      burst_again(b);  // earned back already: bursting from now on
  }
}

void NicCredits::burst_again(Bucket& b) {
  b.throttled = false;
  b.direction->set_bandwidth(b.burst_bps);
}

double NicCredits::next_change_in_s(double now_s) const {
  // Nothing to change for once every actor has ended (the simulation's end is theirs).
  if (followed_.empty() || simgrid::s4u::Engine::get_instance()->get_actor_count() == 0) return -1;
  // A dry direction that carries nothing bursts again unseen: advance() finds it refilled at the next event,
  // before anything can cross it. (Were it an event, a run whose actors wait for ever would go on refilling.)
  double soonest = std::numeric_limits<double>::infinity();
  for (size_t i : followed_) {
    const Bucket& b = buckets_[i];
    const double used_bps = b.direction->get_usage();
    if (!b.throttled && used_bps > b.baseline_bps)
      soonest = std::min(soonest, b.credits_bytes / (used_bps - b.baseline_bps));
    else if (b.throttled && b.held == 0 && used_bps > 0 && used_bps < b.baseline_bps)
      soonest = std::min(soonest, std::max(0.0, b.refill_target_bytes() - b.credits_bytes) / (b.baseline_bps - used_bps));
  }
  if (std::isinf(soonest)) return -1;
  // A change due sooner than the clock can show is due at its next value, or the clock would stand still.
  return now_s + soonest > now_s ? soonest : std::nextafter(now_s, std::numeric_limits<double>::infinity()) - now_s;
}

void NicCredits::advance(double now_s) {
  const double dt = now_s - last_s_;
  last_s_ = now_s;
  if (dt <= 0) return;
  // What each direction carried over the interval: SimGrid's rates were constant over it.
  for (size_t k = 0; k < followed_.size();) {
    Bucket& b = buckets_[followed_[k]];
    const double used_bps = b.direction->get_usage();
    b.credits_bytes = std::clamp(b.credits_bytes + (b.baseline_bps - used_bps) * dt, 0.0, b.capacity_bytes);
    if (!b.throttled && b.credits_bytes <= 1e-9 * b.capacity_bytes) {  // dry (to rounding): down to the baseline
      b.throttled = true;
      b.direction->set_bandwidth(b.baseline_bps);
      if (b.owner >= 0) {
        auto& first = exhausted_at_s_[static_cast<size_t>(b.owner)];
        if (first < 0) first = now_s;
      }
    } else if (b.throttled && b.held == 0 && b.credits_bytes >= b.refilled_bytes()) {
      // A second's worth of burst earned back (or a full balance): bursting again (not at every byte, or it would
      // flutter between the two rates).
      burst_again(b);
    }
    if (!b.throttled && used_bps <= 0 && b.credits_bytes >= b.capacity_bytes && in_flight_[b.host] == 0) {
      // full and idle, with no transfer in flight: nothing to follow
      b.followed = false;
      followed_[k] = followed_.back();
      followed_.pop_back();
      continue;
    }
    ++k;
  }
}

}  // namespace p2psim::sg
