// `p2psim run EXPERIMENT.xml [--out DIR]`: simulate the experiment's systems, print the table, write files.
#include <fmt/core.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../experiment.hpp"
#include "../input_error.hpp"
#include "../limits.hpp"
#include "../parse_number.hpp"
#include "../read_text.hpp"
#include "../replicates.hpp"
#include "../results.hpp"
#include "../run_memo.hpp"
#include "../simulation/simulate.hpp"
#include "args.hpp"
#include "commands.hpp"
#include "replay_runner.hpp"

namespace po = boost::program_options;

namespace p2psim::cli {

namespace {

constexpr int kExitDoesNotFit = 3;

// `p2psim run --check`: whether every system's peers and functions hold a training step, and what the simulation
// itself will hold; exit 3 when something does not fit.
int print_memory_check(const Scenario& s) {
  bool all = true;
  if (!s.memory_checked) {
    fmt::print("training memory not checked: the calibration has no memory samples for {}@{}\n",
               s.experiment.workload.model, s.experiment.workload.input_shape);
  } else {
    const double gib = 1024.0 * 1024 * 1024;
    double fn_need = 0;
    bool functions = true;
    for (size_t g = 0; g < s.peer_groups.size(); ++g)
      for (size_t k = 0; k < s.peer_groups[g].invocations.size(); ++k) {
        fn_need = std::max(fn_need, s.peer_groups[g].invocation_need_bytes[k]);
        functions = functions && s.invocation_fits(static_cast<int>(g), k);
      }
    bool peers = true;
    for (size_t g = 0; g < s.peer_groups.size(); ++g) {  // each type of peer
      const bool fits = s.peer_fits(static_cast<int>(g));
      fmt::print("instance: a peer ({}, {:.2f} GiB) needs {:.2f} GiB for its largest step: {}\n",
                 s.peer_groups[g].type.name, s.peer_groups[g].memory_bytes / gib, s.peer_groups[g].need_bytes / gib,
                 fits ? "fits" : "DOES NOT FIT");
      peers = peers && fits;
    }
    fmt::print("serverless: a function ({} MB) needs up to {:.2f} GiB: {}\n", s.experiment.functions.memory_mb,
               fn_need / gib, functions ? "fits" : "DOES NOT FIT");
    const int smallest = s.smallest_function_memory_mb();
    if (smallest > 0)
      fmt::print("smallest function memory that fits: {} MB\n", smallest);
    else
      fmt::print("no function memory up to {} MB fits\n", s.profile.functions.memory_max_mb);
    all = peers && functions;
  }
  const SystemEstimates e = estimate_systems(s);
  for (size_t i = 0; i < e.systems.size(); ++i) {
    const auto& x = e.estimates[i];
    fmt::print("system {} ({}): {:.3g} trace rows, {:.3g} actors, {:.3g} routes, {:.3g} per-gradient records\n",
               e.systems[i]->name, e.systems[i]->strategy, x.trace_rows, x.actors, x.routes, x.deliveries);
  }
  const double peak = simulation::estimated_peak_bytes(e.estimates), have = limits::available_memory_bytes();
  const bool fits = have <= 0 || peak <= 0.8 * have;
  fmt::print("simulation: about {:.0f} MB at its peak, of {:.0f} MB available: {}\n", peak / 1e6, have / 1e6,
             fits ? "fits" : "DOES NOT FIT");
  try {
    simulation::check_footprints(s, e.systems, e.estimates, e.footprints);
  } catch (const InputError& error) {
    fmt::print("DOES NOT FIT: {}\n", error.what());
    return kExitDoesNotFit;
  }
  return all && fits ? kExitOk : kExitDoesNotFit;
}

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

// Runs this command again, as a fresh process, with --exact-storage-sharing: a system simulated optimistically in
// this process came back void (sg::StorageLinkWatch), and SimGrid runs one simulation per process.
[[noreturn]] void run_again_with_exact_storage_sharing(int argc, char** argv) {
  std::vector<char*> args{const_cast<char*>("p2psim")};
  args.insert(args.end(), argv, argv + argc);  // argv[0] is the command's name, "run"
  args.push_back(const_cast<char*>("--exact-storage-sharing"));
  args.push_back(nullptr);
  std::fflush(nullptr);
  ::execv("/proc/self/exe", args.data());
  throw std::runtime_error(std::string("cannot run p2psim again: ") + std::strerror(errno));
}

// --replicates N: 1 to kMaxReplicates.
int replicate_count(const po::variables_map& vm) {
  const std::string text = vm["replicates"].as<std::string>();
  const auto n = parse_integer(text);
  if (!n || *n < 1 || *n > kMaxReplicates)
    throw UsageError(fmt::format("--replicates: expected 1 to {} replicates, got '{}'", kMaxReplicates, text));
  return static_cast<int>(*n);
}

}  // namespace

bool run_last_system_in_process = false;
std::string run_memo_dir;

int cmd_run(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("experiment", po::value<std::string>()->required(),
                                                  "experiment file (XML)")(
      "out,o", po::value<std::string>(), "write result.json, result.csv and trace.csv into this directory")(
      "quiet,q", "do not print the table")(
      "replicates", po::value<std::string>(),
      "also simulate N replicates (1-1000), each with the profile's constants drawn from their spreads and a seed of "
      "its own, and report p10/p50/p90 of each system's time and cost")(
      "check", "only check that every system's peers and functions can hold a training step and that the simulation "
               "fits this machine (its estimated peak memory), and exit: 0 when everything fits, 3 when not")(
      "provenance-base", po::value<std::string>(),
      "name input files in the provenance relative to this folder instead of the experiment's (p2psim sweep "
      "passes its experiment's folder, so that a scenario's provenance does not depend on --out)")(
      "exact-storage-sharing",
      "route functions' and servers' storage transfers through the storage's shared link even while they cannot "
      "fill it (the same results, slower: docs/architecture.md, \"Scale\")");
  po::positional_options_description pos;
  pos.add("experiment", 1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim run EXPERIMENT.xml [--out DIR]\n"
                     "Simulates the experiment's training systems (by default the paper's instance-based and serverless\n"
                     "P2P training) and reports time and cost.",
                     vm, &pos))
    return kExitOk;
  const std::string path = vm["experiment"].as<std::string>();
  if (vm.count("out")) check_output_dir(vm["out"].as<std::string>());
  try {
    const Experiment experiment = load_experiment(path, default_experiment_defaults_path());
    const Scenario scenario = resolve_scenario(experiment);
    warn_of_calibration_outliers(scenario);
    if (vm.count("check")) return print_memory_check(scenario);
    const auto sharing = vm.count("exact-storage-sharing") ? sg::StorageSharing::Exact : sg::StorageSharing::Optimistic;
    Result result;
    result.scenario = &scenario;
    // Keyed by path relative to the experiment (or to --provenance-base, a sweep's experiment, the scenario file
    // then by its name alone), so results do not depend on where the tree is checked out or a sweep writes.
    // Both sides absolute, so that how the user typed the path changes nothing.
    const bool rebased = vm.count("provenance-base") > 0;
    const auto base = rebased ? std::filesystem::absolute(vm["provenance-base"].as<std::string>())
                              : std::filesystem::absolute(path).parent_path();
    auto record = [&](const std::string& f, bool by_name) {
      const auto file = std::filesystem::absolute(f).lexically_normal();
      const std::string name = by_name ? file.filename().string() : file.lexically_relative(base).string();
      result.input_hashes[name] = file_hash(f);
      return name;
    };
    const std::string experiment_name = record(path, rebased);
    for (const auto& f : experiment.input_files()) record(f, false);
    check_systems(scenario);  // every system's strategy and parameters, before anything runs
    // In a sweep's worker, a system that runs no function, or the serverless all-to-all whose functions' timing
    // stands for their memory size, is simulated once per group of scenarios (run_memo.hpp): the files it reads
    // are those of the provenance, less the experiment file (its text is in the key), plus the defaults.
    std::optional<RunMemo> memo;
    std::map<std::string, std::string> memo_files;
    std::string experiment_text;
    if (!run_memo_dir.empty()) {
      memo.emplace(run_memo_dir);
      memo_files = result.input_hashes;
      memo_files.erase(experiment_name);
      memo_files["<defaults>"] = file_hash(default_experiment_defaults_path());
      experiment_text = read_text(path);
    }
    for (const auto& system : experiment.systems) {
      const bool last = &system == &experiment.systems.back();
      // A system without function slots, or one whose functions' timing stands for their memory size, can be
      // shared (run_memo.hpp); outside a sweep, nothing is asked.
      std::string key, function_timing;
      if (memo) {
        const bool runs_functions = platform_spec(scenario, system).function_slots > 0;
        if (runs_functions) function_timing = function_memory_timing(scenario, system);
        if (!runs_functions || !function_timing.empty())
          key = RunMemo::key(experiment_text, memo_files, system, sharing == sg::StorageSharing::Exact, function_timing);
      }
      std::optional<RunOutput> reused = key.empty() ? std::nullopt : memo->find(key);
      if (reused && !function_timing.empty())  // billed at the size of the scenario that stored it: this one's
        for (auto& run : reused->ledger.function_runs) run.memory_mb = scenario.experiment.functions.memory_mb;
      // (Replicates follow, each in processes forked from this one: its SimGrid must not have run.)
      const bool in_process = last && run_last_system_in_process && !vm.count("replicates");
      RunOutput out = reused        ? std::move(*reused)
                      : in_process ? simulate(scenario, system, sharing)
                                   : simulate_isolated(scenario, system, sharing);
      // Simulated in this process, whose SimGrid has run: only a fresh process can simulate it again.
      if (out.void_storage_link_bound) run_again_with_exact_storage_sharing(argc, argv);
      if (!key.empty() && !reused) memo->store(key, out);
      result.systems.push_back(summarise(scenario, system, std::move(out)));
    }
    if (experiment.accuracy.enabled) {
      // A sweep's worker holds one of the sweep's -j slots: its replays run one at a time, not one per core.
      const size_t replays_at_once = run_last_system_in_process ? 1 : 0;
      // The schedule and the replay's accuracy go beside the results, or into a folder removed afterwards.
      // Ctrl-C or SIGTERM during the replays: their files and the temporary folder go, then the process ends as
      // the signal would have ended it.
      if (vm.count("out")) {
        try {
          replay_accuracy(result, vm["out"].as<std::string>(), replays_at_once);
        } catch (const ReplayInterrupted& e) {
          end_by_signal(e.signal);
        }
      } else {
        std::string tmp = (std::filesystem::temp_directory_path() / "p2psim-replay-XXXXXX").string();
        if (!::mkdtemp(tmp.data())) throw std::runtime_error("cannot create a temporary folder in " + tmp);
        try {
          replay_accuracy(result, tmp, replays_at_once);
        } catch (const ReplayInterrupted& e) {
          std::filesystem::remove_all(tmp);
          end_by_signal(e.signal);
        } catch (...) {
          std::filesystem::remove_all(tmp);
          throw;
        }
        std::filesystem::remove_all(tmp);
      }
    }
    if (vm.count("replicates")) result.replicates = run_replicates(experiment, scenario.profile, replicate_count(vm));
    if (!vm.count("quiet")) print_table(result, stdout);
    if (vm.count("out")) write_results(result, vm["out"].as<std::string>());
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  return kExitOk;
}

}  // namespace p2psim::cli
