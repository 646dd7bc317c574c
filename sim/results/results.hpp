// From raw runs to what users read: per-system summaries, the paper's two metrics against the baseline, the human table,
// and the result files (JSON, CSV, phase trace), written atomically.
#pragma once
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "../cost/pricing.hpp"
#include "../records/run_output.hpp"
#include "../scenario/scenario.hpp"
#include "replicate_bands.hpp"
#include "sensitivity.hpp"

namespace p2psim {

/// One replayed iteration (`p2psim replay`): when its last update was applied, the run's cost then, and the
/// model's loss and test accuracy (the test ones every few iterations only).
struct AccuracyPoint {
  int iteration = 0;
  double time_s = 0, cost_usd = 0, train_loss = 0;
  std::optional<double> test_loss, test_accuracy;
};

/// Accuracy of a system whose schedule was replayed, or why it was not.
struct AccuracyResult {
  std::string not_replayed;  // why not; empty when replayed
  std::vector<AccuracyPoint> points;
  /// The first evaluated iteration at or above `target`; nullptr when never.
  const AccuracyPoint* first_reaching(double target) const;
  /// The last evaluated iteration; nullptr when none was.
  const AccuracyPoint* last_evaluated() const;
};

/// Means per peer and iteration, seconds (the gradient's per gradient computed: with partial participation,
/// per participant).
struct PhaseMeans {
  // Gradient computation: p2psim's (on functions: from the model's upload to the averaged gradient) and what the
  // paper's compute_gradients timer spans (docs/accuracy.md, "The modelled paper's headline": on functions from
  // StartExecution to the average, the model's distribution left out; on the peer its minibatches and their sum).
  double gradient_s = 0;
  double paper_gradient_s = 0;
  double communication_s = 0;  // send + receive (ring: reduce-scatter + all-gather)
  double aggregate_update_s = 0, barrier_s = 0, iteration_s = 0;
  /// What an iteration spends outside its four parts (gradient, communication, aggregate and update, barrier).
  double other_s() const {
    const double rest = iteration_s - gradient_s - communication_s - aggregate_update_s - barrier_s;
    // What the subtraction leaves of rounding (2e-14 s of a 100 s iteration) is no part of the iteration.
    return rest > 1e-9 * iteration_s ? rest : 0.0;
  }
};

/// One peer group's means (Experiment::peer_groups), when the peers are of several: a fast group's wait for a
/// slow one shows in its communication, barrier and other phases.
struct GroupResult {
  std::string name, instance_type;
  int count = 0;
  PhaseMeans means;
  double end_s = 0;  // when its last peer finished
};

struct SystemResult : PhaseMeans {
  std::string name, strategy;
  RunOutput run;
  Cost cost;
  double total_s = 0;          // until the last peer finishes
  std::map<std::string, double> phase_means_s;  // every phase, per peer-iteration (per invocation for functions)
  std::vector<GroupResult> groups;               // per peer group, when there are several
  std::optional<AccuracyResult> accuracy;        // when the experiment declares <accuracy>
  bool feasible() const { return run.failure.empty(); }
  double staleness_mean() const {
    double sum = 0;
    for (int st : run.staleness) sum += st;
    return run.staleness.empty() ? 0 : sum / static_cast<double>(run.staleness.size());
  }
  int staleness_max() const { return run.staleness.empty() ? 0 : *std::max_element(run.staleness.begin(), run.staleness.end()); }
  /// When the first peer ran out of burstable CPU credits; -1 when none did.
  double credits_exhausted_at_s() const {
    double first = -1;
    for (double t : run.credits_exhausted_at_s)
      if (t >= 0 && (first < 0 || t < first)) first = t;
    return first;
  }
};

SystemResult summarise(const Scenario& s, const SystemSpec& system, RunOutput run);

/// Whether a system's own compute steps are extrapolated beyond the calibration.
bool compute_extrapolated(const Scenario& s, const SystemResult& a);

/// The paper's two metrics, for a system against the baseline.
struct Comparison {
  double gradient_improvement_percent = 0;  // 100 (1 - system / baseline)
  double paper_gradient_improvement_percent = 0;  // the same with the paper's timer
  double cost_ratio = 0;                    // system / baseline
  double total_speedup = 0;                 // baseline's total time / the system's
};

struct Result {
  const Scenario* scenario = nullptr;
  std::map<std::string, std::string> input_hashes;  // file -> xxh64, for provenance
  std::vector<SystemResult> systems;               // in the experiment's order
  std::optional<Replicates> replicates;            // when asked for (run --replicates N)
  std::optional<Sensitivity> sensitivity;          // when asked for (run --sensitivity)
  const SystemResult* baseline() const;
  /// Nothing for the baseline itself, or when either system is infeasible.
  std::optional<Comparison> comparison(const SystemResult& system) const;
};

/// Hex XXH64 of a file's bytes.
std::string file_hash(const std::string& path);

void print_table(const Result& r, std::FILE* out);
nlohmann::ordered_json result_json(const Result& r);
/// Writes result.json, result.csv and trace.csv into `dir` (created if needed), each atomically.
void write_results(const Result& r, const std::string& dir);

}  // namespace p2psim
