// Participants computed rather than simulated, for the designs whose participants exchange only through object
// storage (aggregation trees, sharded aggregation): each round a participant computes its gradient on its own
// CPU, PUTs it, waits for the round's average and GETs it, then updates. Its CPU is its own (a host nobody else
// computes on: its time is the work over its speed, burstable CPU credits included: gradient.hpp,
// peer_cpu_end_s), and its transfers cross only its NIC, its stream cap and its slice of the storage link, which
// only its slice's peers share (PeerStorageFlows computes them as SimGrid shares them). What contends stays simulated: the
// aggregators, their containers and the storage link they share. So one task per system keeps each
// participant's next step in a queue ordered by time, then by the order they were made, advances the storage
// flows with them and tells the design when a participant's objects are in storage (which invokes its
// aggregators); the design tells it when a round's average is ready. No actor, stack or SimGrid activity per
// participant: at 10,000 participants those were the run (bench/README.md, "Participants at federated scale").
// The same run as the actors' to SimGrid's precision, up to the order of simultaneous events
// (tests/test_computed_participants.cpp); `p2psim run --exact-participants` runs the actors instead.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "../context.hpp"
#include "../peer_storage_flows.hpp"
#include "gradient.hpp"
#include "participant_task.hpp"
#include "participation.hpp"

namespace p2psim::simulation {

/// What a participant moves through storage each round: `objects` objects of `object_bytes`, one after another
/// (a loop of PUTs, and of GETs of the average), serialised and deserialised as one tensor.
struct StorageRound {
  double object_bytes = 0;
  int objects = 1;
};

/// Whether a NIC keeps its rate through a run in which it moves `up_bytes` out and `down_bytes` in: one that
/// does not burst always does; an "up to" NIC whose buckets hold `bucket_bytes` of credits each (its baseline
/// times its credit seconds) keeps its burst rate if it cannot run dry. Each direction drains its own bucket
/// (sg/nic_credits.hpp) by at most what it carries, its own bytes and its share of the other way's ACKs, which is
/// never more than both ways together: a NIC that moves less than its bucket holds cannot run dry. Computed
/// participants and servers' peers ask it alike.
bool nic_keeps_its_rate(bool bursts, double bucket_bytes, double up_bytes, double down_bytes);

/// Whether the participants of a design whose peers compute `how` and move `round` each round can be computed:
/// they compute on their own CPU (not through functions, whose invocations share the workflow and the broker),
/// every peer's training step fits its memory (else it fails as the actor does), no "up to" NIC can run out of
/// credits in the run (PeerStorageFlows keeps every NIC's rate), no download goes in two steps
/// (TransferConfig::size_from_first_part), and the run does not ask for the actors.
bool participants_computable(const Context& c, GradientCompute how, StorageRound round);

/// ObjectStorage::get and put (object_storage.cpp), computed for a participant: `plan` its requests, with the same
/// first-byte draws from its stream, for `count` objects of `bytes_each` begun at `start_s`; each stream's bytes
/// begin to move once its requests' first bytes and its route's latencies are paid. Returns the flows' numbers.
std::vector<std::int64_t> start_storage_transfer(Context& c, PeerStorageFlows& flows, StoragePlan& plan, int peer,
                                                 bool upload, double bytes_each, int count, double start_s);

/// The storage flows of every peer of a computed task: its NIC, its stream cap and its slice of the storage link.
std::unique_ptr<PeerStorageFlows> make_peer_storage_flows(const sg::PlatformSpec& spec);

/// A computed participant's gradient of `iteration` begun at `now_s` on its own CPU, traced as its Compute phase:
/// returns when it is done.
double computed_gradient_end_s(Context& c, int peer, int iteration, double now_s);

class ComputedParticipants {
 public:
  /// `sent(peer, iteration, rank)`: the participant's objects of the round are all in storage (`rank`: its
  /// place among the round's participants). Called from the task, at that instant.
  using Sent = std::function<void(int peer, int iteration, int rank)>;
  ComputedParticipants(Context& c, const Participation& participation, StorageRound round, Sent sent);
  /// Starts the task: every peer loads its shard, then begins its first round.
  void launch();
  /// The round's average is in storage (called by the design, from the actor that completed it, at that instant):
  /// its peers fetch it as each gets there.
  void round_ready(int iteration);

 private:
  enum class Step { ShardLoaded, Sent, Fetched };
  struct Peer {
    int iteration = 0;
    Step after_transfer = Step::ShardLoaded;  // what the transfer in flight completes
    int flows_in_flight = 0;
    StoragePlan plan;                          // its requests, recorded when it ends
    double transfer_start_s = 0, send_start_s = 0, receive_start_s = 0;
  };
  enum class Kind { Fetch, Updated };  // the steps the task takes

  void transfer(int peer, bool upload, double bytes_each, int count, double start_s, Step then);
  void transfer_done(int peer, double now_s);
  void begin_round(int peer, double now_s);
  void wait_for_average(int peer, double now_s);
  void fetch(int peer, double now_s);
  void updated(int peer, double now_s);
  double cpu(int peer, double start_s, double reference_s) { return peer_cpu_end_s(c_, peer, start_s, reference_s); }

  Context& c_;
  const Participation& participation_;
  StorageRound round_;
  Sent sent_;
  std::unique_ptr<PeerStorageFlows> flows_;
  std::unordered_map<std::int64_t, int> flow_peer_;  // flows in flight: whose
  std::vector<Peer> peers_;
  ParticipantTask task_;  // a round is ready when its average is in storage
};

}  // namespace p2psim::simulation
