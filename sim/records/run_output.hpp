// What one simulated run of one system produces: billable usage, the phase trace and delivery log.
// Plain data, serialisable to bytes so a run can happen in a child process (SimGrid: one engine per process).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ledger.hpp"
#include "mechanisms.hpp"
#include "phases.hpp"

namespace p2psim {

struct PhaseRecord {
  int peer = 0;         // -1 for a design's shared participants (e.g. aggregator functions)
  int iteration = 0;
  int invocation = -1;  // the function invocation (or aggregator) it belongs to; -1 for the peer's own phases
  Phase phase = Phase::Compute;
  double start_s = 0, end_s = 0;
};

struct Delivery {
  int consumer = 0, producer = 0, iteration = 0;
};

/// A gradient by who computed it and in which of its iterations.
struct GradientVersion {
  int producer = 0, iteration = 0;
};

/// One model update: which gradients a participant averaged into its model, and when. This is the schedule a
/// real training run replays (`p2psim replay`).
struct Update {
  int peer = 0, iteration = 0;
  double time_s = 0;  // when the update was applied
  UsageMark usage;
  /// Synchronous designs: the average of every participant's gradient of `iteration` (each that made this
  /// update), written compactly. Otherwise `gradients` lists exactly what was averaged, the peer's own first.
  bool whole_iteration = false;
  std::vector<GradientVersion> gradients;
};

struct RunOutput {
  std::string transport;  // how gradients travel between participants (the strategy says)
  MechanismSet mechanisms = 0;  // what the run used (simulation/mechanisms_used.hpp)
  Ledger ledger;
  std::vector<PhaseRecord> trace;
  std::vector<Delivery> deliveries;
  std::vector<Update> updates;       // in the order they were applied
  std::string schedule_unsupported;  // why this design records no schedule; empty when it does
  std::vector<double> peer_end_s;
  std::vector<int> iterations_done;  // per peer: iterations it completed (fewer when it crashed)
  /// The share of the peers that compute a gradient each round (partial participation; 1: every peer).
  double participation = 1;
  long long cold_starts = 0, warm_starts = 0;
  int max_containers = 0;  // containers alive at once, at most
  std::string failure;     // why the run could not finish (e.g. out of memory); empty when it did
  double failure_detection_wait_s = 0;  // summed over peers: time spent waiting for peers presumed dead
  std::vector<int> staleness;  // per applied gradient: the consumer's iteration minus the gradient's (>= 0)
  std::vector<double> credits_exhausted_at_s;  // per peer: when its burstable CPU credits ran out; -1: never
  /// The participants were computed rather than simulated as actors (simulation/strategies/computed_participants.hpp).
  bool participants_computed = false;
  /// An optimistic run abandoned because the storage link could have bound (sg::StorageLinkWatch): nothing
  /// above holds; the system must be simulated again with exact storage sharing.
  bool void_storage_link_bound = false;
};

/// The output as bytes, for a simulation's process to send to its parent and a sweep's memo to store: records
/// as their bytes in memory, which only this build reads back (another build's are refused, not misread).
std::string to_bytes(const RunOutput& r);
/// Throws std::runtime_error on bytes that are not a whole output of this build.
RunOutput run_output_from_bytes(std::string_view bytes);

}  // namespace p2psim
