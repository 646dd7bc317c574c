// A replicate of an experiment: every constant of its profile that carries a spread (spread.hpp) drawn from it,
// and a seed of its own for the run's random draws. Deterministic: the same experiment and seed give the same
// replicates.
#pragma once
#include "cloud_profile.hpp"
#include "experiment.hpp"

namespace p2psim {

/// Replicate `r` of `e` (whose nominal profile is `nominal`): its constants with spreads drawn, as profile
/// overrides after the experiment's own, and its seed.
Experiment replicate_experiment(const Experiment& e, const CloudProfile& nominal, int r);

}  // namespace p2psim
