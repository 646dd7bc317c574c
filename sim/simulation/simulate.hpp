// Simulating one system of a scenario with SimGrid.
#pragma once
#include "../records/run_output.hpp"
#include "../scenario/scenario.hpp"
#include "footprint.hpp"
#include "sg/platform.hpp"

namespace p2psim {

/// Every system of the scenario with what a run of it would hold (simulation/footprint.hpp), in order; its
/// strategy and parameters checked. Throws InputError naming the experiment file, line and field.
struct SystemEstimates {
  std::vector<const SystemSpec*> systems;
  std::vector<simulation::RunEstimate> estimates;
  std::vector<simulation::Footprint> footprints;
  std::vector<simulation::PlatformNeeds> needs;
};
/// `exact_participants`: every participant simulated as an actor (`p2psim run --exact-participants`).
SystemEstimates estimate_systems(const Scenario& scenario, bool exact_participants = false);

/// Checks every system of the scenario (its strategy exists, its parameters are valid, its size within its
/// design's limit, this machine's memory and memory maps: simulation/footprint.hpp) before anything is
/// simulated. Throws InputError naming the experiment file, line and field.
void check_systems(const Scenario& scenario, bool exact_participants = false);

/// Runs the simulation of `system` in this process. SimGrid allows one engine per process: call it once per
/// process (run_isolated() in isolate.hpp does that for you). Optimistic storage sharing gives functions and
/// servers private paths to storage where they could fill its shared link; the output is then either exact or
/// void (RunOutput::void_storage_link_bound), to be simulated again, Exact, in another process.
/// `exact_participants`: participants are actors even where their design could compute them
/// (strategies/computed_participants.hpp), as `p2psim run --exact-participants` asks.
RunOutput simulate(const Scenario& scenario, const SystemSpec& system, sg::StorageSharing storage_sharing,
                   bool exact_participants = false);

/// The platform `system` of `scenario` runs on, as plain values (what sg::build_platform builds).
sg::PlatformSpec platform_spec(const Scenario& scenario, const SystemSpec& system);

/// Whether simulate() of `system` with `storage_sharing` can come back void: optimistic, on a platform whose
/// storage link may bind (sg::storage_link_may_bind).
bool simulation_may_be_void(const Scenario& scenario, const SystemSpec& system, sg::StorageSharing storage_sharing);

/// Starts SimGrid in this process, to be inherited by the processes it forks to simulate (simulate_isolated(),
/// a sweep's runs): they skip SimGrid's start-up. Optional; simulate() starts SimGrid when nobody did.
void prepare_simulations();

/// simulate() in a forked child (isolate.hpp), so that it can be called once per system from one process.
/// Optimistic, it simulates again in a second child, exactly, when the first came back void: never void.
RunOutput simulate_isolated(const Scenario& scenario, const SystemSpec& system,
                            sg::StorageSharing storage_sharing = sg::StorageSharing::Optimistic,
                            bool exact_participants = false);

}  // namespace p2psim
