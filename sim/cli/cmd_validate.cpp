// `p2psim validate [--case NAME] [--out DIR]`: every validation case's experiment simulated, its predictions
// held against the published measurements, the errors summarised, written and drawn; `--check-recorded` fails
// when an error grew past the value recorded in the repository (the CI's regression guard).
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "../app/analysis.hpp"
#include "../app/run_experiment.hpp"
#include "../inputs/experiment.hpp"
#include "../inputs/limits.hpp"
#include "../inputs/replicate_experiment.hpp"
#include "../results/columns.hpp"
#include "../results/validation.hpp"
#include "../simulation/simulate.hpp"
#include "../util/args.hpp"
#include "../util/atomic_file.hpp"
#include "../util/data_dir.hpp"
#include "../util/json_text.hpp"
#include "../util/read_text.hpp"
#include "../util/parse_number.hpp"
#include "commands.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace p2psim::cli {
namespace {

using validation::Case;
using validation::Row;

constexpr int kExitRegression = 3;
constexpr int kRecordedReplicates = 20;  // the default, and what the recorded summary by design was drawn with

// A metric of a case, simulated as of one date.
using Item = std::pair<const Case*, const validation::Metric*>;

// The predictions of the metrics `items` read from `experiment` (each system simulated once), in order.
std::vector<double> predictions(const std::string& path, const Experiment& experiment, const std::vector<Item>& items) {
  const Scenario scenario = resolve_scenario(experiment);
  check_systems(scenario);
  std::vector<const SystemSpec*> systems;  // each system a metric reads, once
  for (const auto& [c, m] : items) {
    auto spec = std::find_if(experiment.systems.begin(), experiment.systems.end(),
                             [&](const SystemSpec& s) { return s.name == m->system; });
    if (spec == experiment.systems.end())
      throw InputError(c->file, m->line, "metric/@system", "experiment " + path + " has no system '" + m->system + "'");
    if (std::find(systems.begin(), systems.end(), &*spec) == systems.end()) systems.push_back(&*spec);
  }
  std::map<std::string, SystemResult> results;
  for (auto& result : app::simulate_systems(scenario, systems)) results.emplace(result.name, std::move(result));
  std::vector<double> out;
  for (const auto& [c, m] : items) out.push_back(validation::predict(*c, *m, scenario, results.at(m->system)));
  return out;
}

// Simulates the systems the metrics `items` read from one experiment, with the platform as of `as_of` ("": as the
// experiment says), and fills their rows; with replicates, each row's p10-p90 band too (a replicate in which a
// system cannot run leaves that replicate out of its band).
void run_experiment(const std::string& path, const std::string& as_of, const std::vector<Item>& items,
                    int replicates, std::vector<Row>& rows) {
  Experiment experiment = load_experiment(path, default_experiment_defaults_path());
  if (!as_of.empty()) experiment.profile_as_of = as_of;
  const auto nominal = predictions(path, experiment, items);
  std::vector<std::vector<double>> drawn(nominal.size());
  const CloudProfile profile = resolve_scenario(experiment).profile;
  for (int r = 0; r < replicates; ++r) {
    std::vector<double> values;
    try {
      values = predictions(path, replicate_experiment(experiment, profile, r), items);
    } catch (const InputError&) {  // e.g. a drawn function too slow for the timeout: no values this time
      continue;
    }
    for (size_t k = 0; k < values.size(); ++k) drawn[k].push_back(values[k]);
  }
  for (size_t k = 0; k < items.size(); ++k) {
    Row row{items[k].first, items[k].second, nominal[k], std::nullopt, experiment.profile_as_of};
    if (!drawn[k].empty()) {
      const Band b = band_of(drawn[k]);
      row.band = std::make_pair(b.p10, b.p90);
    }
    rows.push_back(row);
  }
}

std::string fmt_value(double v) { return fmt::format("{:.4g}", v); }

std::string metric_label(const Row& r) { return r.m->name + " (" + r.m->unit + ")"; }

// What a row that is not in the summary is, after its design.
std::string role_label(const Case& c) {
  if (c.role == "calibration") return " [calibration: not in the summary]";
  if (c.role == "mechanism") return " [mechanism alone, its speed set by " + c.anchored_by + ": not in the summary]";
  return "";
}

void print_rows(const std::vector<Row>& rows) {
  size_t case_w = 4, metric_w = 6;  // as wide as the longest name, so that the columns line up
  for (const auto& r : rows) case_w = std::max(case_w, r.c->name.size()), metric_w = std::max(metric_w, metric_label(r).size());
  fmt::print("{:<{}} {:<{}} {:>12} {:>12} {:>8} {:>21}  {}\n", "case", case_w, "metric", metric_w, "measured",
             "predicted", "error", "p10-p90", "design");
  for (const auto& r : rows)
    fmt::print("{:<{}} {:<{}} {:>12} {:>12} {:>+7.1f}% {:>21}  {}{}\n", r.c->name, case_w, metric_label(r), metric_w,
               fmt_value(r.m->measured), fmt_value(r.predicted), r.error_percent(),
               r.band ? fmt::format("{}{}-{}", r.covered() ? "" : "! ", fmt_value(r.band->first), fmt_value(r.band->second))
                      : "",
               r.c->design, role_label(*r.c));
}

// The floor that measurements of configurations p2psim treats as one put under its errors.
void print_alike(const std::vector<validation::AlikeGroup>& groups) {
  if (groups.empty()) return;
  size_t metrics = 0;
  for (const auto& g : groups) metrics += g.rows.size();
  const auto& widest = groups.front();
  std::vector<std::string> names;
  for (const Row* r : widest.rows) names.push_back(r->c->name + " " + r->m->name);
  fmt::print("        {} of them measure {} group{} of configurations that p2psim cannot tell apart (one prediction a "
             "group): as one value cannot meet measurements that differ, these alone put the worst error at {:.1f} % or "
             "more (the widest group: {})\n",
             metrics, groups.size(), groups.size() == 1 ? "" : "s", widest.floor_percent, fmt::join(names, ", "));
}

// How well each design (or mechanism) is predicted, and which way its errors lean: a user deciding on one design
// reads its line, not the median over all of them.
void print_by_design(const std::vector<Row>& rows, const std::string& group) {
  const auto by_design = validation::summaries_by_design(rows, group);
  if (by_design.size() < 2) return;
  size_t w = 6;
  for (const auto& [d, s] : by_design) w = std::max(w, d.size());
  const bool cost = group == "cost";
  fmt::print("        by design ({}: p2psim predicts {} than was measured):\n", cost ? "cheaper" : "faster",
             cost ? "a lower cost" : "a shorter time or a higher rate");
  for (const auto& [d, s] : by_design) {
    fmt::print("          {:<{}} {:>3} metrics, median |error| {:5.1f} %, worst {:5.1f} %, {} {:>2} of {:>2}", d, w, s.n,
               s.median_abs_percent, s.worst_abs_percent, cost ? "cheaper" : "faster", s.faster, s.n);
    if (s.banded > 0) fmt::print(", {} of {} inside p10-p90", s.covered, s.banded);
    if (s.held_out_banded > 0) fmt::print(", {} of {} held out", s.held_out_covered, s.held_out_banded);
    fmt::print("\n");
  }
}

void print_summary(const std::vector<Row>& rows, std::set<std::string> groups) {
  fmt::print("\nsummary over validation cases ({} sources):\n", groups.size());
  for (const char* group : {"time", "cost"}) {
    const auto s = validation::summarise(rows, group);
    if (s.n == 0) {
      fmt::print("  {:<4}: no case\n", group);
      continue;
    }
    fmt::print("  {:<4}: {} metrics, median |error| {:.1f} %, worst {:.1f} % ({} {})", group, s.n,
               s.median_abs_percent, s.worst_abs_percent, s.worst->c->name, s.worst->m->name);
    if (s.banded > 0)
      fmt::print("; coverage {:.0f} % ({} of {} measured values inside the predicted p10-p90)", 100.0 * s.covered / s.banded,
                 s.covered, s.banded);
    fmt::print("\n");
    if (s.spread)
      fmt::print("        errors p10 {:+.1f} %, p90 {:+.1f} % (each of {} sources weighing alike)\n", s.spread->p10_percent,
                 s.spread->p90_percent, s.sources);
    if (s.held_out_banded > 0)
      fmt::print("        held out: {} of {} ({:.0f} %) inside the p10-p90 of the other sources' time errors (each source "
                 "judged by the errors of the others; a cost here is a time at a price)\n",
                 s.held_out_covered, s.held_out_banded, 100.0 * s.held_out_covered / s.held_out_banded);
    print_alike(validation::predicted_alike(rows, group));
    print_by_design(rows, group);
  }
  const auto m = validation::summarise(rows, "time", "", "mechanism");
  if (m.n > 0)
    fmt::print("mechanisms checked alone (each kernel's speed set by its own source's calibration case; not in the summary, "
               "the record or the held-out bands): {} metrics of {} sources, median |error| {:.1f} %, worst {:.1f} % ({} {})\n",
               m.n, m.sources, m.median_abs_percent, m.worst_abs_percent, m.worst->c->name, m.worst->m->name);
}

nlohmann::ordered_json summary_json(const validation::Summary& s) {
  return {{"metrics", s.n}, {"median_abs_error_percent", s.median_abs_percent},
          {"predicted_faster", s.faster},
          {"worst_abs_error_percent", s.worst_abs_percent},
          {"worst", s.worst ? s.worst->c->name + " " + s.worst->m->name : ""},
          {"with_band", s.banded},
          {"coverage_percent", s.banded > 0 ? nlohmann::ordered_json(100.0 * s.covered / s.banded) : nlohmann::ordered_json()},
          {"sources", s.sources},
          {"error_p10_percent", s.spread ? nlohmann::ordered_json(s.spread->p10_percent) : nlohmann::ordered_json()},
          {"error_p90_percent", s.spread ? nlohmann::ordered_json(s.spread->p90_percent) : nlohmann::ordered_json()},
          {"held_out_with_band", s.held_out_banded},
          {"held_out_coverage_percent", s.held_out_banded > 0
                                            ? nlohmann::ordered_json(100.0 * s.held_out_covered / s.held_out_banded)
                                            : nlohmann::ordered_json()}};
}

// Each case's experiment named relative to the cases' folder, so that the file is the same bytes wherever the
// tree is checked out.
nlohmann::ordered_json rows_json(const std::vector<Row>& rows, const std::string& cases_dir) {
  nlohmann::ordered_json j;
  j["p2psim_version"] = P2PSIM_VERSION;
  for (const char* group : {"time", "cost"}) {
    const auto s = validation::summarise(rows, group);
    j["summary"][group] = summary_json(s);
    auto& by_design = j["summary"][group]["by_design"] = nlohmann::ordered_json::object();
    for (const auto& [d, s] : validation::summaries_by_design(rows, group)) by_design[d] = summary_json(s);
    auto& alike = j["summary"][group]["predicted_alike"] = nlohmann::ordered_json::array();
    for (const auto& g : validation::predicted_alike(rows, group)) {
      auto members = nlohmann::ordered_json::array();
      for (const Row* r : g.rows) members.push_back(r->c->name + " " + r->m->name);
      alike.push_back({{"metrics", members}, {"predicted", g.rows.front()->predicted},
                       {"floor_abs_error_percent", g.floor_percent}});
    }
  }
  // The mechanism cases apart: a summary of their own, never in the one above.
  if (const auto m = validation::summarise(rows, "time", "", "mechanism"); m.n > 0) j["summary"]["mechanisms_alone"] = summary_json(m);
  for (const auto& r : rows) {
    const auto& c = *r.c;
    const auto& m = *r.m;
    j["rows"].push_back({{"case", c.name}, {"metric", m.name}, {"role", c.role}, {"design", c.design},
                         {"kind", m.kind}, {"unit", m.unit}, {"measured", m.measured}, {"spread", m.spread},
                         {"spread_kind", m.spread_kind}, {"predicted", r.predicted},
                         {"error_percent", r.error_percent()},
                         {"predicted_p10", r.band ? nlohmann::ordered_json(r.band->first) : nlohmann::ordered_json()},
                         {"predicted_p90", r.band ? nlohmann::ordered_json(r.band->second) : nlohmann::ordered_json()},
                         {"held_out_error_p10_percent", r.held_out_band_percent ? nlohmann::ordered_json(r.held_out_band_percent->first) : nlohmann::ordered_json()},
                         {"held_out_error_p90_percent", r.held_out_band_percent ? nlohmann::ordered_json(r.held_out_band_percent->second) : nlohmann::ordered_json()},
                         {"quantity", m.quantity}, {"system", m.system},
                         {"source_group", c.source.group}, {"reference", c.source.reference},
                         {"url", c.source.url}, {"where", c.source.where}, {"measured_when", c.source.measured},
                         {"profile_as_of", r.profile_as_of},
                         {"derivation", m.derivation},
                         {"experiment", fs::absolute(c.experiment_path).lexically_normal().lexically_relative(
                                            fs::absolute(cases_dir).lexically_normal()).string()},
                         {"notes", c.notes}});
  }
  return j;
}

std::string rows_csv(const std::vector<Row>& rows) {
  std::string out = csv_header(validation_columns());
  for (const auto& r : rows) out += csv_row(validation_columns(), r);
  return out;
}

}  // namespace

