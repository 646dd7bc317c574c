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

/// Simulates every system of the run's scenario once per group that one of `systems` (the run's results, simulated
/// as `options` say, each in its own process: the nominal ones, whose recorded mechanisms say which groups) used,
/// that group slower by `slowdown` (> 1), each system in its own process as `options` say. A group's attribute the profile lacks, or holds as no number, is left as it
/// is; a scaled value the profile's reader refuses throws InputError as loading the experiment would.
Sensitivity run_sensitivity(const Scenario& scenario, const std::vector<SystemResult>& systems, const RunOptions& options,
                            double slowdown);

}  // namespace p2psim::app
