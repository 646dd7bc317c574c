#include "computed_participants.hpp"

#include <algorithm>

namespace p2psim::simulation {

bool participants_computable(const Context& c, GradientCompute how, StorageRound round) {
  if (c.exact_participants || how != GradientCompute::Peer || c.s.experiment.crash_peer >= 0) return false;
  if (c.transfers.downloads_in_steps()) return false;  // a download in two steps: the actors run them
  if (peer_storage_clients_bind(c.s, c.transfers)) return false;  // a client's CPU: the actors' routes have it
  for (size_t group = 0; group < c.s.peer_groups.size(); ++group)
    if (!c.s.peer_fits(static_cast<int>(group))) return false;
  // Every peer's NIC keeps its rate through the run, else the actors run, whose NICs fall back to their baseline
  // once a bucket is spent.
  const double rounds = c.s.experiment.workload.iterations;
  for (int peer = 0; peer < c.peers(); ++peer) {
    const auto& m = c.hosts.spec.peers[static_cast<size_t>(peer)];
    const bool bursts = m.nic_baseline_bps > 0 && m.nic_baseline_bps < m.nic_bps;
    const double up_bytes = rounds * round.object_bytes * round.objects;
    const double down_bytes =
        static_cast<double>(c.s.group_of_peer_data(peer).shard_samples * c.s.sample_bytes) + up_bytes;
    if (!nic_keeps_its_rate(bursts, m.nic_credit_bytes, up_bytes, down_bytes)) return false;
  }
  return true;
}

bool nic_keeps_its_rate(bool bursts, double bucket_bytes, double up_bytes, double down_bytes) {
  return !bursts || up_bytes + down_bytes < bucket_bytes;
}

ComputedParticipants::ComputedParticipants(Context& c, const Participation& participation, StorageRound round,
                                           Sent sent)
    : c_(c), participation_(participation), round_(round), sent_(std::move(sent)),
      task_(c, c.peers(), c.s.experiment.workload.iterations) {
  flows_ = make_peer_storage_flows(c.hosts.spec);
  peers_.resize(static_cast<size_t>(c.peers()));
}

void ComputedParticipants::launch() {
  c_.out.participants_computed = true;
  for (int peer = 0; peer < c_.peers(); ++peer) {  // load_shard (gradient.cpp)
    const auto& data = c_.s.group_of_peer_data(peer);
    transfer(peer, false, static_cast<double>(data.shard_samples * c_.s.sample_bytes), 1, 0.0, Step::ShardLoaded);
  }
  const auto storage = ParticipantTask::Flows::of_storage(*flows_, flow_peer_, [this](int peer, double now_s) {
    if (--peers_[static_cast<size_t>(peer)].flows_in_flight == 0) transfer_done(peer, now_s);
  });
  task_.start({storage}, [this](int kind, int peer, double at_s) {
    if (static_cast<Kind>(kind) == Kind::Fetch)
      fetch(peer, at_s);
    else
      updated(peer, at_s);
  });
}

void ComputedParticipants::round_ready(int iteration) { task_.round_ready(iteration, static_cast<int>(Kind::Fetch)); }

std::vector<std::int64_t> start_storage_transfer(Context& c, PeerStorageFlows& flows, StoragePlan& plan, int peer,
                                                 bool upload, double bytes_each, int count, double start_s) {
  plan = c.storage.plan(c.storage_client(peer), upload, bytes_each, count, start_s);
  const double latency_paid_s = sg::latency_paid_s(c.hosts.one_way_latency_s);  // each request's, and the flow's
  std::vector<std::int64_t> ids;
  for (const auto& stream : plan.flows(latency_paid_s))
    ids.push_back(flows.add(peer, upload, start_s + stream.start_after_s + latency_paid_s, stream.bytes));
  return ids;
}

std::unique_ptr<PeerStorageFlows> make_peer_storage_flows(const sg::PlatformSpec& spec) {
  std::vector<double> nic_bps;
  for (const auto& m : spec.peers) nic_bps.push_back(m.nic_bps);
  return std::make_unique<PeerStorageFlows>(sg::network_factors(), spec.one_way_latency_s, spec.storage_stream_bps,
                                            sg::peer_storage_slices_bps(spec), nic_bps, sg::kPeersPerStorageSlice);
}

double computed_gradient_end_s(Context& c, int peer, int iteration, double now_s) {
  const PeerWork work = peer_gradient_work(c, peer, iteration);
  const double computed_s = peer_cpu_end_s(c, peer, now_s, work.reference_s, work.busy_vcpus);
  c.trace_ahead(peer, iteration, Phase::Compute, now_s, computed_s, -1);
  return computed_s;
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
      task_.schedule(updated_s, static_cast<int>(Kind::Updated), peer);
      return;
    }
  }
}

void ComputedParticipants::begin_round(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.iteration == c_.s.experiment.workload.iterations) {
    c_.out.peer_end_s[peer] = now_s;
    task_.finished();
    return;
  }
  if (!participation_.takes_part(p.iteration, peer)) {
    p.receive_start_s = now_s;
    wait_for_average(peer, now_s);
    return;
  }
  const double computed_s = computed_gradient_end_s(c_, peer, p.iteration, now_s);
  p.send_start_s = computed_s;
  const double serialized_s = cpu(peer, computed_s, c_.s.serialize_s(round_.object_bytes * round_.objects));
  c_.trace_ahead(peer, p.iteration, Phase::Serialize, computed_s, serialized_s, -1);
  transfer(peer, true, round_.object_bytes, round_.objects, serialized_s, Step::Sent);
}

void ComputedParticipants::wait_for_average(int peer, double now_s) {
  const int round = peers_[static_cast<size_t>(peer)].iteration;
  if (task_.ready(round))
    fetch(peer, now_s);
  else
    task_.wait(round, peer);
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
