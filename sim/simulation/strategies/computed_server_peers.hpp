// A synchronous parameter server's peers computed rather than simulated (as computed_participants.hpp does for the
// designs that exchange through object storage): each round a peer computes its gradient on its own CPU, encodes
// it, pushes a slice to every server, waits for the round's parameters and pulls them. Its CPU is its own
// (gradient.hpp, peer_cpu_end_s); its shard comes from storage as the computed participants' do
// (PeerStorageFlows); its pushes and pulls share the servers' NICs with every other peer's, which ServerFlows
// computes as SimGrid shares them, by classes of peers rather than P x S flows. What stays simulated: the
// servers (an actor each, summing the pushes and applying the step). The same run as the actors' to SimGrid's
// precision, up to the order of simultaneous events (tests/test_computed_participants.cpp);
// `p2psim run --exact-participants` runs the actors instead.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "../context.hpp"
#include "../peer_storage_flows.hpp"
#include "../server_flows.hpp"
#include "gradient.hpp"
#include "participant_task.hpp"
#include "participation.hpp"

namespace p2psim::simulation {

/// What a parameter server's peers move each round: `push_bytes` to each of `servers` servers of `server_type`,
/// `pull_bytes` back from each.
struct ServerRound {
  int servers = 1;
  const InstanceType* server_type = nullptr;
  double push_bytes = 0, pull_bytes = 0;
};

/// Whether the peers of a synchronous parameter server can be computed, from the scenario alone (its footprint
/// asks before the platform exists): they compute on their own CPU, every peer's step fits its memory, no peer
/// crashes, and no "up to" NIC, a peer's or a server's, could run out of credits in the run (each byte moved
/// either way drains at most one byte of credits; ServerFlows keeps every NIC's rate), and their shards do not
/// download in two steps (TransferConfig::size_from_first_part: the actors run those).
bool server_peers_computable(const Scenario& s, GradientCompute how, bool asynchronous, const ServerRound& round,
                             const TransferConfig& transfers);

class ComputedServerPeers {
 public:
  /// `pushed(peer, iteration)`: the peer's slices of the round are at every server. Called from the task, then.
  using Pushed = std::function<void(int peer, int iteration)>;
  ComputedServerPeers(Context& c, const Participation& participation, ServerRound round, Pushed pushed);
  /// Starts the task: every peer loads its shard, then begins its first round.
  void launch();
  /// Every server has published the round's parameters (called by the design, from a server's actor, then): its
  /// peers pull them as each gets there.
  void round_ready(int iteration);

 private:
  enum class Step { ShardLoaded, Pushed, Pulled };
  struct Peer {
    int iteration = 0;
    Step after_transfer = Step::ShardLoaded;  // what the transfer in flight completes
    int flows_in_flight = 0;
    StoragePlan plan;                          // the shard's requests, recorded when they end
    double transfer_start_s = 0, send_start_s = 0, receive_start_s = 0;
  };
  static constexpr int kPull = 0;  // the one step the task takes: a peer pulls a published round

  void transfer_done(int peer, double now_s);
  void begin_round(int peer, double now_s);
  void wait_for_parameters(int peer, double now_s);
  void pull(int peer, double now_s);
  double cpu(int peer, double start_s, double reference_s) { return peer_cpu_end_s(c_, peer, start_s, reference_s); }

  Context& c_;
  const Participation& participation_;
  ServerRound round_;
  Pushed pushed_;
  double latency_paid_s_ = 0;  // a peer's route to a server, before its first byte moves
  std::unique_ptr<PeerStorageFlows> storage_;  // the shards
  std::unique_ptr<ServerFlows> servers_;       // pushes and pulls
  std::unordered_map<std::int64_t, int> shard_flow_peer_;  // storage flows in flight: whose
  std::vector<Peer> peers_;
  ParticipantTask task_;  // a round is ready when every server has published its parameters
};

}  // namespace p2psim::simulation
