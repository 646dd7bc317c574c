// Simulating one architecture of a scenario with SimGrid.
#pragma once
#include "../scenario.hpp"
#include "run_output.hpp"

namespace p2psim {

/// Runs the simulation in this process. SimGrid allows one engine per process: call it once per process
/// (run_isolated() in isolate.hpp does that for you).
RunOutput simulate(const Scenario& scenario, Architecture architecture);

}  // namespace p2psim
