// The run pipeline, one for every caller (`p2psim run`, a sweep's worker, `p2psim validate`, the Python module
// through `run`): an experiment file loaded and resolved into its scenario, its systems checked, each simulated
// (or read back from a sweep's memo), its schedule replayed for accuracy, its replicates drawn. Options are a
// struct; the commands parse their arguments into it and print or write what comes back.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../results/results.hpp"
#include "../scenario/scenario.hpp"
#include "../simulation/sg/platform.hpp"

namespace p2psim::app {

struct RunOptions {
  std::string experiment_path;
  /// Input files are named in the provenance relative to this folder, the experiment file by its name alone (a
  /// sweep passes its experiment's folder, so that a scenario's provenance does not depend on where it writes).
  /// Empty: relative to the experiment's folder.
  std::string provenance_base;
  sg::StorageSharing storage_sharing = sg::StorageSharing::Optimistic;
  /// Participants as actors even where their design computes them (simulation/strategies/computed_participants.hpp).
  bool exact_participants = false;
  int replicates = 0;  // 0: none; else p10/p50/p90 over this many (replicates.hpp)
  /// Also each used mechanism's constants 10 % slower alone, every system again (sensitivity.hpp).
  bool sensitivity = false;
  /// Where the accuracy replays write schedule.json and accuracy.csv; empty: a temporary folder, removed after.
  std::string replay_dir;
  size_t replays_at_once = 0;  // 0: one per core
  /// A sweep's memo folder, through which its scenarios share simulations (run_memo.hpp); empty: no memo.
  std::string memo_dir;
  /// This process ends after the run (a sweep's worker): its last system may be simulated in the process itself
  /// rather than in a forked copy, where that simulation cannot come back void (SimGrid runs one engine per
  /// process, so a void one could not be simulated again here).
  bool last_system_in_process = false;
};

/// A finished run: the scenario and the result that points into it.
struct ExperimentRun {
  Scenario scenario;
  Result result;
};

/// Loads and resolves an experiment file into its scenario. Throws InputError naming the file, line and field.
Scenario load_scenario(const std::string& experiment_path);

/// The whole pipeline. Throws InputError on bad input (the replay's refusal of a schedule included), and
/// ReplayInterrupted when SIGINT or SIGTERM stopped the replays (what they wrote, and a temporary folder, gone).
std::unique_ptr<ExperimentRun> run_experiment(const RunOptions& options);

/// Simulates `systems` of `scenario` (each in a forked copy of this process, never void, with `options`' storage
/// sharing and participants) and summarises each.
std::vector<SystemResult> simulate_systems(const Scenario& scenario, const std::vector<const SystemSpec*>& systems,
                                           const RunOptions& options = {});

}  // namespace p2psim::app
