#include "peer_storage_flows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace p2psim::simulation {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// SimGrid ends a flow whose remaining bytes its rate moves within its time precision (sg_surf_precision, 1e-9 s).
constexpr double kPrecision = 1e-9;
}  // namespace

PeerStorageFlows::PeerStorageFlows(const sg::NetworkFactors& factors, double route_latency_s, double stream_bps,
                                   std::vector<double> slices_bps, std::vector<double> peers_nic_bps,
                                   size_t peers_per_slice)
    : f_(factors), latency_s_(route_latency_s), stream_bps_(stream_bps), peers_per_slice_(peers_per_slice),
      sliced_(!slices_bps.empty()) {
  gamma_bound_bps_ = route_latency_s > 0 && f_.tcp_gamma > 0 ? f_.tcp_gamma / (2.0 * route_latency_s) : kInfinity;
  const int n = static_cast<int>(peers_nic_bps.size());
  if (slices_bps.empty()) {
    for (int i = 0; i < n; ++i) systems_.push_back({i, 1, 0, {}, {}, 0, kInfinity, 0});
  } else {
    for (size_t k = 0; k < slices_bps.size(); ++k) {
      const int first = static_cast<int>(k * peers_per_slice);
      systems_.push_back({first, std::min(n - first, static_cast<int>(peers_per_slice)), slices_bps[k], {}, {}, 0,
                          kInfinity, 0});
    }
  }
  nic_bps_ = peers_nic_bps;
}

std::int64_t PeerStorageFlows::add(int peer, bool upload, double begins_s, double bytes) {
  const size_t index = sliced_ ? static_cast<size_t>(peer) / peers_per_slice_ : static_cast<size_t>(peer);
  System& sys = systems_[index];
  const std::int64_t id = next_id_++;
  sys.waiting.push_back({id, peer, upload, begins_s, std::floor(bytes)});
  if (begins_s < sys.next_s) {
    sys.next_s = begins_s;
    reschedule(index);
  }
  return id;
}

double PeerStorageFlows::next_s() {
  while (!due_.empty() && due_.top().version != systems_[due_.top().system].version) due_.pop();
  return due_.empty() ? kInfinity : due_.top().at_s;
}

std::vector<std::int64_t> PeerStorageFlows::advance(double now_s) {
  std::vector<std::int64_t> ended;
  while (!due_.empty() && due_.top().at_s <= now_s) {
    const Due d = due_.top();
    due_.pop();
    if (d.version != systems_[d.system].version) continue;
    step(systems_[d.system], now_s, ended);
    reschedule(d.system);
  }
  return ended;
}

void PeerStorageFlows::reschedule(size_t index) {
  System& sys = systems_[index];
  ++sys.version;
  if (std::isfinite(sys.next_s)) due_.push({sys.next_s, index, sys.version});
}

double PeerStorageFlows::penalty_of(const System& sys, int peer) const {
  // network_cm02.cpp, NetworkCm02Model::communicate: the route's latency, plus weight-S over each link's bandwidth;
  // 1 on a route without latency (comm_action_set_variable: its flow never waits for a latency to end).
  if (latency_s_ <= 0) return 1;
  double penalty = latency_s_ + f_.weight_s / nic_bps_[static_cast<size_t>(peer)] + f_.weight_s / stream_bps_;
  if (sys.slice_bps > 0) penalty += f_.weight_s / sys.slice_bps;
  return penalty;
}

void PeerStorageFlows::step(System& sys, double now_s, std::vector<std::int64_t>& ended) {
  const double dt = now_s - sys.last_s;
  if (dt > 0)
    for (auto& flow : sys.moving) flow.remaining -= f_.bandwidth * flow.value * dt;
  sys.last_s = now_s;
  for (auto it = sys.moving.begin(); it != sys.moving.end();) {
    const double rate = f_.bandwidth * it->value;
    // (Or so close to its end that the clock could not show the rest: now + remaining / rate is now.)
    if (it->remaining <= kPrecision * rate || now_s + it->remaining / rate <= now_s) {
      ended.push_back(it->id);
      it = sys.moving.erase(it);
    } else {
      ++it;
    }
  }
  // Flows whose bytes begin to move now: their penalty and bound as SimGrid sets them when it makes the comm.
  for (auto it = sys.waiting.begin(); it != sys.waiting.end();) {
    if (it->begins_s > now_s) {
      ++it;
      continue;
    }
    Flow flow = *it;
    it = sys.waiting.erase(it);
    if (flow.remaining <= 0) {
      ended.push_back(flow.id);
      continue;
    }
    flow.penalty = penalty_of(sys, flow.peer);
    flow.bound = std::min({nic_bps_[static_cast<size_t>(flow.peer)], stream_bps_, gamma_bound_bps_});
    if (sys.slice_bps > 0) flow.bound = std::min(flow.bound, sys.slice_bps);
    sys.moving.push_back(flow);
  }
  solve(sys);
  // The next change: a flow begins or ends.
  double next = kInfinity;
  for (const auto& flow : sys.waiting) next = std::min(next, flow.begins_s);
  for (const auto& flow : sys.moving) next = std::min(next, now_s + flow.remaining / (f_.bandwidth * flow.value));
  sys.next_s = next;
}

void PeerStorageFlows::solve(System& sys) {
  // Constraints: per peer its NIC up and down, then the slice's up (from storage) and down (to storage).
  const int P = sys.peers;
  const size_t constraints = static_cast<size_t>(2 * P + (sys.slice_bps > 0 ? 2 : 0));
  std::vector<double> slack(constraints);
  for (int j = 0; j < P; ++j)
    slack[static_cast<size_t>(2 * j)] = slack[static_cast<size_t>(2 * j + 1)] =
        nic_bps_[static_cast<size_t>(sys.first_peer + j)];
  if (sys.slice_bps > 0) slack[constraints - 2] = slack[constraints - 1] = sys.slice_bps;
  const double xs = f_.cross_traffic_share;
  // A flow's elements: an upload crosses its NIC up and the slice down (storage's side of the link: platform.cpp's
  // routes), its ACKs the reverse; a download the other way round.
  variables_.resize(sys.moving.size());
  for (size_t i = 0; i < sys.moving.size(); ++i) {
    const Flow& flow = sys.moving[i];
    MaxMinVariable& v = variables_[i];
    v.penalty = flow.penalty;
    v.bound = flow.bound;
    const size_t j = static_cast<size_t>(flow.peer - sys.first_peer);
    int k = 0;
    v.element[k++] = {2 * j + (flow.upload ? 0 : 1), 1.0};
    if (xs > 0) v.element[k++] = {2 * j + (flow.upload ? 1 : 0), xs};
    if (sys.slice_bps > 0) {
      v.element[k++] = {constraints - (flow.upload ? 1 : 2), 1.0};
      if (xs > 0) v.element[k++] = {constraints - (flow.upload ? 2 : 1), xs};
    }
    v.elements = k;
  }
  solve_max_min(slack, variables_);
  for (size_t i = 0; i < sys.moving.size(); ++i) sys.moving[i].value = variables_[i].value;
}

}  // namespace p2psim::simulation