int cmd_validate(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")(
      "cases", po::value<std::string>(), "folder of *.case.xml (default: the validation/ folder of p2psim's data)")(
      "case", po::value<std::vector<std::string>>(), "run only this case (repeatable)")(
      "out,o", po::value<std::string>(), "write validation.json, validation.csv and the figures validation.png/.svg and validation_errors.png/.svg here")(
      "check-recorded", "exit 3 when any error grew past its recorded value by more than --tolerance-points")(
      "tolerance-points", po::value<std::string>()->default_value("5"), "allowed growth of an error, in points")(
      "record", "rewrite the recorded errors (CASES/recorded_errors.csv) with this run's")(
      "replicates", po::value<std::string>()->default_value(std::to_string(kRecordedReplicates)),
      "replicates per case for the predictions' p10-p90 bands and their coverage (0: none; p2psim run --help)")(
      "today", "simulate every case with the profile as written (its latest measurements), not as of the date "
               "each case was measured")(
      "quiet,q", "print only the summary");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim validate [--case NAME] [--out DIR] [--check-recorded]\n"
                     "Simulates every validation case (a published measurement of a real cloud run and the\n"
                     "experiment of its configuration) and prints predicted against measured. validation/README.md\n"
                     "explains the cases and their sources.",
                     vm))
    return kExitOk;
  const std::string dir = vm.count("cases") ? vm["cases"].as<std::string>() : data_dir() + "/validation";
  const auto tolerance_parsed = parse_real(vm["tolerance-points"].as<std::string>());
  if (!tolerance_parsed || !(*tolerance_parsed >= 0 && *tolerance_parsed <= 100))
    throw UsageError("--tolerance-points: expected a number of percentage points in [0, 100]");
  const double tolerance = *tolerance_parsed;
  const auto replicates_parsed = parse_integer(vm["replicates"].as<std::string>());
  if (!replicates_parsed || *replicates_parsed < 0 || *replicates_parsed > kMaxReplicates)
    throw UsageError(fmt::format("--replicates: expected 0 to {} replicates, got '{}'", kMaxReplicates,
                                 vm["replicates"].as<std::string>()));
  const int replicates = static_cast<int>(*replicates_parsed);
  // Where results go, checked before the cases run: a bad path must not cost the whole validation.
  const std::string recorded_path = (fs::path(dir) / "recorded_errors.csv").string();
  const std::string by_design_path = (fs::path(dir) / kAccuracyByDesignFile).string();
  // The record holds each case as of its date: today's profile is compared with nothing recorded.
  if (vm.count("today") && (vm.count("record") || vm.count("check-recorded")))
    throw UsageError("--today: the recorded errors are of each case as of its date; run --record and "
                     "--check-recorded without --today");
  if (vm.count("record")) {
    if (vm.count("case")) throw UsageError("--record rewrites every case's error: run it without --case");
    check_output_file(recorded_path, "record");
    check_output_file(by_design_path, "record");
  }
  if (vm.count("out")) check_output_dir(vm["out"].as<std::string>());
  std::vector<Row> rows;
  std::vector<Case> cases;
  try {
    cases = validation::load_cases(dir);
    if (vm.count("case")) {
      std::vector<Case> chosen;
      for (const auto& name : vm["case"].as<std::vector<std::string>>()) {
        auto it = std::find_if(cases.begin(), cases.end(), [&](const Case& c) { return c.name == name; });
        if (it == cases.end()) throw UsageError("--case " + name + ": no such case in " + dir);
        // Twice would count its metrics twice in the summary.
        if (std::any_of(chosen.begin(), chosen.end(), [&](const Case& c) { return c.name == name; }))
          throw UsageError("--case " + name + ": given twice");
        chosen.push_back(*it);
      }
      cases = chosen;
    }
    if (cases.empty()) throw UsageError(dir + ": no *.case.xml");
    // Each experiment simulated once per date: a metric is compared with the platform as of when it was measured
    // (validation::measurement_date), unless --today.
    std::map<std::pair<std::string, std::string>, std::vector<Item>> by_experiment;
    for (const auto& c : cases)
      for (const auto& m : c.metrics)
        by_experiment[{c.experiment_path, vm.count("today") ? "" : validation::measurement_date(c, m)}].push_back({&c, &m});
    for (const auto& [key, items] : by_experiment) run_experiment(key.first, key.second, items, replicates, rows);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  // By case, then in each case's order of metrics (a case's metrics of two dates were simulated apart).
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_pair(a.c->name, a.m - a.c->metrics.data()) < std::make_pair(b.c->name, b.m - b.c->metrics.data());
  });
  try {
    validation::band_by_other_sources(rows);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  std::set<std::string> groups;
  for (const auto& c : cases)
    if (c.role == "validation") groups.insert(c.source.group);  // the summary's: calibration cases are apart
  if (!vm.count("quiet")) print_rows(rows);
  print_summary(rows, groups);
  if (vm.count("out")) {
    const std::string out = vm["out"].as<std::string>();
    fs::create_directories(out);
    write_file_atomically(fs::path(out) / "validation.json", json_text(rows_json(rows, dir), 2) + "\n");
    write_file_atomically(fs::path(out) / "validation.csv", rows_csv(rows));
    app::run_analysis("validation-figure", {out});  // the figures: the analysis layer draws them
    fmt::print("wrote {}/validation.json, validation.csv, validation.png/.svg and validation_errors.png/.svg\n", out);
  }
  const std::string by_design = accuracy_by_design_csv(validation::accuracy_by_design(rows));
  if (vm.count("record")) {
    write_file_atomically(recorded_path, validation::recorded_csv(rows));
    write_file_atomically(by_design_path, by_design);
    fmt::print("recorded the errors in {} and the summary by design in {}\n", recorded_path, by_design_path);
  }
  if (vm.count("check-recorded")) {
    std::map<std::pair<std::string, std::string>, double> recorded;
    try {
      recorded = validation::load_recorded(recorded_path);
    } catch (const InputError& e) {
      throw UsageError(e.what());
    }
    const auto grown = validation::regressions(rows, recorded, tolerance);
    if (!grown.empty()) {
      fmt::print(stderr, "p2psim validate: {} metric(s) got worse than recorded in {}:\n", grown.size(), recorded_path);
      for (const auto& g : grown) fmt::print(stderr, "  {}\n", g);
      fmt::print(stderr, "If the change is right, say why in the commit and record the new errors with --record.\n");
      return kExitRegression;
    }
    fmt::print("no error grew past its recorded value by more than {} points ({})\n", tolerance, recorded_path);
    // What `run` prints beside a prediction must be this model's accuracy: held to this run, whole (every case,
    // the replicates it was recorded with).
    if (vm.count("case") || replicates != kRecordedReplicates) {
      fmt::print("{} not checked: it holds every case at {} replicates\n", by_design_path, kRecordedReplicates);
    } else if (read_text(by_design_path) != by_design) {
      fmt::print(stderr, "p2psim validate: {} does not hold this run's summary by design, which `p2psim run` prints "
                         "beside its predictions; record it with --record\n", by_design_path);
      return kExitRegression;
    }
  }
  return kExitOk;
}

}  // namespace p2psim::cli
