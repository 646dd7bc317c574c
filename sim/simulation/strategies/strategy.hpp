// A training design as the simulation core sees it: what it needs of the platform, and the actors it starts.
// Each design is one file in this folder, registered in registry.cpp; it composes the services (context.hpp)
// and the adapter, and never knows prices or result formats.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../../inputs/experiment.hpp"
#include "../../scenario/scenario.hpp"
#include "../context.hpp"
#include "../sg/platform.hpp"

namespace p2psim::simulation {

/// A server instance a design runs (a parameter server, a database): billed like the peers.
struct ServerNeed {
  std::string name, instance_type;
};

/// What a design needs of the platform besides the peers, object storage and the broker.
struct PlatformNeeds {
  bool broker = false;  // the design runs a message broker (billed for the whole run, used or not)
  bool gradients_through_broker = false;  // gradients go inline through it: across instances' NICs, both ways
  bool database = false;  // its participants read and write an in-memory database (on the peers or servers)
  bool peer_to_peer = false;  // a route between every two peers
  bool peer_ring = false;     // a route from each peer to the next only: peers routes, not peers²
  int function_slots = 0;  // containers alive at once, at most
  bool functions_reach_peers = false;
  /// Every function container is a gradient task without a database (gradient_needs): the invocations may be
  /// computed rather than simulated (computed_invocations.hpp).
  bool functions_only_gradient_tasks = false;
  /// Every function container is an aggregator (aggregator.hpp): its transfers may be computed.
  bool functions_only_aggregators = false;
  std::vector<ServerNeed> servers;
  bool peers_are_instances = true;  // false: the participants are functions (no peer instance is billed)
  /// Instances' CPUs do a design's own work beyond training steps (SPIRT's JSON: the database's script, a peer's
  /// parse), at their scalar speed.
  bool instances_do_scalar_work = false;
  /// Memory sizes of the design's functions (gradient tasks, aggregators): the fastest network any may have.
  std::vector<int> function_memory_mb;
  /// Where its training steps run (`run --check` holds each where it runs): on the peers' instances, in gradient
  /// functions (an invocation's minibatches each), or in functions that are the participants (a worker's whole step).
  bool steps_on_peers = false, steps_on_gradient_functions = false, steps_on_worker_functions = false;
};

/// What one run of a design holds, checked before it runs (simulation/footprint.hpp): upper estimates from the
/// records the design writes, each counted on real runs (docs/limits.md, "Memory").
struct Footprint {
  double actors = 0;      // SimGrid actors alive at once, at most
  double trace_rows = 0;  // phases recorded over the whole run
  double deliveries = 0;  // per-gradient records: deliveries, staleness, gradient versions
  /// The most participants the design is simulated with in reasonable time (0: no limit of its own), and why.
  int max_peers = 0;
  std::string max_peers_why;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual PlatformNeeds needs() const = 0;
  /// What a run of it holds: actors, trace rows and per-gradient records (counted in docs/limits.md), and how many
  /// peers it can take; `exact_participants`: as actors even where it could compute them (--exact-participants).
  virtual Footprint footprint(bool exact_participants) const = 0;
  /// Starts the design's actors; the engine then runs them to the end.
  virtual void launch(Context& c) = 0;
  /// How gradients travel between participants, for the results (e.g. "inline", "storage", "peer_to_peer").
  virtual std::string transport() const = 0;
  /// How the design's participants move objects to and from storage, as its code does (boto3's get_object and
  /// put_object: one request, one stream, unless it says otherwise). A <system>'s storage_streams,
  /// storage_part_mb, storage_threshold_mb, storage_prefixes, storage_size_probe and storage_client set it instead
  /// (make_strategy).
  virtual TransferConfig default_transfers() const { return {}; }
  /// What this system uses: its design's, or what its <system> says.
  const TransferConfig& transfers() const { return transfers_; }
  /// What the design's simulation reads of the function memory size, exactly: two sizes with the same text give
  /// the same simulation but for the size they bill, so a sweep's memo shares it (app/run_memo.hpp). "" when the
  /// design reads more of it (aggregators sized by it, say) or an invocation does not fit: nothing is shared.
  virtual std::string function_memory_timing() const { return ""; }
  /// Whether its functions fetch the current model before computing (model_fetch="storage", the default: a
  /// trainer), or build one of their own and compute on it (model_fetch="none": the paper's published prototype,
  /// which timed kernels and could not train).
  bool functions_fetch_model() const { return functions_fetch_model_; }

 private:
  friend std::unique_ptr<Strategy> make_strategy(const SystemSpec& system, const Scenario& s);
  TransferConfig transfers_;
  bool functions_fetch_model_ = true;
};

using StrategyFactory = std::unique_ptr<Strategy> (*)(const SystemSpec& system, const Scenario& s);

/// The strategy `system` names, with its parameters read and checked against the scenario. Throws InputError
/// naming the experiment file, the <system> line and the field.
std::unique_ptr<Strategy> make_strategy(const SystemSpec& system, const Scenario& s);

/// Every registered strategy's name, in registration order.
std::vector<std::string> strategy_names();

}  // namespace p2psim::simulation
