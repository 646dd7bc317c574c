// Validation: published measurements of real cloud runs held against p2psim's predictions of the same
// configurations. A case file (validation/**/*.case.xml) names its source, the experiment that reproduces the
// configuration, and the measured values; this layer reads cases, reads predictions out of a simulated
// Result, and compares them. Pure: it runs no simulation itself (the CLI does) and knows no SimGrid.
#pragma once
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "design_accuracy.hpp"
#include "results.hpp"

namespace p2psim::validation {

struct Source {
  std::string group;      // an independent group of measurements, e.g. "GradsSharding"
  std::string reference;  // paper or page
  std::string url;        // where the measured values are, down to the file when there is one
  std::string where;      // table, figure, file and field
  std::string measured;   // when the measurement was taken
};

/// One compared quantity. `kind` decides which summary it joins: time (seconds, or a rate derived from them)
/// or cost (USD).
struct Metric {
  std::string name, kind, unit;  // unit: s (time), MB/s (throughput), USD (cost)
  std::string system;    // the experiment's system it reads
  std::string quantity;  // what is read from the simulated result: see quantities()
  std::vector<std::string> phases;    // phase_span_s, phase_mean_s
  std::vector<std::string> services;  // cost_usd_per_iteration
  int from_iteration = 0;             // trace quantities: iterations before it (cold) are left out
  double measured = 0;
  double spread = 0;         // as published: a standard deviation, or half a percentile band; 0 if none
  std::string spread_kind;   // "sd", or "p10-p90/2" (half the band); "" when none
  std::string derivation;    // how the measured value was obtained from the source, when not read as is
  std::string measured_when;  // when this metric was measured, where the case's metrics differ ("": the source's)
  long line = 0;
};

struct Case {
  // role: "validation"; "calibration" when its data derived a constant; "mechanism" when it checks one mechanism
  // alone, its kernel's speed set by its own source's calibration case (`anchored_by`): shown and recorded, like a
  // calibration case never in the summary, the record or the held-out bands, whose errors it would make look small.
  std::string name, file, role;
  std::string anchored_by;       // a mechanism case's calibration case, by name; "" for the other roles
  long line = 0;                 // the <case> element's, for errors found across cases
  std::string design;            // for the figure's markers: the design measured (e.g. serverless_sharded)
  Source source;
  std::string experiment_path;
  std::vector<Metric> metrics;
  std::string notes;
};

/// The quantities a metric can read, with what each means (for messages and docs).
const std::map<std::string, std::string>& quantities();

/// The date a metric is compared as of (profile_history.hpp): its own `measured_when`, else its source's
/// `measured`, when that is a date (YYYY-MM[-DD]) or a bound ("before 2021-06 ...", "after 2023-01 ...": the bound
/// itself, exact where the bound's value is the profile's earliest or latest); "" when neither tells.
std::string measurement_date(const Case& c, const Metric& m);

/// Every *.case.xml under `dir`, sorted by case name. Throws InputError naming file:line:field.
std::vector<Case> load_cases(const std::string& dir);
Case load_case(const std::string& path);

/// The value `m` reads from one system's simulated result. Throws InputError (naming the metric's line) when
/// the result does not have it, e.g. a phase the design never runs.
double predict(const Case& c, const Metric& m, const Scenario& s, const SystemResult& r);

struct Row {
  const Case* c = nullptr;
  const Metric* m = nullptr;
  double predicted = 0;
  /// The prediction's p10-p90 band over the replicates (the profile's constants drawn from their spreads, other
  /// seeds); empty when none ran. A well-calibrated model's bands hold about 80 % of the measured values.
  std::optional<std::pair<double, double>> band = std::nullopt;
  /// The date the profile's <history> was applied for (the measurement's, profile_history.hpp); "": as written.
  std::string profile_as_of = {};
  double error_percent() const { return 100.0 * (predicted / m->measured - 1.0); }
  /// The error in time (or cost): a rate's as the error in the time to move the same bytes at it, so that below
  /// 0 always means p2psim predicts faster (or cheaper) than was measured.
  double time_error_percent() const { return as_time_error(predicted); }
  /// The band as time errors, low to high (a rate's high end is the short time); empty without a band.
  std::optional<std::pair<double, double>> time_error_band_percent() const {
    if (!band) return std::nullopt;
    const double a = as_time_error(band->first), b = as_time_error(band->second);
    return std::make_pair(std::min(a, b), std::max(a, b));
  }
  /// The error of `value` as a time or a cost (time_error_percent()).
  double as_time_error(double value) const {
    return 100.0 * (m->kind == "throughput" ? m->measured / value - 1.0 : value / m->measured - 1.0);
  }
  bool covered() const { return band && m->measured >= band->first && m->measured <= band->second; }
  /// The p10-p90 of the errors of the validation sources other than this row's (band_by_other_sources()), as time
  /// errors in %; empty for a calibration row, or with fewer than two other sources.
  std::optional<std::pair<double, double>> held_out_band_percent = std::nullopt;
  bool inside_held_out_band() const {
    return held_out_band_percent && time_error_percent() >= held_out_band_percent->first &&
           time_error_percent() <= held_out_band_percent->second;
  }
};

/// What p2psim's errors on measured runs say about a prediction's: the 10th and 90th percentiles of a set of
/// rows' time errors (time_error_percent()), each independent source weighing alike however many metrics it has
/// (error_spread.cpp says why). Below 0 p2psim predicted faster (or cheaper) than was measured, so a run predicted
/// to take T took between T / (1 + p90 / 100) and T / (1 + p10 / 100) in 80 % of such comparisons.
struct ErrorSpread {
  int sources = 0;
  double p10_percent = 0, p90_percent = 0;
};
/// The fewest sources a spread is drawn from: one source's errors are its setup's, not the model's.
inline constexpr size_t kMinSourcesForSpread = 2;
/// The spread of `rows`; empty with fewer than kMinSourcesForSpread sources.
std::optional<ErrorSpread> error_spread(const std::vector<const Row*>& rows);
/// Sets each validation row's held_out_band_percent to the spread of the time errors (times and rates) of every
/// other source's validation rows: how far p2psim's errors on sources it was not held to predict its error on
/// this one. The share of rows inside is an honest coverage, as no row's band is drawn from its own source.
/// Throws InputError (the case's file, the metric's line) for a validation row predicted at 0 or not finite.
void band_by_other_sources(std::vector<Row>& rows);

struct Summary {
  int n = 0;
  double median_abs_percent = 0, worst_abs_percent = 0;
  /// Rows p2psim predicts faster (or cheaper) than was measured: time_error_percent() below 0. Which way a
  /// design's errors lean, which |error| hides.
  int faster = 0;
  const Row* worst = nullptr;
  int banded = 0, covered = 0;  // rows with a replicate band, and those whose measured value lies inside it
  /// The rows' spread (empty with fewer than two sources), and how many have a band drawn from the other sources'
  /// errors and lie inside it.
  int sources = 0;
  std::optional<ErrorSpread> spread = std::nullopt;
  int held_out_banded = 0, held_out_covered = 0;
};
/// Over the rows of `role` (the summary's: "validation") of one kind group ("time": time and throughput; "cost":
/// cost), and of one case design when `design` is not empty.
Summary summarise(const std::vector<Row>& rows, const std::string& group, const std::string& design = "",
                  const std::string& role = "validation");
/// summarise() of each design of the validation-role rows of one kind group, designs sorted: how well p2psim
/// predicts the design, or the mechanism, a user is deciding on; what `validate` prints under its summary and
/// writes into validation.json.
std::vector<std::pair<std::string, Summary>> summaries_by_design(const std::vector<Row>& rows, const std::string& group);
/// summaries_by_design() of both kind groups, time first: what `validate --record` keeps in accuracy_by_design.csv
/// for `run` to print.
std::vector<DesignAccuracy> accuracy_by_design(const std::vector<Row>& rows);

/// Validation metrics p2psim cannot tell apart: of one summary group and unit, and predicted alike (to a
/// millionth). However its constants are set, p2psim gives them one value while it treats their configurations
/// as one, so their measurements alone put a floor under its errors: the single value that best meets the
/// group's smallest and largest measurement misses both by (largest - smallest) / (largest + smallest).
struct AlikeGroup {
  std::vector<const Row*> rows;  // two or more, in the order of `rows`
  double floor_percent = 0;
};
/// Over the validation-role rows of one kind group, as summarise(); the groups by floor, largest first.
std::vector<AlikeGroup> predicted_alike(const std::vector<Row>& rows, const std::string& group);

/// The recorded absolute errors (validation/recorded_errors.csv: case,metric,abs_error_percent).
std::map<std::pair<std::string, std::string>, double> load_recorded(const std::string& path);
std::string recorded_csv(const std::vector<Row>& rows);
/// One line per row whose error grew past its recorded value by more than `tolerance_points`, or that has no
/// recorded value; empty when none did.
std::vector<std::string> regressions(const std::vector<Row>& rows,
                                     const std::map<std::pair<std::string, std::string>, double>& recorded,
                                     double tolerance_points);

}  // namespace p2psim::validation
