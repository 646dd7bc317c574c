#include "run_experiment.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "../inputs/experiment.hpp"
#include "../simulation/simulate.hpp"
#include "../simulation/strategies/strategy.hpp"
#include "../util/read_text.hpp"
#include "../util/temporary_folder.hpp"
#include "replay_runner.hpp"
#include "replicates.hpp"
#include "sensitivity.hpp"
#include "run_memo.hpp"

namespace p2psim::app {
namespace {

namespace fs = std::filesystem;

// A fitted family of this run's model that holds a sample far from its configuration's median (ComputeModel::
// Outlier): said on stderr, with where it is, since the step noise a run draws includes it.
void warn_of_calibration_outliers(const Scenario& s) {
  const std::pair key{s.experiment.workload.model, s.experiment.workload.input_shape};
  std::vector<const ComputeModel*> models{&s.compute};
  for (const auto& group : s.peer_groups)
    if (group.steps) models.push_back(&*group.steps);
  if (s.function_steps) models.push_back(&*s.function_steps);
  for (const ComputeModel* cm : models) {
    const auto it = cm->step_fits().find(key);
    if (it == cm->step_fits().end() || it->second.outliers.empty()) continue;
    const auto& o = it->second.outliers.front();
    fmt::print(stderr, "p2psim run: warning: the calibration of {}@{} holds {} sample(s) far from their "
               "configuration's median, e.g. {}:{}: {:.4g} s where the median is {:.4g} s (the step noise draws from "
               "them; `p2psim fit` lists them)\n", key.first, key.second, it->second.outliers.size(), o.file, o.line,
               o.seconds, o.median_s);
  }
}

// The provenance: every input file's hash, keyed by its path relative to the experiment (or to the provenance
// base, the experiment file then by its name alone), so that results do not depend on where the tree is checked
// out or a sweep writes. Both sides absolute: how the user typed a path changes nothing. Returns the experiment
// file's key.
std::string record_inputs(const RunOptions& o, const Scenario& scenario, Result& result) {
  const bool rebased = !o.provenance_base.empty();
  const auto base = rebased ? fs::absolute(o.provenance_base) : fs::absolute(o.experiment_path).parent_path();
  auto record = [&](const std::string& f, bool by_name) {
    const auto file = fs::absolute(f).lexically_normal();
    const std::string name = by_name ? file.filename().string() : file.lexically_relative(base).string();
    result.input_hashes[name] = file_hash(f);
    return name;
  };
  const std::string experiment_name = record(o.experiment_path, rebased);
  for (const auto& f : scenario.input_files()) record(f, false);
  return experiment_name;
}

// A sweep's memo (run_memo.hpp) as this run reads it: a system that runs no function, or the serverless all-to-all
// whose functions' timing stands for their memory size, is simulated once per group of scenarios. Its key reads
// the files of the provenance less the experiment file (its text is in the key), plus the defaults.
class Memo {
 public:
  Memo(const RunOptions& o, const Result& result, const std::string& experiment_name)
      : memo_(o.memo_dir), files_(result.input_hashes), text_(read_text(o.experiment_path)),
        exact_(o.storage_sharing == sg::StorageSharing::Exact) {
    files_.erase(experiment_name);
    files_["<defaults>"] = file_hash(default_experiment_defaults_path());
  }
  /// The system's key; empty when it cannot be shared.
  std::string key(const Scenario& s, const SystemSpec& system) const {
    const auto strategy = simulation::make_strategy(system, s);
    const bool runs_functions = strategy->needs().function_slots > 0;
    const std::string timing = runs_functions ? strategy->function_memory_timing() : "";
    if (runs_functions && timing.empty()) return "";
    return RunMemo::key(text_, files_, system, exact_, timing);
  }
  /// The output another scenario stored under `key`, its functions billed at this scenario's memory size (the
  /// key stands for every size whose timing is the same).
  std::optional<RunOutput> find(const std::string& key, const Scenario& s) const {
    auto out = memo_.find(key);
    if (out)
      for (auto& run : out->ledger.function_runs) run.memory_mb = s.experiment.functions.memory_mb;
    return out;
  }
  void store(const std::string& key, const RunOutput& out) const { memo_.store(key, out); }

