// `p2psim run EXPERIMENT.xml [--out DIR]`: simulate the experiment's systems, print the table, write files.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "../app/replay_runner.hpp"
#include "../app/run_experiment.hpp"
#include "../inputs/limits.hpp"
#include "../results/design_accuracy.hpp"
#include "../results/replicate_bands.hpp"
#include "../results/results.hpp"
#include "../simulation/simulate.hpp"
#include "../util/args.hpp"
#include "../util/data_dir.hpp"
#include "../util/input_error.hpp"
#include "../util/parse_number.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace p2psim::cli {

namespace {

constexpr int kExitDoesNotFit = 3;

// Beside the table: how far each system's design has been from measured runs, as `validate --record` last found
// it with the shipped profile; for a design never measured whole, each mechanism its run used, measured alone or
// not; so a reader weighs the numbers above.
void print_design_accuracy(const Result& r) {
  const std::string path = data_dir() + "/validation/" + kAccuracyByDesignFile;
  if (!std::filesystem::is_regular_file(path)) {
    fmt::print("\nno validation summary at {} (p2psim validate --record writes it)\n", path);
    return;
  }
  std::vector<SystemDesign> systems;
  for (const auto& sys : r.systems)
    systems.push_back({sys.name, sys.strategy, sys.run.mechanisms,
                       sys.feasible() ? std::optional(sys.total_s) : std::nullopt});
  const auto recorded = load_accuracy_by_design(path);
  fmt::print("\nagainst published measurements of real runs (p2psim validate, the shipped profile; docs/accuracy.md):\n");
  for (const auto& line : accuracy_lines(recorded, systems)) fmt::print("  {}\n", line);
  for (const auto& line : record_band_lines(recorded, systems)) fmt::print("  {}\n", line);
}

// `p2psim run --sensitivity`: what each system's prediction moves with, beside the accuracy lines above it.
void print_sensitivity(const Sensitivity& s) {
  fmt::print("\nwhat each prediction rests on (each group of the profile's constants {:.0f} % slower alone, every system "
             "simulated again; its change in total time and cost):\n",
             100 * (s.slowdown - 1));
  for (const auto& line : sensitivity_lines(s)) fmt::print("  {}\n", line);
}

// `p2psim run --check`: whether each system's training steps fit where they run (its peers' instances, its gradient
// functions or its worker functions), each line naming the systems it holds, and what the simulation itself will
// hold; exit 3 when something does not fit.
int print_memory_check(const Scenario& s, bool exact_participants) {
  const SystemEstimates e = estimate_systems(s, exact_participants);
  std::vector<std::string> on_peers, on_functions, on_workers;
  for (size_t i = 0; i < e.systems.size(); ++i) {
    if (e.needs[i].steps_on_peers) on_peers.push_back(e.systems[i]->name);
    if (e.needs[i].steps_on_gradient_functions) on_functions.push_back(e.systems[i]->name);
    if (e.needs[i].steps_on_worker_functions) on_workers.push_back(e.systems[i]->name);
  }
  bool all = true;
  if (!s.memory_checked) {
    fmt::print("training memory not checked: the calibration has no memory samples for {}@{}\n",
               s.experiment.workload.model, s.experiment.workload.input_shape);
  } else {
    const double gib = 1024.0 * 1024 * 1024, mib = 1024.0 * 1024;
    auto verdict = [&all](bool fits) {
      all = all && fits;
      return fits ? "fits" : "DOES NOT FIT";
    };
    if (!on_peers.empty())
      for (size_t g = 0; g < s.peer_groups.size(); ++g)  // each type of peer
        fmt::print("{}: a peer ({}, {:.2f} GiB) needs {:.2f} GiB for its largest step: {}\n", fmt::join(on_peers, ", "),
                   s.peer_groups[g].type.name, s.peer_groups[g].memory_bytes / gib, s.peer_groups[g].need_bytes / gib,
                   verdict(s.peer_fits(static_cast<int>(g))));
    // In the function service's MB (MiB, as its memory sizes and the smallest size below), not GiB beside them.
    if (!on_functions.empty()) {  // every invocation fits where the largest does
      const double need = s.largest_invocation_need_bytes();
      fmt::print("{}: a gradient function ({} MB) needs up to {:.0f} MB: {}\n", fmt::join(on_functions, ", "),
                 s.experiment.functions.memory_mb, std::ceil(need / mib), verdict(need <= s.function_memory_bytes));
      const int smallest = s.smallest_function_memory_mb();
      if (smallest > 0)
        fmt::print("smallest gradient function memory that fits: {} MB\n", smallest);
      else
        fmt::print("no gradient function memory up to {} MB fits\n", s.profile.functions.memory_max_mb);
    }
    if (!on_workers.empty()) {  // a worker function holds a whole participant's step (LambdaML: one group)
      double need = 0;
      for (const auto& g : s.peer_groups) need = std::max(need, g.need_bytes);
      fmt::print("{}: a worker function ({} MB) needs {:.0f} MB for its largest step: {}\n", fmt::join(on_workers, ", "),
                 s.experiment.functions.memory_mb, std::ceil(need / mib), verdict(need <= s.function_memory_bytes));
    }
  }
  for (const auto& w : s.experiment.warnings) fmt::print(stderr, "p2psim run: warning: {}\n", w.what());
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

}  // namespace

int parse_replicates(const std::string& text) {
  const auto n = parse_integer(text);
  if (!n || *n < 1 || *n > kMaxReplicates)
    throw UsageError(fmt::format("--replicates: expected 1 to {} replicates, got '{}'", kMaxReplicates, text));
  return static_cast<int>(*n);
}

int run_into(const app::RunOptions& options, const std::string& dir) {
  try {
    write_results(app::run_experiment(options)->result, dir);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  } catch (const app::ReplayInterrupted& e) {
    app::end_by_signal(e.signal);
  }
  return kExitOk;
}

int cmd_run(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("experiment", po::value<std::string>()->required(),
                                                  "experiment file (XML)")(
      "out,o", po::value<std::string>(), "write result.json, result.csv and trace.csv into this directory")(
      "quiet,q", "do not print the table")(
      "replicates", po::value<std::string>(),
      "also simulate N replicates (1-1000), each with the profile's constants drawn from their spreads and a seed of "
      "its own, and report p10/p50/p90 of each system's time and cost")(
      "sensitivity",
      "also simulate every system again with each used mechanism's constants in the profile 10 % slower alone, and "
      "report each system's change in time and cost (sensitivity.csv beside the results)")(
      "check", "only check that every system's peers and functions can hold a training step and that the simulation "
               "fits this machine (its estimated peak memory), and exit: 0 when everything fits, 3 when not")(
      "provenance-base", po::value<std::string>(),
      "name input files in the provenance relative to this folder instead of the experiment's (p2psim sweep "
      "passes its experiment's folder, so that a scenario's provenance does not depend on --out)")(
      "exact-storage-sharing",
      "route functions' and servers' storage transfers through the storage's shared link even while they cannot "
      "fill it (the same results, slower: docs/architecture.md, \"Scale\")")(
      "exact-participants",
      "simulate every participant as an actor even where its design computes it (trees, sharded aggregation and "
      "synchronous parameter servers whose peers compute their own gradients: the same results to SimGrid's "
      "precision, slower)");
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
  if (vm.count("check"))  // it simulates nothing, so these would be silently ignored
    for (const char* idle : {"out", "replicates", "sensitivity", "quiet", "provenance-base", "exact-storage-sharing"})
      if (vm.count(idle))
        throw UsageError(std::string("--check only checks and writes nothing: --") + idle +
                         (std::string(idle) == "quiet" ? " (-q)" : std::string(idle) == "out" ? " (-o)" : "") +
                         " would do nothing with it (run without --check for that)");
  if (vm.count("out")) {
    const std::string out = vm["out"].as<std::string>();
    check_output_dir(out);
    // A sweep's or a merge's table there would be what `report` and `recommend` read, this run's result.csv not.
    for (const char* table : {"sweep.json", "results.csv"})
      if (std::filesystem::exists(std::filesystem::path(out) / table))
        throw UsageError("--out: '" + out + "' holds a sweep's or a merge's results (" + table +
                         "): report and recommend would read those, not this run's; give another --out");
  }
  try {
    if (vm.count("check")) return print_memory_check(app::load_scenario(path), vm.count("exact-participants") > 0);
    app::RunOptions options;
    options.experiment_path = path;
    if (vm.count("provenance-base")) options.provenance_base = vm["provenance-base"].as<std::string>();
    if (vm.count("exact-storage-sharing")) options.storage_sharing = sg::StorageSharing::Exact;
    options.exact_participants = vm.count("exact-participants") > 0;
    if (vm.count("replicates")) options.replicates = parse_replicates(vm["replicates"].as<std::string>());
    options.sensitivity = vm.count("sensitivity") > 0;
    // The schedule and the replay's accuracy go beside the results, or into a folder removed afterwards.
    if (vm.count("out")) options.replay_dir = vm["out"].as<std::string>();
    const auto run = app::run_experiment(options);
    if (!vm.count("quiet")) print_table(run->result, stdout);
    if (vm.count("out")) write_results(run->result, vm["out"].as<std::string>());
    // After the results are written: a damaged record of the validation must not cost the run.
    if (!vm.count("quiet")) print_design_accuracy(run->result);
    if (!vm.count("quiet") && run->result.sensitivity) print_sensitivity(*run->result.sensitivity);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  } catch (const app::ReplayInterrupted& e) {  // Ctrl-C or SIGTERM during the replays: their files are gone
    app::end_by_signal(e.signal);
  }
  return kExitOk;
}

}  // namespace p2psim::cli
