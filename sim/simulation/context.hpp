// Everything one simulated system of a scenario shares between its actors: the resolved inputs, the platform,
// the services, the records it emits and its random draws. SimGrid runs one actor at a time, so plain
// members need no locking; simulated waiting goes through the adapter's Signal, Counter and Semaphore.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "../compute/cpu_credits.hpp"
#include "../records/run_output.hpp"
#include "../scenario/scenario.hpp"
#include "pending_records.hpp"
#include "random.hpp"
#include "services/broker.hpp"
#include "services/function_service.hpp"
#include "services/kv_store.hpp"
#include "services/object_storage.hpp"
#include "services/workflow.hpp"
#include "sg/platform.hpp"

namespace p2psim::simulation {

class ComputedInvocations;  // strategies/computed_invocations.hpp

/// What the storage client of the scenario's functions moves per second of one vCPU, and on how many at most,
/// reading as `transfers` says (FunctionServiceParams::client_rate at the functions' speed factor). Throws
/// InputError naming the profile when the client would cost no CPU (a drawn replicate of a profile whose loops
/// differ by more than the measured cost).
p2psim::StorageClientRate function_client_rate(const Scenario& s, const TransferConfig& transfers);

/// Peer `i`'s CPU speed: its type's, over its straggler slowdown (a straggler's own CPU is that many times slower).
double peer_speed_factor(const Scenario& s, int i);
/// What the storage client of an instance of `type` whose vCPUs run at `speed_factor` moves at most, reading as
/// `transfers` says (FunctionServiceParams::instance_client_rate on its vCPUs), where that binds before its NIC and
/// its streams do; else 0, and its route to storage gains no link. At its full speed: a burstable instance out of
/// CPU credits slows its steps, not its client.
double instance_client_bps(const Scenario& s, const InstanceType& type, double speed_factor,
                           const TransferConfig& transfers);
/// Whether any peer's storage client binds (instance_client_bps > 0). The computed participants' flows
/// (PeerStorageFlows) know no such bound, so the actors run them then.
bool peer_storage_clients_bind(const Scenario& s, const TransferConfig& transfers);

struct Context {
  /// `transfers`: how the design's participants move objects to and from storage (its strategy says).
  Context(const Scenario& scenario, const SystemSpec& system, const sg::Platform& platform,
          const TransferConfig& transfers, bool functions_fetch_model);

  const Scenario& s;
  const SystemSpec& system;
  sg::Platform hosts;
  RunOutput out;
  Random random;  // seeded by the experiment; a stream per purpose and participant (random.hpp)
  ObjectStorage storage;
  Broker broker;
  FunctionService functions;
  WorkflowService workflow;
  std::vector<CpuCredits> credits;     // per peer: its burstable CPU credits
  std::vector<double> peer_started_s;  // per peer: when its instance started (a rejoined peer's is new)
  PendingRecords pending;              // records of computed activities, until the clock reaches them
  TransferConfig transfers;            // how the design moves objects to and from storage
  bool functions_fetch_model;          // gradient functions fetch the current model (Strategy::functions_fetch_model)
  /// Per function slot: whose model of which iteration its container holds ({peer, instance, iteration}); a
  /// container that holds the current one need not fetch it again.
  std::vector<std::array<std::int64_t, 3>> slot_model;
  std::vector<StorageClient> peer_storage;  // per peer: its requests' client (a rejoined peer's is new)
  /// The gradient functions' invocations, when they are computed rather than simulated (made by the first
  /// execution that can: strategies/computed_invocations.hpp).
  std::shared_ptr<ComputedInvocations> computed_invocations;
  /// Participants stay actors even where their design could compute them (--exact-participants).
  bool exact_participants = false;

  int peers() const { return s.experiment.peers; }
  void trace(int peer, int iteration, Phase phase, double start_s, int invocation = -1) {
    out.trace.push_back({peer, iteration, invocation, phase, start_s, sg::now()});
  }
  /// A phase of a computed activity, from `start_s` to `end_s`: recorded once the clock reaches `end_s`.
  void trace_ahead(int peer, int iteration, Phase phase, double start_s, double end_s, int invocation) {
    pending.add(end_s, PendingRecords::Kind::Trace, {peer, iteration, invocation, phase, start_s, end_s});
  }
  /// A GET (or PUT, `upload`) of `bytes` by a function on a virtual slot (its route its own), requested at
  /// `start_s`, computed rather than simulated: its requests and, where the storage link is watched, its time in
  /// flight recorded ahead (PendingRecords). Returns when its last byte arrives.
  double computed_function_transfer(StorageClient& client, bool upload, double bytes, double start_s);
  /// Peer `peer`'s storage client (its host, its latency draws, the design's transfers).
  StorageClient& storage_client(int peer) { return peer_storage[static_cast<size_t>(peer)]; }
  /// A new client for the peer's current instance (it started anew after a crash: instance_of changed).
  void renew_storage_client(int peer);
  /// The client of a function container, drawing its first-byte latencies from `draws` (its invocation's).
  StorageClient function_client(const FunctionService::Container& container, Random::Stream draws) const {
    return {container.host, draws, transfers, container.slot, container.route, &hosts, container.bucket};
  }
  /// The peer has applied its update of `iteration`: counts the iteration as done and, when the experiment asks
  /// for accuracy, records the update, with `gradients` the versions it averaged (its own first), or, when
  /// empty, every participant's of `iteration` (synchronous designs).
  void complete_iteration(int peer, int iteration, std::vector<GradientVersion> gradients = {}) {
    complete_iteration_at(sg::now(), peer, iteration, std::move(gradients));
  }
  /// The same, at `at_s`, for a computed participant (the clock may stand an ulp off its own time).
  void complete_iteration_at(double at_s, int peer, int iteration, std::vector<GradientVersion> gradients = {});
  /// Measured-spread noise for one training step (1 when the experiment asks for none), times a heavy-tail
  /// straggler factor when the experiment declares one, drawn from `draws` (the steps' participant's stream).
  /// `group`: the peer group whose steps they are (a peer target's; functions ignore it).
  double step_noise(StepTarget target, Random::Stream& draws, int group = 0);
  /// Names this instance of `peer` in its random streams: 0 for the first, its start date's bits once it has
  /// rejoined, so that a rejoined peer redoing an iteration, and its new functions beside the old ones still
  /// running, draw anew.
  std::int64_t instance_of(int peer) const {
    std::int64_t bits = 0;
    std::memcpy(&bits, &peer_started_s[peer], sizeof bits);
    return bits;
  }
  /// How many times slower this peer's own CPU is (the experiment's straggler slowdown; 1 by default).
  double slowdown(int peer) const {
    const auto& f = s.experiment.stragglers.slowdown;
    return static_cast<size_t>(peer) < f.size() ? f[peer] : 1.0;
  }
};

}  // namespace p2psim::simulation
