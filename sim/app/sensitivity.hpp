// What a run's prediction rests on: each group of the profile's constants that one cloud mechanism uses
// (records/mechanisms.hpp) made slower alone, by one factor (a time that many times longer, a rate that many
// times lower, a spread with it), every system simulated again with the run's own seed, and its total time and
// cost set beside the run's. A reader weighs each change against that mechanism's measured accuracy (`run` prints
// both): a prediction that moves with a mechanism no validation case measures rests on an assumption. Only the
// groups of mechanisms some system used are run; the storage's first byte, which instances' and functions'
// requests share, is a group of its own.
#pragma once
#include "../results/results.hpp"
#include "run_experiment.hpp"

namespace p2psim::app {

/// The factor `run --sensitivity` slows each group by: 10 %.
inline constexpr double kSensitivitySlowdown = 1.1;

/// Simulates `systems` of the run's scenario once as it is and once per used group with that group slower by
/// `slowdown` (> 1), each system in its own process as `options` say. Throws InputError if a group's constants
/// cannot be read (a profile whose values are not numbers).
Sensitivity run_sensitivity(const Scenario& scenario, const std::vector<SystemResult>& systems, const RunOptions& options,
                            double slowdown);

}  // namespace p2psim::app