 private:
  RunMemo memo_;
  std::map<std::string, std::string> files_;
  std::string text_;
  bool exact_;
};

// In this process (which ends after the run) or in a forked copy. Here only when the simulation cannot come back
// void: a void one must be simulated again, exactly, and SimGrid runs one engine per process.
RunOutput simulate_system(const Scenario& s, const SystemSpec& system, const RunOptions& o, bool last) {
  const bool here = last && o.last_system_in_process && o.replicates == 0 && !o.sensitivity &&  // they fork from here
                    !simulation_may_be_void(s, system, o.storage_sharing);
  if (!here) return simulate_isolated(s, system, o.storage_sharing, o.exact_participants);
  RunOutput out = simulate(s, system, o.storage_sharing, o.exact_participants);
  if (out.void_storage_link_bound)  // simulation_may_be_void() said it could not be
    throw std::logic_error("the simulation of system '" + system.name + "' came back void in a process that cannot "
                           "simulate it again");
  return out;
}

// The schedules replayed for accuracy into the replay folder, or into a temporary one removed after.
void replay(Result& result, const RunOptions& o) {
  if (!o.replay_dir.empty()) {
    replay_accuracy(result, o.replay_dir, o.replays_at_once);
    return;
  }
  const TemporaryFolder tmp("p2psim-replay");
  replay_accuracy(result, tmp.path().string(), o.replays_at_once);
}

}  // namespace

Scenario load_scenario(const std::string& experiment_path) {
  return resolve_scenario(load_experiment(experiment_path, default_experiment_defaults_path()));
}

std::unique_ptr<ExperimentRun> run_experiment(const RunOptions& o) {
  auto run = std::make_unique<ExperimentRun>(ExperimentRun{load_scenario(o.experiment_path), {}});
  const Scenario& s = run->scenario;
  Result& result = run->result;
  result.scenario = &s;
  const std::string experiment_name = record_inputs(o, s, result);
  check_systems(s, o.exact_participants);  // every system's strategy and parameters, before anything runs
  // Warnings once the experiment is known to be valid (bad input gets one error): what it still says the old way,
  // a setting the rest leaves idle, and a calibration outlier its steps draw from.
  for (const auto& d : s.experiment.warnings) fmt::print(stderr, "p2psim run: warning: {}\n", d.what());
  warn_of_calibration_outliers(s);
  std::optional<Memo> memo;
  if (!o.memo_dir.empty()) memo.emplace(o, result, experiment_name);
  for (const auto& system : s.experiment.systems) {
    const std::string key = memo ? memo->key(s, system) : "";
    std::optional<RunOutput> out = key.empty() ? std::nullopt : memo->find(key, s);
    if (!out) {
      out = simulate_system(s, system, o, &system == &s.experiment.systems.back());
      if (!key.empty()) memo->store(key, *out);
    }
    result.systems.push_back(summarise(s, system, std::move(*out)));
  }
  if (s.experiment.accuracy.enabled) replay(result, o);
  if (o.replicates > 0) result.replicates = run_replicates(s.experiment, s.profile, o.replicates, o);
  if (o.sensitivity) result.sensitivity = run_sensitivity(s, result.systems, o, kSensitivitySlowdown);
  return run;
}

std::vector<SystemResult> simulate_systems(const Scenario& s, const std::vector<const SystemSpec*>& systems,
                                           const RunOptions& o) {
  std::vector<SystemResult> out;
  for (const SystemSpec* system : systems)
    out.push_back(summarise(s, *system, simulate_isolated(s, *system, o.storage_sharing, o.exact_participants)));
  return out;
}

}  // namespace p2psim::app
