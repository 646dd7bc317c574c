#include "nic_credits.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace p2psim::sg {

void NicCredits::add(Host* host, Link* nic, double baseline_bps, double burst_bps, double bucket_bytes, int owner) {
  auto* split = static_cast<simgrid::s4u::SplitDuplexLink*>(nic);
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
  if (owner >= 0 && static_cast<size_t>(owner) >= exhausted_at_s_.size())
    exhausted_at_s_.resize(static_cast<size_t>(owner) + 1, -1);
}

NicCredits::Flight NicCredits::touched(const Host* from, const Host* to) {
  Flight flight;
  int n = 0;
  bool bursting_nic = false;
  for (const bool source : {true, false}) {
    const Host* host = source ? from : to;
    const auto it = of_host_.find(host);
    if (it == of_host_.end()) continue;
    bursting_nic = true;
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
  if (!bursting_nic) return flight;
  if (!watcher_started_) {
    watcher_started_ = true;
    wake_ = std::make_shared<Semaphore>(0);
    spawn_daemon("nic-credits", [this] { watch(); });
  } else {
    wake_->release();  // its next look may be sooner now
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
    if (--b.held == 0 && b.throttled) {
      if (b.credits_bytes >= b.refilled_bytes())
        burst_again(b);  // earned back already: bursting from now on
      else
        wake_->release();  // its refill counts again: the watcher's next look may be sooner
    }
  }
}

void NicCredits::burst_again(Bucket& b) {
  b.throttled = false;
  b.direction->set_bandwidth(b.burst_bps);
}

double NicCredits::earliest_change_s() const {
  double earliest = std::numeric_limits<double>::infinity();
  for (size_t i : followed_) {
    const Bucket& b = buckets_[i];
    if (!b.throttled)  // dry at the earliest when it drains as fast as it can: bursting, the whole time
      earliest = std::min(earliest, last_s_ + b.credits_bytes / (b.burst_bps - b.baseline_bps));
    else if (b.held == 0)  // bursting again at the earliest when it refills as fast as it can: idle, the whole time
      earliest = std::min(earliest, last_s_ + std::max(0.0, b.refilled_bytes() - b.credits_bytes) / b.baseline_bps);
  }
  return earliest;
}

void NicCredits::watch() {
  for (;;) {
    const double next_s = earliest_change_s();
    if (std::isinf(next_s))
      wake_->acquire();
    else
      wake_->acquire_until(std::max(next_s, now()));  // a wake-up: the clock advances, advance() looks
    // (Releases that piled up while it slept each bring it round once more, harmlessly.)
  }
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
