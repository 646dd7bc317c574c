#include "server_flows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace p2psim::simulation {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// SimGrid ends a flow whose remaining bytes its rate moves within its time precision (sg_surf_precision, 1e-9 s).
constexpr double kPrecision = 1e-9;
}  // namespace

ServerFlows::ServerFlows(const sg::NetworkFactors& factors, Route route, std::vector<int> group_of_peer,
                         std::vector<double> group_nic_bps)
    : f_(factors), route_(route), group_of_peer_(std::move(group_of_peer)), group_nic_bps_(std::move(group_nic_bps)) {
  classes_.resize(2 * group_nic_bps_.size());
  const double gamma_bps = route.latency_s > 0 && f_.tcp_gamma > 0 ? f_.tcp_gamma / (2.0 * route.latency_s) : kInfinity;
  for (size_t g = 0; g < group_nic_bps_.size(); ++g) {
    // network_cm02.cpp, NetworkCm02Model::communicate: the penalty is the route's latency plus weight-S over each
    // link's bandwidth (1 on a route without latency: comm_action_set_variable); the bound the narrowest link
    // and the TCP window over the route's latency.
    const double nic = group_nic_bps_[g];
    double penalty = route.latency_s + f_.weight_s / nic + f_.weight_s / route.server_nic_bps;
    double bound = std::min({nic, route.server_nic_bps, gamma_bps});
    if (route.flow_cap_bps > 0) {
      penalty += f_.weight_s / route.flow_cap_bps;
      bound = std::min(bound, route.flow_cap_bps);
    }
    if (route.latency_s <= 0) penalty = 1;
    for (const bool push : {false, true}) {
      classes_[class_of(static_cast<int>(g), push)].penalty = penalty;
      classes_[class_of(static_cast<int>(g), push)].bound = bound;
    }
  }
}

void ServerFlows::add(int peer, bool push, double begins_s, double bytes) {
  waiting_.push({begins_s, next_id_++, peer, push, std::floor(bytes)});
}

double ServerFlows::next_s() const {
  double next = waiting_.empty() ? kInfinity : waiting_.top().begins_s;
  for (const auto& k : classes_)
    if (k.count > 0) next = std::min(next, last_s_ + (k.ending.top().at_moved - k.moved) / (f_.bandwidth * k.value));
  return next;
}

std::vector<int> ServerFlows::advance(double now_s) {
  std::vector<int> ended;
  const double dt = now_s - last_s_;
  for (auto& k : classes_)
    if (k.count > 0 && dt > 0) k.moved += f_.bandwidth * k.value * dt;
  last_s_ = now_s;
  for (auto& k : classes_) {
    const double rate = f_.bandwidth * k.value;
    while (k.count > 0) {
      const double remaining = k.ending.top().at_moved - k.moved;
      // (Or so close to its end that the clock could not show the rest: now + remaining / rate is now.)
      if (!(remaining <= kPrecision * rate || now_s + remaining / rate <= now_s)) break;
      ended.push_back(k.ending.top().peer);
      k.ending.pop();
      if (--k.count == 0) k.moved = 0;
    }
  }
  // Transfers whose bytes begin to move now.
  while (!waiting_.empty() && waiting_.top().begins_s <= now_s) {
    const Waiting w = waiting_.top();
    waiting_.pop();
    if (w.bytes <= 0) {
      ended.push_back(w.peer);
      continue;
    }
    Class& k = classes_[class_of(group_of_peer_[static_cast<size_t>(w.peer)], w.push)];
    k.ending.push({k.moved + w.bytes, w.id, w.peer});
    ++k.count;
  }
  solve();
  return ended;
}

void ServerFlows::solve() {
  // Constraints: a server's NIC down (pushes arrive) and up (pulls leave), the same for every server; then per
  // class, each of its peers' NIC the way its flows go and the way back. A class weighs its count on a server's
  // constraints (one flow of each of its peers) and S on a peer's (one flow to each server).
  const size_t K = classes_.size();
  const double xs = f_.cross_traffic_share, S = route_.servers;
  std::vector<double> slack(2 + 2 * K);
  slack[0] = slack[1] = route_.server_nic_bps;
  for (size_t k = 0; k < K; ++k) slack[2 + 2 * k] = slack[3 + 2 * k] = group_nic_bps_[k / 2];
  variables_.clear();
  std::vector<size_t> class_of_variable;
  for (size_t k = 0; k < K; ++k) {
    const Class& c = classes_[k];
    if (c.count == 0) continue;
    const bool push = k % 2 == 1;
    MaxMinVariable v;
    v.penalty = c.penalty;
    v.bound = c.bound;
    int e = 0;
    v.element[e++] = {push ? size_t{0} : size_t{1}, static_cast<double>(c.count)};
    v.element[e++] = {2 + 2 * k, S};
    if (xs > 0) {
      v.element[e++] = {push ? size_t{1} : size_t{0}, c.count * xs};
      v.element[e++] = {3 + 2 * k, S * xs};
    }
    v.elements = e;
    variables_.push_back(v);
    class_of_variable.push_back(k);
  }
  solve_max_min(slack, variables_);
  for (size_t i = 0; i < variables_.size(); ++i) classes_[class_of_variable[i]].value = variables_[i].value;
}

}  // namespace p2psim::simulation
