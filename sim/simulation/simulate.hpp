// Simulating one system of a scenario with SimGrid.
#pragma once
#include "../scenario.hpp"
#include "run_output.hpp"

namespace p2psim {

/// Checks every system of the scenario (its strategy exists, its parameters are valid) before anything is
/// simulated. Throws InputError naming the experiment file, line and field.
void check_systems(const Scenario& scenario);

/// Runs the simulation of `system` in this process. SimGrid allows one engine per process: call it once per
/// process (run_isolated() in isolate.hpp does that for you).
RunOutput simulate(const Scenario& scenario, const SystemSpec& system);

/// Starts SimGrid in this process, to be inherited by the processes it forks to simulate (simulate_isolated(),
/// a sweep's runs): they skip SimGrid's start-up. Optional; simulate() starts SimGrid when nobody did.
void prepare_simulations();

/// simulate() in a forked child (isolate.hpp), so that it can be called once per system from one process.
RunOutput simulate_isolated(const Scenario& scenario, const SystemSpec& system);

}  // namespace p2psim
