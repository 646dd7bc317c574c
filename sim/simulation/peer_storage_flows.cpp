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
    for (int i = 0; i < n; ++i) {
      System sys;
      sys.first_peer = i;
      sys.peers = 1;
      sys.next_s = kInfinity;
      systems_.push_back(std::move(sys));
    }
  } else {
    for (size_t k = 0; k < slices_bps.size(); ++k) {
      const int first = static_cast<int>(k * peers_per_slice);
      System sys;
      sys.first_peer = first;
      sys.peers = std::min(n - first, static_cast<int>(peers_per_slice));
      sys.slice_bps = slices_bps[k];
      sys.next_s = kInfinity;
      const auto peers = static_cast<size_t>(sys.peers);
      sys.slice.peer_slots.resize(peers);
      systems_.push_back(std::move(sys));
    }
  }
  nic_bps_ = peers_nic_bps;
}

std::int64_t PeerStorageFlows::add(int peer, bool upload, double begins_s, double bytes) {
  const size_t index = sliced_ ? static_cast<size_t>(peer) / peers_per_slice_ : static_cast<size_t>(peer);
  System& sys = systems_[index];
  const std::int64_t id = next_id_++;
  if (sliced_)
    sys.slice.begins.push({begins_s, id, peer, upload, std::floor(bytes)});
  else
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
    if (sliced_)
      step_slice(systems_[d.system], now_s, ended);
    else
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

double PeerStorageFlows::penalty_of(double nic_bps, double slice_bps) const {
  // network_cm02.cpp, NetworkCm02Model::communicate: the route's latency, plus weight-S over each link's bandwidth;
  // 1 on a route without latency (comm_action_set_variable: its flow never waits for a latency to end).
  if (latency_s_ <= 0) return 1;
  double penalty = latency_s_ + f_.weight_s / nic_bps + f_.weight_s / stream_bps_;
  if (slice_bps > 0) penalty += f_.weight_s / slice_bps;
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
    flow.penalty = penalty_of(nic_bps_[static_cast<size_t>(flow.peer)], 0);
    flow.bound = std::min({nic_bps_[static_cast<size_t>(flow.peer)], stream_bps_, gamma_bound_bps_});
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
  // Constraints: the peer's NIC up and down.
  const size_t nic = static_cast<size_t>(sys.first_peer);
  slack_.assign({nic_bps_[nic], nic_bps_[nic]});
  const double xs = f_.cross_traffic_share;
  // An upload crosses its NIC up, its ACKs the NIC down; a download the other way round.
  variables_.resize(sys.moving.size());
  for (size_t i = 0; i < sys.moving.size(); ++i) {
    const Flow& flow = sys.moving[i];
    MaxMinVariable& v = variables_[i];
    v.penalty = flow.penalty;
    v.bound = flow.bound;
    int k = 0;
    v.element[k++] = {flow.upload ? 0u : 1u, 1.0};
    if (xs > 0) v.element[k++] = {flow.upload ? 1u : 0u, xs};
    v.elements = k;
  }
  solve_max_min(slack_, variables_);
  for (size_t i = 0; i < sys.moving.size(); ++i) sys.moving[i].value = variables_[i].value;
}

size_t PeerStorageFlows::group_of(Slice& slice, double nic_bps, int uploads, int downloads) {
  for (size_t g = 0; g < slice.groups.size(); ++g) {
    const Group& group = slice.groups[g];
    if (group.nic_bps == nic_bps && group.uploads == uploads && group.downloads == downloads) return g;
  }
  slice.groups.push_back({nic_bps, uploads, downloads});
  slice.classes.resize(2 * slice.groups.size());
  return slice.groups.size() - 1;
}

void PeerStorageFlows::regroup(System& sys, int local_peer) {
  Slice& slice = sys.slice;
  const auto j = static_cast<size_t>(local_peer);
  if (slice.peer_slots[j].empty()) return;
  const double nic = nic_bps_[static_cast<size_t>(sys.first_peer + local_peer)];
  int uploads = 0;
  for (size_t slot : slice.peer_slots[j]) uploads += slice.slots[slot].upload;
  const int downloads = static_cast<int>(slice.peer_slots[j].size()) - uploads;
  const size_t group = group_of(slice, nic, uploads, downloads);
  for (size_t slot : slice.peer_slots[j]) {
    SlicedFlow& flow = slice.slots[slot];
    const size_t to = 2 * group + (flow.upload ? 1 : 0);
    if (to == flow.cls && flow.generation > 0) continue;
    double left_bytes = flow.target_bytes;  // a flow that begins now holds its bytes there
    if (flow.generation > 0) {
      Class& from = slice.classes[flow.cls];
      left_bytes -= from.moved_bytes;
      if (--from.flows == 0) from.reset();
    }
    Class& into = slice.classes[to];
    ++into.flows;
    flow.cls = to;
    flow.target_bytes = into.moved_bytes + left_bytes;
    ++flow.generation;  // its entry in the old class's queue is stale
    into.ends.push_back({flow.target_bytes, flow.id, slot, flow.generation});
    std::push_heap(into.ends.begin(), into.ends.end(), std::greater<>());
  }
}

void PeerStorageFlows::step_slice(System& sys, double now_s, std::vector<std::int64_t>& ended) {
  Slice& slice = sys.slice;
  const double dt = now_s - sys.last_s;
  if (dt > 0)
    for (auto& cls : slice.classes)
      if (cls.flows > 0) cls.moved_bytes += f_.bandwidth * cls.value * dt;
  sys.last_s = now_s;
  std::vector<int>& changed = changed_;
  changed.clear();
  const size_t ended_before = ended.size();
  for (auto& cls : slice.classes) {
    const double rate = f_.bandwidth * cls.value;
    while (cls.flows > 0 && !cls.ends.empty()) {
      const Class::End top = cls.ends.front();
      SlicedFlow& flow = slice.slots[top.slot];
      const bool stale = !slice.live(top);
      // Ended, or so close to its end that the clock could not show the rest: now + remaining / rate is now.
      const double remaining = top.target_bytes - cls.moved_bytes;
      if (!stale && !(remaining <= kPrecision * rate || now_s + remaining / rate <= now_s)) break;
      std::pop_heap(cls.ends.begin(), cls.ends.end(), std::greater<>());
      cls.ends.pop_back();
      if (stale) continue;
      ended.push_back(flow.id);
      const auto j = static_cast<size_t>(flow.peer - sys.first_peer);
      auto& mine = slice.peer_slots[j];
      mine.erase(std::find(mine.begin(), mine.end(), top.slot));
      changed.push_back(flow.peer - sys.first_peer);
      if (--cls.flows == 0) cls.reset();
      flow.id = -1;
      ++flow.generation;
      slice.free_slots.push_back(top.slot);
    }
  }
  // Flows whose bytes begin to move now.
  while (!slice.begins.empty() && slice.begins.top().at_s <= now_s) {
    const Begin b = slice.begins.top();
    slice.begins.pop();
    if (b.bytes <= 0) {
      ended.push_back(b.id);
      continue;
    }
    size_t slot;
    if (!slice.free_slots.empty()) {
      slot = slice.free_slots.back();
      slice.free_slots.pop_back();
    } else {
      slot = slice.slots.size();
      slice.slots.emplace_back();
    }
    SlicedFlow& flow = slice.slots[slot];
    flow.id = b.id;
    flow.peer = b.peer;
    flow.upload = b.upload;
    flow.target_bytes = b.bytes;
    flow.generation = 0;  // not in a class yet: regroup places it with all its bytes left
    slice.peer_slots[static_cast<size_t>(b.peer - sys.first_peer)].push_back(slot);
    changed.push_back(b.peer - sys.first_peer);
  }
  // Ended in the order the flows were made, whatever their classes.
  std::sort(ended.begin() + static_cast<std::ptrdiff_t>(ended_before), ended.end());
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (int j : changed) regroup(sys, j);
  solve_slice(sys);
  // The next change: a flow begins or ends.
  double next = slice.begins.empty() ? kInfinity : slice.begins.top().at_s;
  for (auto& cls : slice.classes) {
    while (cls.flows > 0 && !cls.ends.empty()) {
      if (slice.live(cls.ends.front())) break;
      std::pop_heap(cls.ends.begin(), cls.ends.end(), std::greater<>());
      cls.ends.pop_back();
    }
    if (cls.flows > 0)
      next = std::min(next, now_s + (cls.ends.front().target_bytes - cls.moved_bytes) / (f_.bandwidth * cls.value));
  }
  sys.next_s = next;
}

void PeerStorageFlows::solve_slice(System& sys) {
  // Constraints: the slice's up (from storage) and down (to storage), then per group with flows its peers' NIC up
  // and down (one peer's: every peer of the group carries the same). A class stands for its flows: it weighs its
  // count on the slice, and a peer's count of such flows on the group's NICs.
  Slice& slice = sys.slice;
  constexpr size_t slice_up = 0, slice_down = 1, none = static_cast<size_t>(-1);
  slack_.assign({sys.slice_bps, sys.slice_bps});
  nic_constraint_.assign(slice.groups.size(), none);
  const double xs = f_.cross_traffic_share;
  variables_.clear();
  variable_class_.clear();
  for (size_t c = 0; c < slice.classes.size(); ++c) {
    const Class& cls = slice.classes[c];
    if (cls.flows == 0) continue;
    const size_t g = c / 2;
    const bool upload = c % 2 == 1;
    const Group& group = slice.groups[g];
    if (nic_constraint_[g] == none) {
      nic_constraint_[g] = slack_.size();
      slack_.insert(slack_.end(), {group.nic_bps, group.nic_bps});
    }
    const size_t nic_up = nic_constraint_[g], nic_down = nic_up + 1;
    const double per_peer = upload ? group.uploads : group.downloads;
    MaxMinVariable v;
    v.penalty = penalty_of(group.nic_bps, sys.slice_bps);
    v.bound = std::min({group.nic_bps, stream_bps_, gamma_bound_bps_, sys.slice_bps});
    // An upload crosses its NIC up and the slice down (storage's side of the link: platform.cpp's routes), its
    // ACKs the reverse; a download the other way round.
    int k = 0;
    v.element[k++] = {upload ? nic_up : nic_down, per_peer};
    if (xs > 0) v.element[k++] = {upload ? nic_down : nic_up, xs * per_peer};
    v.element[k++] = {upload ? slice_down : slice_up, static_cast<double>(cls.flows)};
    if (xs > 0) v.element[k++] = {upload ? slice_up : slice_down, xs * cls.flows};
    v.elements = k;
    variables_.push_back(v);
    variable_class_.push_back(c);
  }
  solve_max_min(slack_, variables_);
  for (size_t i = 0; i < variables_.size(); ++i) slice.classes[variable_class_[i]].value = variables_[i].value;
}

}  // namespace p2psim::simulation
