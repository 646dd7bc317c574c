#include "columns.hpp"

#include <fmt/core.h>

#include "../records/accuracy_columns.hpp"

namespace p2psim {
namespace {

std::string num(double v) { return fmt::format("{:.9g}", v); }
// A time of the run: empty where the system is infeasible, whose times mean nothing (a table sorted by time would
// otherwise put a system that stopped early first); its cost, what it spent before it failed, stays.
std::string seconds(const SystemResult& system, double v) { return system.feasible() ? num(v) : ""; }
constexpr const char* kEmptyWhereInfeasible = "; empty where the system is infeasible";
template <class T>
std::string text(const T& v) {
  return fmt::format("{}", v);
}
const Experiment& experiment(const SystemRow& r) { return r.result.scenario->experiment; }
const Cost& cost(const SystemRow& r) { return r.system.cost; }
// A cell of the comparison against the baseline; empty where there is none.
std::string compared(const SystemRow& r, double Comparison::*field) {
  return r.comparison ? num((*r.comparison).*field) : "";
}
// The replay's accuracy columns: empty without <accuracy>, or when not replayed, or not reached.
const AccuracyPoint* last_evaluated(const SystemRow& r) {
  return r.system.accuracy ? r.system.accuracy->last_evaluated() : nullptr;
}
const AccuracyPoint* reaching_target(const SystemRow& r) {
  return r.system.accuracy ? r.system.accuracy->first_reaching(experiment(r).accuracy.target) : nullptr;
}
// A band of the replicates: empty without replicates, or when the system never finished in them.
std::string band(const SystemRow& r, const char* quantity, double Band::*percentile) {
  if (!r.result.replicates) return "";
  const auto* sr = r.result.replicates->of(r.system.name);
  if (!sr || sr->feasible == 0) return "";
  return num(sr->bands.at(quantity).*percentile);
}
// Free text, quoted as RFC 4180 says (commas, quotes from a user's model name), always.
std::string quoted(const std::string& v) {
  std::string q = "\"";
  for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

using C = Column<SystemRow>;
C configuration(const char* name, const char* meaning, std::function<std::string(const SystemRow&)> cell) {
  return {name, meaning, std::move(cell), "configuration"};
}
C iteration_part(const char* name, const char* label, int rank, const char* meaning, double PhaseMeans::*field) {
  return {name, std::string(meaning) + kEmptyWhereInfeasible,
          [field](const SystemRow& r) { return seconds(r.system, r.system.*field); }, "iteration_part", label, rank};
}
C service(const char* name, const char* label, int rank, const char* meaning, double Cost::*field) {
  return {name, meaning, [field](const SystemRow& r) { return num(cost(r).*field); }, "cost_by_service", label, rank};
}

std::vector<C> make_result_columns() {
  std::vector<C> c{
      {"experiment", "the experiment's name", [](const SystemRow& r) { return experiment(r).name; }},
      configuration("system", "the system's name in the experiment", [](const SystemRow& r) { return r.system.name; }),
      configuration("strategy", "its design (docs/designs.md)", [](const SystemRow& r) { return r.system.strategy; }),
      configuration("model", "the model trained", [](const SystemRow& r) { return experiment(r).workload.model; }),
      configuration("input_shape", "its input, CxHxW",
                    [](const SystemRow& r) { return experiment(r).workload.input_shape; }),
      configuration("dataset", "the dataset", [](const SystemRow& r) { return experiment(r).workload.dataset; }),
      configuration("peers", "peers (instances, or LambdaML's workers)",
                    [](const SystemRow& r) { return text(experiment(r).peers); }),
      configuration("instance_type", "the peers' instance type (groups: 8xt3.medium+4xc5.large)",
                    [](const SystemRow& r) { return experiment(r).instance_type; }),
      configuration("function_memory_mb", "the gradient functions' memory size, MB",
                    [](const SystemRow& r) { return text(experiment(r).functions.memory_mb); }),
      configuration("function_arch", "the functions' architecture",
                    [](const SystemRow& r) { return experiment(r).functions.arch; }),
      configuration("iterations", "training iterations",
                    [](const SystemRow& r) { return text(experiment(r).workload.iterations); }),
      configuration("transport", "how gradients travel between peers",
                    [](const SystemRow& r) { return r.system.run.transport; }),
      iteration_part("gradient_s_per_iteration", "gradient computation", 0,
                     "gradient computation per peer-iteration (per gradient computed), s", &PhaseMeans::gradient_s),
      iteration_part("communication_s_per_iteration", "communication", 1, "sending and receiving, s",
                     &PhaseMeans::communication_s),
      iteration_part("aggregate_update_s_per_iteration", "aggregate and update", 2,
                     "averaging and the optimiser step, s", &PhaseMeans::aggregate_update_s),
      iteration_part("barrier_s_per_iteration", "barrier", 3, "waiting at the iteration's barrier, s",
                     &PhaseMeans::barrier_s),
      {"iteration_s", std::string("a peer's iteration, s") + kEmptyWhereInfeasible,
       [](const SystemRow& r) { return seconds(r.system, r.system.iteration_s); }},
      {"total_s", std::string("until the last peer finishes, s") + kEmptyWhereInfeasible,
       [](const SystemRow& r) { return seconds(r.system, r.system.total_s); }},
      service("instances_usd", "instances", 0, "the peers' and servers' instances, USD", &Cost::instances_usd),
      service("broker_usd", "broker", 6, "the message broker, USD", &Cost::broker_usd),
      service("function_compute_usd", "function compute", 2, "functions' GB-seconds, USD", &Cost::function_compute_usd),
      service("function_requests_usd", "function requests", 3, "functions' requests, USD",
              &Cost::function_requests_usd),
      service("workflow_usd", "workflow", 4, "the workflow service's state transitions, USD", &Cost::workflow_usd),
      service("storage_usd", "storage", 5, "object storage requests, USD", &Cost::storage_usd),
      {"total_usd", "the whole bill, USD", [](const SystemRow& r) { return num(cost(r).total_usd()); }},
      {"function_invocations", "function invocations",
       [](const SystemRow& r) { return text(r.system.run.ledger.function_runs.size()); }},
      {"cold_starts", "function cold starts", [](const SystemRow& r) { return text(r.system.run.cold_starts); }},
      {"function_memory_used_mb",
       "the memory sizes its functions ran at, MB, '/' between them (a design may size its own: sharded reducers, "
       "tree aggregators); empty when it ran none",
       [](const SystemRow& r) { return memory_sizes_text(r.system.run.ledger.function_runs, ""); }},
  };
  // Mean duration of each phase where it occurs (per peer-iteration, or per invocation for functions), in the
  // phases' own order.
  for (int p = 0; p < kPhaseCount; ++p) {
    const std::string phase = to_string(Phase(p));
    // Kept where the system is infeasible: what its phases took before it stopped says how it failed.
    c.push_back({"phase_" + phase + "_s", "mean " + phase + " where it occurs (per peer-iteration, or invocation), s",
                 [phase](const SystemRow& r) {
                   const auto it = r.system.phase_means_s.find(phase);
                   return num(it == r.system.phase_means_s.end() ? 0.0 : it->second);
                 }});
  }
  std::vector<C> rest{
      service("cpu_credit_surplus_usd", "CPU credits", 1, "burstable instances' surplus CPU credits, USD",
              &Cost::cpu_credits_usd),
      {"credits_exhausted_at_s", "when the first burstable peer's CPU credit balance reached zero (standard mode: throttled to its baseline "
                                   "from then; unlimited mode: surplus credits spent from then, billed unless repaid), s; empty when none did",
       [](const SystemRow& r) {
         const double at = r.system.credits_exhausted_at_s();
         return at < 0 ? std::string() : num(at);
       }},
      {"baseline", "the system the comparisons are against", [](const SystemRow& r) { return experiment(r).baseline; }},
      {"gradient_improvement_vs_baseline_percent", "100 (1 - gradient time / the baseline's), %",
       [](const SystemRow& r) { return compared(r, &Comparison::gradient_improvement_percent); }},
      {"cost_ratio_vs_baseline", "counted cost / the baseline's",
       [](const SystemRow& r) { return compared(r, &Comparison::cost_ratio); }},
      {"compute_usd", "the bill's compute (instances, CPU credits, function GB-seconds and requests), USD",
       [](const SystemRow& r) { return num(cost(r).compute_usd()); }},
      {"orchestration_usd", "the bill's orchestration (the workflow service), USD",
       [](const SystemRow& r) { return num(cost(r).orchestration_usd()); }},
      {"counted_usd", "the cost the ratio counts, USD",
       [](const SystemRow& r) { return num(cost(r).counted_usd(experiment(r).cost_includes_broker)); }},
      {"cost_ratio_includes_broker", "whether the counted cost includes the broker",
       [](const SystemRow& r) { return text(experiment(r).cost_includes_broker); }},
      {"compute_extrapolated", "whether its compute steps are extrapolated beyond the calibration",
       [](const SystemRow& r) { return text(compute_extrapolated(*r.result.scenario, r.system)); }},
      {"target_accuracy", "the experiment's target test accuracy",
       [](const SystemRow& r) { return experiment(r).accuracy.enabled ? num(experiment(r).accuracy.target) : ""; }},
      {"final_test_accuracy", "the replay's last evaluated test accuracy",
       [](const SystemRow& r) {
         const AccuracyPoint* last = last_evaluated(r);
         return last ? num(*last->test_accuracy) : "";
       }},
      {"iterations_to_target", "iterations until the target accuracy",
       [](const SystemRow& r) {
         const AccuracyPoint* hit = reaching_target(r);
         return hit ? text(hit->iteration + 1) : "";
       }},
      {"time_to_target_s", "time until the target accuracy, s",
       [](const SystemRow& r) {
         const AccuracyPoint* hit = reaching_target(r);
         return hit ? num(hit->time_s) : "";
       }},
      {"cost_to_target_usd", "cost until the target accuracy, USD",
       [](const SystemRow& r) {
         const AccuracyPoint* hit = reaching_target(r);
         return hit ? num(hit->cost_usd) : "";
       }},
      {"profile", "the cloud profile's name", [](const SystemRow& r) { return r.result.scenario->profile.name; }},
      {"p2psim_version", "the p2psim that wrote it", [](const SystemRow&) { return std::string(P2PSIM_VERSION); }},
      {"status", "ok, or infeasible", [](const SystemRow& r) { return std::string(r.system.feasible() ? "ok" : "infeasible"); }},
      {"reason", "why it is infeasible", [](const SystemRow& r) { return quoted(r.system.run.failure); }},
      {"replicates", "replicates drawn (run --replicates)",
       [](const SystemRow& r) { return r.result.replicates ? text(r.result.replicates->n) : ""; }},
      {"total_s_p10", "total_s's 10th percentile over the replicates, s",
       [](const SystemRow& r) { return band(r, "total_s", &Band::p10); }},
      {"total_s_p50", "its median, s", [](const SystemRow& r) { return band(r, "total_s", &Band::p50); }},
      {"total_s_p90", "its 90th percentile, s", [](const SystemRow& r) { return band(r, "total_s", &Band::p90); }},
      {"total_usd_p10", "total_usd's 10th percentile over the replicates, USD",
       [](const SystemRow& r) { return band(r, "total_usd", &Band::p10); }},
      {"total_usd_p50", "its median, USD", [](const SystemRow& r) { return band(r, "total_usd", &Band::p50); }},
      {"total_usd_p90", "its 90th percentile, USD", [](const SystemRow& r) { return band(r, "total_usd", &Band::p90); }},
      {"paper_gradient_s_per_iteration",
       std::string("gradient time as the modelled paper's timer spans it, s") + kEmptyWhereInfeasible,
       [](const SystemRow& r) { return seconds(r.system, r.system.paper_gradient_s); }},
      {"paper_gradient_improvement_vs_baseline_percent", "the improvement with the paper's timer, %",
       [](const SystemRow& r) { return compared(r, &Comparison::paper_gradient_improvement_percent); }},
      {"total_time_speedup_vs_baseline", "the baseline's total time / this one's",
       [](const SystemRow& r) { return compared(r, &Comparison::total_speedup); }},
      {"other_s_per_iteration", std::string("what an iteration spends outside its four parts, s") + kEmptyWhereInfeasible,
       [](const SystemRow& r) { return seconds(r.system, r.system.other_s()); }},
      {"mechanisms", "the cloud mechanisms the run used, ';' between them (docs/accuracy.md, \"By design\")",
       [](const SystemRow& r) {
         std::string joined;
         for (const auto& name : mechanism_names(r.system.run.mechanisms)) joined += (joined.empty() ? "" : ";") + name;
         return joined;
       }},
      {"seed", "the experiment's seed", [](const SystemRow& r) { return text(experiment(r).seed); }},
  };
  c.insert(c.end(), rest.begin(), rest.end());
  return c;
}

std::vector<Column<GroupRow>> make_group_columns() {
  using G = Column<GroupRow>;
  auto mean = [](const char* name, const char* meaning, double PhaseMeans::*field) {
    return G{name, std::string(meaning) + kEmptyWhereInfeasible,
             [field](const GroupRow& r) { return seconds(r.system, r.group.means.*field); }};
  };
  return {
      {"experiment", "the experiment's name", [](const GroupRow& r) { return r.result.scenario->experiment.name; }},
      {"system", "the system's name", [](const GroupRow& r) { return r.system.name; }},
      {"group", "the peer group's name", [](const GroupRow& r) { return r.group.name; }},
      {"instance_type", "its instance type", [](const GroupRow& r) { return r.group.instance_type; }},
      {"count", "its peers", [](const GroupRow& r) { return text(r.group.count); }},
      mean("gradient_s_per_iteration", "its gradient computation per peer-iteration, s", &PhaseMeans::gradient_s),
      mean("communication_s_per_iteration", "its communication, s", &PhaseMeans::communication_s),
      mean("aggregate_update_s_per_iteration", "its averaging and update, s", &PhaseMeans::aggregate_update_s),
      mean("barrier_s_per_iteration", "its wait at the barrier, s", &PhaseMeans::barrier_s),
      {"other_s_per_iteration", std::string("what its iteration spends outside the four parts, s") + kEmptyWhereInfeasible,
       [](const GroupRow& r) { return seconds(r.system, r.group.means.other_s()); }},
      mean("iteration_s", "its peers' iteration, s", &PhaseMeans::iteration_s),
      {"end_s", std::string("when its last peer finished, s") + kEmptyWhereInfeasible,
       [](const GroupRow& r) { return seconds(r.system, r.group.end_s); }},
      {"status", "the system's: ok, or infeasible",
       [](const GroupRow& r) { return std::string(r.system.feasible() ? "ok" : "infeasible"); }},
  };
}

std::vector<Column<PhaseRecord>> make_trace_columns() {
  return {{"system", "the system's name", {}},
          {"peer", "the peer; -1 for a design's shared participants (aggregators, servers)", {}},
          {"iteration", "the peer's iteration", {}},
          {"invocation", "the function invocation or aggregator it belongs to; -1 for the peer's own phases", {}},
          {"phase", "the phase (result schema: phases)", {}},
          {"start_s", "when it began, s", {}},
          {"end_s", "when it ended, s", {}},
          {"duration_s", "end_s - start_s, s", {}}};
}

std::vector<Column<validation::Row>> make_validation_columns() {
  using V = Column<validation::Row>;
  using R = validation::Row;
  // Every text field is a checked name or one of a few choices: nothing to quote.
  return {
      V{"case", "the validation case", [](const R& r) { return r.c->name; }},
      V{"metric", "its metric", [](const R& r) { return r.m->name; }},
      V{"role", "validation (in the summary), calibration (a source that set a constant: shown, not counted) or "
                "mechanism (one mechanism checked alone, its kernel's speed set by its own source's calibration case: "
                "shown, not counted)",
        [](const R& r) { return r.c->role; }},
      V{"design", "the design the case measured", [](const R& r) { return r.c->design; }},
      V{"source_group", "the independent source it comes from", [](const R& r) { return r.c->source.group; }},
      V{"kind", "what is measured (time, throughput, cost)", [](const R& r) { return r.m->kind; }},
      V{"unit", "the measured value's unit", [](const R& r) { return r.m->unit; }},
      V{"measured", "the published value", [](const R& r) { return num(r.m->measured); }},
      V{"spread", "its spread as published", [](const R& r) { return num(r.m->spread); }},
      V{"spread_kind", "what the spread is (sd, range, ...)", [](const R& r) { return r.m->spread_kind; }},
      V{"predicted", "p2psim's prediction", [](const R& r) { return num(r.predicted); }},
      V{"error_percent", "100 (predicted / measured - 1), %",
        [](const R& r) { return fmt::format("{:.3f}", r.error_percent()); }},
      V{"predicted_p10", "the prediction's 10th percentile over the replicates",
        [](const R& r) { return r.band ? num(r.band->first) : ""; }},
      V{"predicted_p90", "its 90th percentile", [](const R& r) { return r.band ? num(r.band->second) : ""; }},
      V{"time_error_percent",
        "the error as a time or a cost: a rate's as the error of the time to move the same bytes at it (a rate 50 % "
        "low: +100 %), so that below 0 p2psim is always faster or cheaper than measured, %",
        [](const R& r) { return fmt::format("{:.3f}", r.time_error_percent()); }},
      V{"time_error_p10_percent", "the band's short (or cheap) end as such an error, %",
        [](const R& r) {
          const auto b = r.time_error_band_percent();
          return b ? fmt::format("{:.3f}", b->first) : std::string();
        }},
      V{"time_error_p90_percent", "its long (or dear) end, %",
        [](const R& r) {
          const auto b = r.time_error_band_percent();
          return b ? fmt::format("{:.3f}", b->second) : std::string();
        }},
      V{"held_out_error_p10_percent",
        "the 10th percentile of the time errors of every other validation source (each weighing alike): where this "
        "row's time_error_percent would fall by p2psim's record on sources other than its own; empty for a "
        "calibration row, %",
        [](const R& r) { return r.held_out_band_percent ? fmt::format("{:.3f}", r.held_out_band_percent->first) : std::string(); }},
      V{"held_out_error_p90_percent", "their 90th percentile, %",
        [](const R& r) { return r.held_out_band_percent ? fmt::format("{:.3f}", r.held_out_band_percent->second) : std::string(); }},
      V{"profile_as_of",
        "the date the platform was simulated as of, the measurement's (each constant of the profile's <history> "
        "takes its value measured nearest to it); empty: the profile as written (validate --today, or no date)",
        [](const R& r) { return r.profile_as_of; }},
  };
}

std::vector<Column<DesignAccuracy>> make_design_accuracy_columns() {
  using A = Column<DesignAccuracy>;
  using R = DesignAccuracy;
  auto percent = [](double v) { return fmt::format("{:.1f}", v); };
  return {
      A{"design", "a strategy's name, or a mechanism a microbenchmark measured alone (a validation case's design); "
                  "every_design: every validation metric of the kind",
        [](const R& r) { return r.design; }},
      A{"kind", "time (seconds and rates) or cost", [](const R& r) { return r.kind; }},
      A{"metrics", "its validation metrics of that kind", [](const R& r) { return std::to_string(r.metrics); }},
      A{"median_abs_error_percent", "their median |predicted / measured - 1|, %",
        [percent](const R& r) { return percent(r.median_abs_error_percent); }},
      A{"worst_abs_error_percent", "their largest, %", [percent](const R& r) { return percent(r.worst_abs_error_percent); }},
      A{"predicted_faster", "how many p2psim predicts faster (a shorter time, a higher rate) or cheaper than measured",
        [](const R& r) { return std::to_string(r.predicted_faster); }},
      A{"with_band", "how many have a replicate band", [](const R& r) { return std::to_string(r.with_band); }},
      A{"inside_band", "how many measured values lie inside their predicted p10-p90",
        [](const R& r) { return std::to_string(r.inside_band); }},
      A{"sources", "the independent sources of its metrics", [](const R& r) { return std::to_string(r.sources); }},
      A{"error_p10_percent",
        "the 10th percentile of their time errors (predicted over measured time, or cost, - 1; a rate's as the time "
        "to move the same bytes), each source weighing alike; empty from one source, %",
        [percent](const R& r) { return r.error_p10_percent ? percent(*r.error_p10_percent) : std::string(); }},
      A{"error_p90_percent", "their 90th percentile, %",
        [percent](const R& r) { return r.error_p90_percent ? percent(*r.error_p90_percent) : std::string(); }},
      A{"held_out_with_band", "how many have a band drawn from the other sources' errors (their p10-p90)",
        [](const R& r) { return std::to_string(r.held_out_with_band); }},
      A{"held_out_inside_band", "how many lie inside it", [](const R& r) { return std::to_string(r.held_out_inside_band); }},
  };
}

template <class Row>
nlohmann::ordered_json describe(const std::vector<Column<Row>>& columns) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& c : columns) {
    nlohmann::ordered_json entry{{"name", c.name}, {"meaning", c.meaning}};
    if (!c.part.empty()) entry["part"] = c.part;
    if (!c.label.empty()) entry["label"] = c.label, entry["rank"] = c.rank;
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

const std::vector<Column<SystemRow>>& result_columns() {
  static const auto columns = make_result_columns();
  return columns;
}
const std::vector<Column<GroupRow>>& group_columns() {
  static const auto columns = make_group_columns();
  return columns;
}
const std::vector<Column<PhaseRecord>>& trace_columns() {
  static const auto columns = make_trace_columns();
  return columns;
}

const std::vector<Column<validation::Row>>& validation_columns() {
  static const auto columns = make_validation_columns();
  return columns;
}

namespace {
std::vector<Column<SensitivityRow>> make_sensitivity_columns() {
  using S = Column<SensitivityRow>;
  using R = SensitivityRow;
  auto if_feasible = [](double R::*field) {
    return [field](const R& r) { return r.feasible ? fmt::format("{:.6f}", r.*field) : std::string(); };
  };
  return {
      S{"group", "a mechanism's name (its constants), or object_storage_first_byte", [](const R& r) { return r.group; }},
      S{"label", "what the group's constants are, quoted", [](const R& r) { return "\"" + r.label + "\""; }},
      S{"system", "the system's name", [](const R& r) { return r.system; }},
      S{"slowdown", "each of the group's times times this, each rate over it", [](const R& r) { return num(r.slowdown); }},
      S{"feasible", "true: the system trained both as it is and with the group slower",
        [](const R& r) { return std::string(r.feasible ? "true" : "false"); }},
      S{"time_change_percent", "its total time with the group slower over as it is, - 1, %; empty when not feasible",
        if_feasible(&R::time_change_percent)},
      S{"cost_change_percent", "its total cost likewise, %", if_feasible(&R::cost_change_percent)},
  };
}
}  // namespace

const std::vector<Column<SensitivityRow>>& sensitivity_columns() {
  static const auto columns = make_sensitivity_columns();
  return columns;
}

const std::vector<Column<DesignAccuracy>>& design_accuracy_columns() {
  static const auto columns = make_design_accuracy_columns();
  return columns;
}

nlohmann::ordered_json result_schema() {
  auto phases = nlohmann::ordered_json::array();
  for (const auto& p : kPhases) phases.push_back({{"name", p.name}, {"meaning", p.meaning}});
  auto mechanisms = nlohmann::ordered_json::array();
  for (const auto& m : kMechanisms) mechanisms.push_back({{"name", m.name}, {"label", m.label}});
  auto accuracy = nlohmann::ordered_json::array();
  for (const auto& c : kAccuracyColumns) accuracy.push_back({{"name", c.name}, {"meaning", c.meaning}});
  return {{"about", "the columns of p2psim's result tables, its phases and the mechanisms a run records, written by "
                    "`p2psim schema` from the lists the tables are written with (sim/results/columns.cpp, "
                    "sim/records/phases.hpp, sim/records/mechanisms.hpp)"},
          {"result.csv", describe(result_columns())},
          {"groups.csv", describe(group_columns())},
          {"trace.csv", describe(trace_columns())},
          {"validation.csv", describe(validation_columns())},
          {"accuracy_by_design.csv", describe(design_accuracy_columns())},
          {"sensitivity.csv", describe(sensitivity_columns())},
          {"accuracy.csv", accuracy},
          {"results.csv", {{"first", kScenarioIdColumn},
                           {"then", "a column per sweep axis (its XPath), then result.csv's columns"}}},
          {"phases", phases},
          {"mechanisms", mechanisms}};
}

}  // namespace p2psim
