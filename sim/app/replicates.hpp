// Replicates of a run: the experiment simulated again N times, each time with every constant that carries a
// spread (spread.hpp) drawn from it and with a seed of its own for the run's random draws (steps, cold starts,
// storage latencies), so that a prediction comes with the band a real run could fall in. Deterministic: the
// same experiment and seed give the same replicates.
#pragma once
#include "../inputs/experiment.hpp"
#include "run_experiment.hpp"
#include "../results/replicate_bands.hpp"

namespace p2psim {

/// Simulates `n` replicates of `e` (every system, each in its own process, with the run's storage sharing and
/// participants) and returns the bands.
Replicates run_replicates(const Experiment& e, const CloudProfile& nominal, int n, const app::RunOptions& o);

}  // namespace p2psim
