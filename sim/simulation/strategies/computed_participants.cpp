#include "computed_participants.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace p2psim::simulation {

bool participants_computable(const Context& c, GradientCompute how, StorageRound round) {
  if (c.exact_participants || how != GradientCompute::Peer || c.s.experiment.crash_peer >= 0) return false;
  for (size_t group = 0; group < c.s.peer_groups.size(); ++group)
    if (!c.s.peer_fits(static_cast<int>(group))) return false;
  // An "up to" NIC keeps its burst rate while its bucket lasts. It cannot run dry when the peer moves fewer bytes
  // over the whole run, each way (its ACKs on the other way included), than the bucket holds: every byte moved
  // drains at most one byte of credits. Otherwise the actors run, whose NICs fall back to their baseline.
  const double xs = sg::network_factors().cross_traffic_share;
  const double rounds = c.s.experiment.workload.iterations;
  for (int peer = 0; peer < c.peers(); ++peer) {
    const auto& m = c.hosts.spec.peers[static_cast<size_t>(peer)];
    if (!(m.nic_baseline_bps > 0 && m.nic_baseline_bps < m.nic_bps)) continue;
    const double up_bytes = rounds * round.object_bytes * round.objects;
    const double down_bytes =
        static_cast<double>(c.s.group_of_peer_data(peer).shard_samples * c.s.sample_bytes) + up_bytes;
    if (std::max(up_bytes + xs * down_bytes, down_bytes + xs * up_bytes) >= m.nic_credit_bytes) return false;
  }
  return true;
}

ComputedParticipants::ComputedParticipants(Context& c, const Participation& participation, StorageRound round,
                                           Sent sent)
    : c_(c), participation_(participation), round_(round), sent_(std::move(sent)) {
  const sg::PlatformSpec& spec = c.hosts.spec;
  std::vector<double> nic_bps;
  for (const auto& m : spec.peers) nic_bps.push_back(m.nic_bps);
  flows_ = std::make_unique<PeerStorageFlows>(sg::network_factors(), spec.one_way_latency_s, spec.storage_stream_bps,
                                              sg::peer_storage_slices_bps(spec), nic_bps, sg::kPeersPerStorageSlice);
  const auto rounds = static_cast<size_t>(c.s.experiment.workload.iterations);
  peers_.resize(static_cast<size_t>(c.peers()));
  ready_.assign(rounds, 0);
  waiting_.resize(rounds);
}

void ComputedParticipants::launch() {
  c_.out.participants_computed = true;
  peers_running_ = c_.peers();
  for (int peer = 0; peer < c_.peers(); ++peer) {  // load_shard (gradient.cpp)
    const auto& data = c_.s.group_of_peer_data(peer);
    transfer(peer, false, static_cast<double>(data.shard_samples * c_.s.sample_bytes), 1, 0.0, Step::ShardLoaded);
  }
  sg::run_task("participants", c_.hosts.storage, [this] { drive(); });
}

void ComputedParticipants::schedule(double at_s, Kind kind, int peer) {
  events_.push({at_s, next_order_++, kind, peer});
  if (sleeping_until_s_ >= 0 && at_s < sleeping_until_s_) {  // the task sleeps past it: wake it once
    sleeping_until_s_ = -1;
    wake_.release();
  }
}

void ComputedParticipants::round_ready(int iteration) {
  ready_[static_cast<size_t>(iteration)] = 1;
  auto& waiting = waiting_[static_cast<size_t>(iteration)];
  for (int peer : waiting) schedule(sg::now(), Kind::Fetch, peer);
  waiting.clear();
  waiting.shrink_to_fit();
}

void ComputedParticipants::drive() {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (peers_running_ > 0) {
    const double next_s = std::min(events_.empty() ? kNever : events_.top().at_s, flows_->next_s());
    if (next_s > sg::now()) {
      sleeping_until_s_ = next_s;
      const bool woken = std::isinf(next_s) ? (wake_.acquire(), true) : wake_.acquire_until(next_s);
      sleeping_until_s_ = -1;
      if (woken) continue;  // an earlier event came: look again
    }
    // What is due at next_s (the clock may stand an ulp off it), and what that makes due at next_s, in order:
    // the flows that end, then the steps in the order they were made. Their own times, not the clock, time them.
    if (!c_.pending.settle(next_s, c_.out)) sg::abandon_simulation();  // the storage link could have bound
    for (;;) {
      if (flows_->next_s() <= next_s) {
        for (std::int64_t id : flows_->advance(next_s)) {
          const auto it = flow_peer_.find(id);
          const int peer = it->second;
          flow_peer_.erase(it);
          if (--peers_[static_cast<size_t>(peer)].flows_in_flight == 0) transfer_done(peer, next_s);
        }
        continue;
      }
      if (events_.empty() || events_.top().at_s > next_s) break;
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case Kind::Fetch: fetch(e.peer, e.at_s); break;
        case Kind::Updated: updated(e.peer, e.at_s); break;
      }
    }
  }
}

