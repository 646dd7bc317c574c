#include "computed_server_peers.hpp"

#include "computed_participants.hpp"

namespace p2psim::simulation {
namespace {

// Whether a NIC of `type` keeps its rate while moving `up_bytes` and `down_bytes` in a run.
bool nic_lasts(const InstanceType& type, double up_bytes, double down_bytes) {
  return nic_keeps_its_rate(type.nic_bursts(), type.nic_credit_s * type.nic_bandwidth_bps, up_bytes, down_bytes);
}

}  // namespace

bool server_peers_computable(const Scenario& s, GradientCompute how, bool asynchronous, const ServerRound& round,
                             const TransferConfig& transfers) {
  const auto& e = s.experiment;
  if (how != GradientCompute::Peer || asynchronous || e.crash_peer >= 0) return false;
  if (transfers.downloads_in_steps()) return false;  // a download in two steps: the actors run them
  if (peer_storage_clients_bind(s, transfers)) return false;  // a client's CPU: the actors' routes have it
  const double rounds = e.workload.iterations, S = round.servers;
  for (size_t g = 0; g < s.peer_groups.size(); ++g) {
    const auto& group = s.peer_groups[g];
    if (!s.peer_fits(static_cast<int>(g))) return false;
    const double shard_bytes = static_cast<double>(group.shard_samples * s.sample_bytes);
    if (!nic_lasts(group.type, rounds * S * round.push_bytes, shard_bytes + rounds * S * round.pull_bytes)) return false;
  }
  return nic_lasts(*round.server_type, rounds * e.peers * round.pull_bytes, rounds * e.peers * round.push_bytes);
}

ComputedServerPeers::ComputedServerPeers(Context& c, const Participation& participation, ServerRound round,
                                         Pushed pushed)
    : c_(c), participation_(participation), round_(round), pushed_(std::move(pushed)),
      task_(c, c.peers(), c.s.experiment.workload.iterations) {
  const sg::PlatformSpec& spec = c.hosts.spec;
  storage_ = make_peer_storage_flows(spec);
  // A peer's route to a server: its NIC, its flow cap (no latency of its own) and the server's NIC, half the
  // network's one-way latency each (sg/platform.cpp).
  std::vector<double> group_nic_bps(c.s.peer_groups.size(), 0);
  for (int peer = 0; peer < c.peers(); ++peer)
    group_nic_bps[static_cast<size_t>(c.s.group_of(peer))] = spec.peers[static_cast<size_t>(peer)].nic_bps;
  const ServerFlows::Route route{spec.one_way_latency_s, round.servers, spec.servers.at(0).nic_bps,
                                 sg::instance_flow_cap_bps(spec)};
  servers_ = std::make_unique<ServerFlows>(sg::network_factors(), route, c.s.group_of_peer, group_nic_bps);
  latency_paid_s_ = sg::latency_paid_s(spec.one_way_latency_s);
  peers_.resize(static_cast<size_t>(c.peers()));
}

void ComputedServerPeers::launch() {
  c_.out.participants_computed = true;
  for (int peer = 0; peer < c_.peers(); ++peer) {  // start_peer (gradient.cpp): load_shard
    Peer& p = peers_[static_cast<size_t>(peer)];
    const double shard_bytes = static_cast<double>(c_.s.group_of_peer_data(peer).shard_samples * c_.s.sample_bytes);
    const auto ids = start_storage_transfer(c_, *storage_, p.plan, peer, false, shard_bytes, 1, 0.0);
    p.flows_in_flight = static_cast<int>(ids.size());
    for (const std::int64_t id : ids) shard_flow_peer_.emplace(id, peer);
  }
  const auto shards = ParticipantTask::Flows::of_storage(*storage_, shard_flow_peer_, [this](int peer, double now_s) {
    if (--peers_[static_cast<size_t>(peer)].flows_in_flight == 0) transfer_done(peer, now_s);
  });
  const ParticipantTask::Flows pushes_and_pulls{[this] { return servers_->next_s(); }, [this](double now_s) {
                                                  for (const int peer : servers_->advance(now_s)) transfer_done(peer, now_s);
                                                }};
  task_.start({shards, pushes_and_pulls}, [this](int, int peer, double at_s) { pull(peer, at_s); });
}

void ComputedServerPeers::round_ready(int iteration) { task_.round_ready(iteration, kPull); }

void ComputedServerPeers::transfer_done(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  switch (p.after_transfer) {
    case Step::ShardLoaded:
      c_.storage.record(p.plan);
      c_.trace_ahead(peer, 0, Phase::DataFetch, p.transfer_start_s, now_s, -1);
      begin_round(peer, now_s);
      return;
    case Step::Pushed:
      c_.trace_ahead(peer, p.iteration, Phase::Send, p.send_start_s, now_s, -1);
      pushed_(peer, p.iteration);
      p.receive_start_s = now_s;
      wait_for_parameters(peer, now_s);
      return;
    case Step::Pulled:
      c_.trace_ahead(peer, p.iteration, Phase::Receive, p.receive_start_s, now_s, -1);
      // The pulled parameters hold every participant's gradient of the round.
      c_.complete_iteration_at(now_s, peer, p.iteration, participation_.gradients(p.iteration, peer));
      ++p.iteration;
      begin_round(peer, now_s);
      return;
  }
}

// ParameterServer::peer (parameter_server.cpp), computed.
void ComputedServerPeers::begin_round(int peer, double now_s) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.iteration == c_.s.experiment.workload.iterations) {
    c_.out.peer_end_s[peer] = now_s;
    task_.finished();
    return;
  }
  if (!participation_.takes_part(p.iteration, peer)) {
    p.receive_start_s = now_s;
    wait_for_parameters(peer, now_s);
    return;
  }
  const double computed_s = computed_gradient_end_s(c_, peer, p.iteration, now_s);
  p.send_start_s = computed_s;
  const double encoded_s = cpu(peer, computed_s, c_.s.encode_s);
  p.after_transfer = Step::Pushed;
  servers_->add(peer, true, encoded_s + latency_paid_s_, round_.push_bytes);
}

void ComputedServerPeers::wait_for_parameters(int peer, double now_s) {
  const int round = peers_[static_cast<size_t>(peer)].iteration;
  if (task_.ready(round))
    pull(peer, now_s);
  else
    task_.wait(round, peer);
}

void ComputedServerPeers::pull(int peer, double now_s) {
  peers_[static_cast<size_t>(peer)].after_transfer = Step::Pulled;
  servers_->add(peer, false, now_s + latency_paid_s_, round_.pull_bytes);
}

}  // namespace p2psim::simulation