std::vector<std::int64_t> start_storage_transfer(Context& c, PeerStorageFlows& flows, StoragePlan& plan, int peer,
                                                 bool upload, double bytes_each, int count, double start_s) {
  plan = c.storage.plan(c.storage_client(peer), upload, bytes_each, count);
  const double latency_paid_s = sg::latency_paid_s(c.hosts.one_way_latency_s);  // each request's, and the flow's
  std::vector<std::int64_t> ids;
  for (const auto& stream : plan.flows(latency_paid_s))
    ids.push_back(flows.add(peer, upload, start_s + stream.start_after_s + latency_paid_s, stream.bytes));
  return ids;
}

void ComputedParticipants::transfer(int peer, bool upload, double bytes_each, int count, double start_s, Step then) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  p.after_transfer = then;
  p.transfer_start_s = start_s;
  const auto ids = start_storage_transfer(c_, *flows_, p.plan, peer, upload, bytes_each, count, start_s);
  p.flows_in_flight = static_cast<int>(ids.size());
  for (const std::int64_t id : ids) flow_peer_.emplace(id, peer);
}

void ComputedParticipants::transfer_done(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  c_.storage.record(p.plan);
  switch (p.after_transfer) {
    case Step::ShardLoaded:
      c_.trace_ahead(peer, 0, Phase::DataFetch, p.transfer_start_s, now_s, -1);
      begin_round(peer, now_s);
      return;
    case Step::Sent:
      c_.trace_ahead(peer, p.iteration, Phase::Send, p.send_start_s, now_s, -1);
      sent_(peer, p.iteration, participation_.rank(p.iteration, peer));
      p.receive_start_s = now_s;
      wait_for_average(peer, now_s);
      return;
    case Step::Fetched: {
      const double bytes = round_.object_bytes * round_.objects;
      const double deserialized_s = cpu(peer, now_s, c_.s.deserialize_s(bytes));
      c_.trace_ahead(peer, p.iteration, Phase::Deserialize, now_s, deserialized_s, -1);
      c_.trace_ahead(peer, p.iteration, Phase::Receive, p.receive_start_s, deserialized_s, -1);
      // apply_update (gradient.cpp): the SGD step, costed as one two-gradient pass.
      const double updated_s = cpu(peer, deserialized_s, c_.s.average_seconds(static_cast<double>(c_.s.parameters), 2));
      c_.trace_ahead(peer, p.iteration, Phase::AggregateUpdate, deserialized_s, updated_s, -1);
      schedule(updated_s, Kind::Updated, peer);
      return;
    }
  }
}

void ComputedParticipants::begin_round(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.iteration == c_.s.experiment.workload.iterations) {
    c_.out.peer_end_s[peer] = now_s;
    --peers_running_;
    return;
  }
  if (!participation_.takes_part(p.iteration, peer)) {
    p.receive_start_s = now_s;
    wait_for_average(peer, now_s);
    return;
  }
  const PeerWork work = peer_gradient_work(c_, peer, p.iteration);
  const double computed_s = cpu(peer, now_s, work.reference_s, work.busy_vcpus);
  c_.trace_ahead(peer, p.iteration, Phase::Compute, now_s, computed_s, -1);
  p.send_start_s = computed_s;
  const double serialized_s = cpu(peer, computed_s, c_.s.serialize_s(round_.object_bytes * round_.objects));
  c_.trace_ahead(peer, p.iteration, Phase::Serialize, computed_s, serialized_s, -1);
  transfer(peer, true, round_.object_bytes, round_.objects, serialized_s, Step::Sent);
}

void ComputedParticipants::wait_for_average(int peer, double now_s) {
  const auto round = static_cast<size_t>(peers_[static_cast<size_t>(peer)].iteration);
  if (ready_[round])
    fetch(peer, now_s);
  else
    waiting_[round].push_back(peer);
}

void ComputedParticipants::fetch(int peer, double now_s) {
  transfer(peer, false, round_.object_bytes, round_.objects, now_s, Step::Fetched);
}

void ComputedParticipants::updated(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  c_.complete_iteration_at(now_s, peer, p.iteration, participation_.gradients(p.iteration, peer));
  ++p.iteration;
  begin_round(peer, now_s);
}

}  // namespace p2psim::simulation
