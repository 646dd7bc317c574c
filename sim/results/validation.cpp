#include "validation.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "../inputs/experiment.hpp"
#include "../inputs/profile_history.hpp"
#include "../inputs/xml_reader.hpp"
#include "../util/csv_reader.hpp"
#include "../util/median.hpp"

namespace fs = std::filesystem;

namespace p2psim::validation {

const std::map<std::string, std::string>& quantities() {
  static const std::map<std::string, std::string> q{
      {"total_s", "the run's wall time until the last peer finishes"},
      {"iteration_s", "mean iteration time per peer"},
      {"gradient_s_per_iteration", "mean gradient-computation time per peer and iteration (the paper's metric)"},
      {"communication_s_per_iteration", "mean send + receive time per peer and iteration"},
      {"phase_span_s", "median over iterations >= from_iteration of (last end - first start) of the phases"},
      {"phase_mean_s", "mean duration of the phases' records in iterations >= from_iteration"},
      {"phase_median_s", "median duration of the phases' records in iterations >= from_iteration"},
      {"phase_to_end_s",
       "median over function runs (no peer's; iterations >= from_iteration) of the time from the first start of the "
       "first phase's records to the last end of the second's in the run (an aggregator's serialize to its reduce's end: its "
       "output's pickling and PUT)"},
      {"phase_to_start_s",
       "median over function runs (no peer's; iterations >= from_iteration) of the time from the first start of the "
       "first phase's records to the first start of the second's in the run (an aggregator's reduce to its serialize: "
       "its inputs' GETs, unpickling and sums)"},
      {"branch_start_spread_s",
       "median over (peer, iteration) of the spread of the functions' handler starts (their data_fetch)"},
      {"shard_fetch_mb_per_s", "a peer's data shard in MB (1e6 bytes) over its mean data_fetch time"},
      {"function_fetch_mb_per_s", "mean over function invocations of the samples they load, in MB, over the time it took"},
      {"send_mb_per_s",
       "a peer's message (its exchange bytes, in MB) over its mean send phase in iterations >= from_iteration (a "
       "parameter server's push: one TCP stream to each server)"},
      {"cost_usd_per_iteration", "the listed services' cost over the run, divided by its iterations"},
      {"warm_function_usd_per_iteration", "mean cost (compute + request) of a warm function run x runs per iteration"},
      {"slowest_run_usd_per_iteration",
       "mean over iterations >= from_iteration of the iteration's function runs (no peer's) that have both phases x "
       "the compute price of the slowest one's time from the first phase's start to the second's start: every run "
       "billed the slowest's span, as GradsSharding's scripts estimate a round's Lambda cost (its runs are of one "
       "memory size)"},
  };
  return q;
}

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const std::set<std::string> kCostServices{"function_compute", "function_requests", "workflow", "storage",
                                          "instances", "broker", "cpu_credits", "total"};

InputError metric_error(const Case& c, const Metric& m, const std::string& what) {
  return InputError(c.file, m.line, "metric[@name='" + m.name + "']", what);
}

bool in_phases(const PhaseRecord& p, const std::vector<std::string>& phases) {
  return std::find(phases.begin(), phases.end(), to_string(p.phase)) != phases.end();
}

// A warm run's own price, as the measurements priced it: no free allowance, of GB-seconds or of requests.
PriceBook::Functions without_free_allowance(PriceBook::Functions f) {
  f.free_gb_s = f.free_requests = 0;
  return f;
}

// Each function run's (no peer's; iterations >= from_iteration) time from the first start of the metric's first
// phase to the first start (or, to_end, the last end) of its second, keyed by (iteration, invocation); runs that
// lack either phase are left out.
std::map<std::pair<int, int>, double> function_run_spans(const std::vector<PhaseRecord>& trace, const Metric& m,
                                                         bool to_end) {
  auto earliest = [](double& at, double t) { at = at < 0 ? t : std::min(at, t); };
  std::map<std::pair<int, int>, std::pair<double, double>> runs;  // (iteration, invocation) -> from, to
  for (const auto& p : trace) {
    if (p.peer >= 0 || p.invocation < 0 || p.iteration < m.from_iteration) continue;
    const std::string phase = to_string(p.phase);
    if (phase != m.phases[0] && phase != m.phases[1]) continue;
    auto& run = runs.emplace(std::make_pair(p.iteration, p.invocation), std::make_pair(-1.0, -1.0)).first->second;
    if (phase == m.phases[0]) earliest(run.first, p.start_s);
    if (phase == m.phases[1]) {
      if (to_end)
        run.second = std::max(run.second, p.end_s);
      else
        earliest(run.second, p.start_s);
    }
  }
  std::map<std::pair<int, int>, double> spans;
  for (const auto& [key, se] : runs)
    if (se.first >= 0 && se.second >= se.first) spans[key] = se.second - se.first;
  return spans;
}

}  // namespace

std::string measurement_date(const Case& c, const Metric& m) {
  if (!m.measured_when.empty()) return m.measured_when;
  if (measurement_day(c.source.measured)) return c.source.measured;
  static const std::regex bound(R"((?:before|after) (\d{4}-\d{2}(?:-\d{2})?)\b.*)");
  std::smatch b;
  if (std::regex_match(c.source.measured, b, bound) && measurement_day(b[1])) return b[1];
  return "";
}

Case load_case(const std::string& path) {
  XmlFile xml(path);
  auto root = xml.root("case");
  xml.check_names(root, {"name", "role", "design", "anchored_by"}, {"source", "experiment", "metric", "notes"});
  Case c;
  c.file = path;
  c.line = xml.line_of(root);
  // Names go into CSV rows and figure legends as they are.
  auto name = [&](const pugi::xml_node& n, const char* attr) {
    std::string v = xml.text(n, attr);
    if (!valid_name(v))
      throw xml.error(n, XmlFile::field_name(n, attr), "expected 1-64 letters, digits, '_', '-' or '.', got '" + v + "'");
    return v;
  };
  c.name = name(root, "name");
  c.role = xml.choice(root, "role", {"validation", "calibration", "mechanism"});
  c.anchored_by = xml.text_or(root, "anchored_by", "");
  if (c.role == "mechanism" && c.anchored_by.empty())
    throw xml.error(root, "case/@anchored_by", "required for a mechanism case: the calibration case that set its speed");
  if (c.role != "mechanism" && !c.anchored_by.empty())
    throw xml.error(root, "case/@anchored_by", "only a mechanism case names the calibration case that anchors it");
  c.design = name(root, "design");
  c.notes = root.child("notes").text().get();

  auto src = root.child("source");
  if (!src) throw xml.error(root, "case/source", "required: where the measured values were published");
  xml.check_names(src, {"group", "reference", "url", "where", "measured"});
  c.source = {name(src, "group"), xml.text(src, "reference"), xml.text(src, "url"), xml.text(src, "where"),
              xml.text(src, "measured")};
  if (c.source.url.rfind("https://", 0) != 0)
    throw xml.error(src, "source/@url", "expected an https:// URL, got '" + c.source.url + "'");
  // Its date picks the profile's values as of then (measurement_date): a date mistyped ("2022-13") must not fall back
  // to none without a word. Free words and a year alone stay free.
  static const std::regex date_shaped(R"(\b\d{4}-\d{2}(?:-\d{2})?\b)");
  for (std::sregex_iterator it(c.source.measured.begin(), c.source.measured.end(), date_shaped), end; it != end; ++it)
    if (!measurement_day(it->str()))
      throw xml.error(src, "source/@measured", "'" + it->str() + "' is not a date (YYYY-MM or YYYY-MM-DD) in '" +
                                                   c.source.measured + "'");
  // Words with no year at all ("yesterday") would leave the case undated without a word: a year, or say so.
  static const std::regex a_year(R"(\b(?:19|20)\d{2}\b)"), not_stated(R"(not stated\b.*)", std::regex::icase);
  if (!std::regex_search(c.source.measured, a_year) && !std::regex_match(c.source.measured, not_stated))
    throw xml.error(src, "source/@measured",
                    "'" + c.source.measured + "' names no year: give YYYY-MM or YYYY-MM-DD, 'before' or 'after' one, "
                    "a year, or 'not stated (...)'");

  auto exp = root.child("experiment");
  if (!exp) throw xml.error(root, "case/experiment", "required: the p2psim experiment of the configuration");
  xml.check_names(exp, {"file", "system"});
  c.experiment_path = (fs::path(path).parent_path() / xml.text(exp, "file")).lexically_normal().string();
  if (!fs::is_regular_file(c.experiment_path))
    throw xml.error(exp, "experiment/@file", "no such file: " + c.experiment_path);
  const std::string default_system = xml.text_or(exp, "system", "");

  for (auto m : root.children("metric")) {
    xml.check_names(m, {"name", "kind", "unit", "system", "quantity", "phases", "services", "from_iteration",
                        "measured", "spread", "spread_kind", "derivation", "measured_when"});
    Metric metric;
    metric.line = xml.line_of(m);
    metric.name = name(m, "name");
    metric.kind = xml.choice(m, "kind", {"time", "throughput", "cost"});
    // Units follow the kind, so that every table and figure can put like with like.
    const std::map<std::string, std::string> unit_of{{"time", "s"}, {"throughput", "MB/s"}, {"cost", "USD"}};
    metric.unit = xml.choice(m, "unit", {unit_of.at(metric.kind)});
    metric.system = xml.text_or(m, "system", default_system);
    if (metric.system.empty()) throw xml.error(m, "metric/@system", "required (or experiment/@system)");
    metric.quantity = xml.text(m, "quantity");
    if (!quantities().count(metric.quantity)) {
      std::string known;
      for (const auto& [q, _] : quantities()) known += " " + q;
      throw xml.error(m, "metric/@quantity", "unknown quantity '" + metric.quantity + "'; known:" + known);
    }
    metric.phases = words(xml.text_or(m, "phases", ""));
    for (const auto& ph : metric.phases) {
      bool known = false;
      for (int p = 0; p < kPhaseCount; ++p) known = known || ph == to_string(Phase(p));
      if (!known) throw xml.error(m, "metric/@phases", "unknown phase '" + ph + "'");
    }
    if (metric.quantity.rfind("phase_", 0) == 0 && metric.phases.empty())
      throw xml.error(m, "metric/@phases", "required by " + metric.quantity);
    if ((metric.quantity == "phase_to_end_s" || metric.quantity == "phase_to_start_s" ||
         metric.quantity == "slowest_run_usd_per_iteration") &&
        metric.phases.size() != 2)
      throw xml.error(m, "metric/@phases", metric.quantity + " reads two phases, from the first's start to the second's");
    metric.services = words(xml.text_or(m, "services", ""));
    for (const auto& sv : metric.services)
      if (!kCostServices.count(sv)) throw xml.error(m, "metric/@services", "unknown service '" + sv + "'");
    if (metric.quantity == "cost_usd_per_iteration" && metric.services.empty())
      throw xml.error(m, "metric/@services", "required by cost_usd_per_iteration");
    if ((metric.kind == "cost") != (metric.quantity.find("usd") != std::string::npos))
      throw xml.error(m, "metric/@kind", "a cost metric reads a cost quantity, and only it does");
    metric.from_iteration = static_cast<int>(xml.integer_or(m, "from_iteration", 0, 1 << 20, 0));
    metric.measured = xml.number(m, "measured", 1e-12, 1e12);
    metric.spread = xml.number_or(m, "spread", 0, 1e12, 0);
    metric.spread_kind = m.attribute("spread_kind") ? xml.choice(m, "spread_kind", {"sd", "p10-p90/2"}) : "";
    if ((metric.spread > 0) != !metric.spread_kind.empty())
      throw xml.error(m, "metric/@spread_kind", "give spread and spread_kind together");
    metric.derivation = xml.text_or(m, "derivation", "");
    metric.measured_when = xml.text_or(m, "measured_when", "");
    if (!metric.measured_when.empty() && !measurement_day(metric.measured_when))
      throw xml.error(m, "metric/@measured_when", "expected YYYY-MM or YYYY-MM-DD, got '" + metric.measured_when + "'");
    for (const auto& other : c.metrics)
      if (other.name == metric.name) throw xml.error(m, "metric/@name", "a second metric named " + metric.name);
    c.metrics.push_back(metric);
  }
  if (c.metrics.empty()) throw xml.error(root, "case/metric", "a case compares at least one metric");
  return c;
}

std::vector<Case> load_cases(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "", "no such folder of validation cases");
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 9 && name.substr(name.size() - 9) == ".case.xml")
      files.push_back(e.path().string());
  }
  std::vector<Case> cases;
  for (const auto& f : files) cases.push_back(load_case(f));
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  for (size_t i = 1; i < cases.size(); ++i)
    if (cases[i].name == cases[i - 1].name)
      throw InputError(cases[i].file, 0, "case/@name", "a second case named " + cases[i].name + " (also in " +
                                                           cases[i - 1].file + ")");
  for (const auto& c : cases) {
    if (c.anchored_by.empty()) continue;
    const auto anchor = std::find_if(cases.begin(), cases.end(), [&](const Case& a) { return a.name == c.anchored_by; });
    if (anchor == cases.end() || anchor->role != "calibration")
      throw InputError(c.file, c.line, "case/@anchored_by", "'" + c.anchored_by + "' is no calibration case in " + dir);
    if (anchor->source.group != c.source.group)
      throw InputError(c.file, c.line, "case/@anchored_by", "'" + c.anchored_by + "' is of source " + anchor->source.group +
                                                           ", not this case's own, " + c.source.group);
  }
  return cases;
}

double predict(const Case& c, const Metric& m, const Scenario& s, const SystemResult& r) {
  if (!r.feasible()) throw metric_error(c, m, "system " + r.name + " could not run: " + r.run.failure);
  const auto& q = m.quantity;
  if (q == "total_s") return r.total_s;
  if (q == "iteration_s") return r.iteration_s;
  if (q == "gradient_s_per_iteration") return r.gradient_s;
  if (q == "communication_s_per_iteration") return r.communication_s;
  const auto& trace = r.run.trace;
  if (q == "phase_span_s") {
    std::map<int, std::pair<double, double>> span;  // iteration -> first start, last end
    for (const auto& p : trace) {
      if (p.iteration < m.from_iteration || !in_phases(p, m.phases)) continue;
      auto [it, fresh] = span.emplace(p.iteration, std::make_pair(p.start_s, p.end_s));
      if (!fresh) it->second = {std::min(it->second.first, p.start_s), std::max(it->second.second, p.end_s)};
    }
    std::vector<double> spans;
    for (const auto& [_, se] : span) spans.push_back(se.second - se.first);
    if (spans.empty()) throw metric_error(c, m, "system " + r.name + " traced none of these phases");
    return median(spans);
  }
  if (q == "phase_mean_s" || q == "phase_median_s") {
    std::vector<double> durations;
    for (const auto& p : trace)
      if (p.iteration >= m.from_iteration && in_phases(p, m.phases)) durations.push_back(p.end_s - p.start_s);
    if (durations.empty()) throw metric_error(c, m, "system " + r.name + " traced none of these phases");
    double sum = 0;
    for (double d : durations) sum += d;
    return q == "phase_median_s" ? median(durations) : sum / static_cast<double>(durations.size());
  }
  if (q == "phase_to_end_s" || q == "phase_to_start_s") {
    std::vector<double> tails;
    for (const auto& [_, span] : function_run_spans(trace, m, q == "phase_to_end_s")) tails.push_back(span);
    if (tails.empty()) throw metric_error(c, m, "system " + r.name + " has no function run with both phases");
    return median(tails);
  }
  if (q == "branch_start_spread_s") {
    std::map<std::pair<int, int>, std::pair<double, double>> starts;  // (peer, iteration) -> first, last start
    for (const auto& p : trace) {
      if (p.invocation < 0 || p.peer < 0 || p.iteration < m.from_iteration || p.phase != Phase::DataFetch) continue;
      auto [it, fresh] = starts.emplace(std::make_pair(p.peer, p.iteration), std::make_pair(p.start_s, p.start_s));
      if (!fresh) it->second = {std::min(it->second.first, p.start_s), std::max(it->second.second, p.start_s)};
    }
    std::vector<double> spreads;
    for (const auto& [_, fl] : starts) spreads.push_back(fl.second - fl.first);
    if (spreads.empty()) throw metric_error(c, m, "system " + r.name + " runs no function");
    return median(spreads);
  }
  if (q == "shard_fetch_mb_per_s") {
    double bytes = 0, seconds = 0;  // every peer's shard over every load's time (a shard over the mean load time)
    for (const auto& p : trace)
      if (p.invocation < 0 && p.peer >= 0 && p.phase == Phase::DataFetch) {
        bytes += static_cast<double>(s.group_of_peer_data(p.peer).shard_samples * s.sample_bytes);
        seconds += p.end_s - p.start_s;
      }
    if (seconds == 0) throw metric_error(c, m, "system " + r.name + "'s peers load no data shard");
    return bytes / 1e6 / seconds;
  }
  if (q == "function_fetch_mb_per_s") {
    double sum = 0;
    int n = 0;
    for (const auto& p : trace) {
      if (p.invocation < 0 || p.peer < 0 || p.iteration < m.from_iteration || p.phase != Phase::DataFetch) continue;
      long long samples = 0;
      for (long long b : s.group_of_peer_data(p.peer).invocations.at(static_cast<size_t>(p.invocation))) samples += b;
      sum += static_cast<double>(samples * s.sample_bytes) / 1e6 / (p.end_s - p.start_s), ++n;
    }
    if (n == 0) throw metric_error(c, m, "system " + r.name + " runs no function");
    return sum / n;
  }
  if (q == "send_mb_per_s") {
    double sum = 0;
    int n = 0;
    for (const auto& p : trace)
      if (p.invocation < 0 && p.peer >= 0 && p.iteration >= m.from_iteration && p.phase == Phase::Send)
        sum += p.end_s - p.start_s, ++n;
    if (n == 0) throw metric_error(c, m, "system " + r.name + "'s peers send nothing");
    return s.exchange_bytes / 1e6 / (sum / n);
  }
  const double iterations = s.experiment.workload.iterations;
  if (q == "cost_usd_per_iteration") {
    const Cost& k = r.cost;
    const std::map<std::string, double> by{{"function_compute", k.function_compute_usd},
                                           {"function_requests", k.function_requests_usd},
                                           {"workflow", k.workflow_usd},
                                           {"storage", k.storage_usd},
                                           {"instances", k.instances_usd},
                                           {"broker", k.broker_usd},
                                           {"cpu_credits", k.cpu_credits_usd},
                                           {"total", k.total_usd()}};
    double sum = 0;
    for (const auto& sv : m.services) sum += by.at(sv);
    return sum / iterations;
  }
  if (q == "warm_function_usd_per_iteration") {
    const auto& runs = r.run.ledger.function_runs;
    const PriceBook::Functions f = without_free_allowance(s.prices.functions);
    const auto usd = function_runs_compute_usd(runs, f);
    double warm_usd = 0;
    int warm = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
      if (runs[k].init_s > 0) continue;
      warm_usd += usd[k] + f.per_request_usd;
      ++warm;
    }
    if (warm == 0) throw metric_error(c, m, "system " + r.name + " has no warm function run");
    return warm_usd / warm * (static_cast<double>(runs.size()) / iterations);
  }
  if (q == "slowest_run_usd_per_iteration") {
    const auto& runs = r.run.ledger.function_runs;
    if (runs.empty()) throw metric_error(c, m, "system " + r.name + " runs no function");
    for (const auto& run : runs)
      if (run.memory_mb != runs.front().memory_mb || run.arch != runs.front().arch)
        throw metric_error(c, m, "system " + r.name + "'s functions differ in memory or architecture; this quantity "
                                 "prices one size");
    std::map<int, std::pair<double, int>> by_iteration;  // iteration -> slowest span, runs
    for (const auto& [key, span] : function_run_spans(trace, m, false)) {
      auto& [slowest, count] = by_iteration[key.first];
      slowest = std::max(slowest, span), ++count;
    }
    if (by_iteration.empty()) throw metric_error(c, m, "system " + r.name + " has no function run with both phases");
    const PriceBook::Functions f = without_free_allowance(s.prices.functions);  // its compute price is multiplied
    double usd = 0;
    for (const auto& [_, slowest_count] : by_iteration) {
      const FunctionRun slowest(runs.front().memory_mb, runs.front().arch, 0, 0, slowest_count.first);
      usd += function_runs_compute_usd({slowest}, f).front() * slowest_count.second;
    }
    return usd / static_cast<double>(by_iteration.size());
  }
  throw metric_error(c, m, "unknown quantity " + q);
}

namespace {
bool in_summary(const Row& row, const std::string& group, const std::string& role = "validation") {
  return row.c->role == role && (row.m->kind == "cost") == (group == "cost");
}
}  // namespace

Summary summarise(const std::vector<Row>& rows, const std::string& group, const std::string& design,
                  const std::string& role) {
  std::vector<double> errors;
  std::vector<const Row*> summarised;
  std::set<std::string> sources;
  Summary out;
  for (const auto& row : rows) {
    if (!in_summary(row, group, role) || (!design.empty() && row.c->design != design)) continue;
    const double e = std::abs(row.error_percent());
    errors.push_back(e);
    summarised.push_back(&row);
    sources.insert(row.c->source.group);
    out.faster += row.time_error_percent() < 0 ? 1 : 0;
    if (row.band) ++out.banded, out.covered += row.covered() ? 1 : 0;
    if (row.held_out_band_percent) ++out.held_out_banded, out.held_out_covered += row.inside_held_out_band() ? 1 : 0;
    if (!out.worst || e > out.worst_abs_percent) out.worst = &row, out.worst_abs_percent = e;
  }
  out.n = static_cast<int>(errors.size());
  if (!errors.empty()) out.median_abs_percent = median(errors);
  out.sources = static_cast<int>(sources.size());
  out.spread = error_spread(summarised);
  return out;
}

// The designs of the validation-role rows of one kind group, sorted.
static std::vector<std::string> designs(const std::vector<Row>& rows, const std::string& group) {
  std::set<std::string> out;
  for (const auto& row : rows)
    if (in_summary(row, group)) out.insert(row.c->design);
  return {out.begin(), out.end()};
}

std::vector<std::pair<std::string, Summary>> summaries_by_design(const std::vector<Row>& rows, const std::string& group) {
  std::vector<std::pair<std::string, Summary>> out;
  for (const auto& d : designs(rows, group)) out.emplace_back(d, summarise(rows, group, d));
  return out;
}

std::vector<DesignAccuracy> accuracy_by_design(const std::vector<Row>& rows) {
  std::vector<DesignAccuracy> out;
  auto accuracy = [](const std::string& design, const char* group, const Summary& s) {
    return DesignAccuracy{design, group, s.n, s.median_abs_percent, s.worst_abs_percent, s.faster, s.banded,
                          s.covered, s.sources,
                          s.spread ? std::optional(s.spread->p10_percent) : std::nullopt,
                          s.spread ? std::optional(s.spread->p90_percent) : std::nullopt,
                          s.held_out_banded, s.held_out_covered};
  };
  for (const char* group : {"time", "cost"}) {
    for (const auto& [d, s] : summaries_by_design(rows, group)) out.push_back(accuracy(d, group, s));
    const Summary every = summarise(rows, group);
    if (every.n > 0) out.push_back(accuracy(kEveryDesign, group, every));
  }
  return out;
}

std::vector<AlikeGroup> predicted_alike(const std::vector<Row>& rows, const std::string& group) {
  std::vector<AlikeGroup> groups;
  for (const auto& row : rows) {
    if (!in_summary(row, group)) continue;
    auto alike = [&](const AlikeGroup& g) {
      const Row& first = *g.rows.front();
      return first.m->unit == row.m->unit &&
             std::abs(first.predicted - row.predicted) <= 1e-6 * std::max(std::abs(first.predicted), std::abs(row.predicted));
    };
    const auto it = std::find_if(groups.begin(), groups.end(), alike);
    if (it == groups.end())
      groups.push_back({{&row}});
    else
      it->rows.push_back(&row);
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const AlikeGroup& g) { return g.rows.size() < 2; }),
               groups.end());
  for (auto& g : groups) {
    const auto [lo, hi] = std::minmax_element(g.rows.begin(), g.rows.end(),
                                              [](const Row* a, const Row* b) { return a->m->measured < b->m->measured; });
    g.floor_percent = 100.0 * ((*hi)->m->measured - (*lo)->m->measured) / ((*hi)->m->measured + (*lo)->m->measured);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const AlikeGroup& a, const AlikeGroup& b) { return a.floor_percent > b.floor_percent; });
  return groups;
}

std::map<std::pair<std::string, std::string>, double> load_recorded(const std::string& path) {
  std::map<std::pair<std::string, std::string>, double> out;
  if (!fs::is_regular_file(path)) return out;
  try {
    CsvReader<3> in(path);
    in.read_header(io::ignore_extra_column, "case", "metric", "abs_error_percent");
    std::string name, metric;
    double e = 0;
    while (in.read_row(name, metric, e)) out[{name, metric}] = e;
  } catch (const io::error::base& e) {
    throw csv_input_error(path, e);
  }
  return out;
}

std::string recorded_csv(const std::vector<Row>& rows) {
  std::string out = "case,metric,abs_error_percent\n";
  for (const auto& row : rows)
    out += fmt::format("{},{},{:.1f}\n", row.c->name, row.m->name, std::abs(row.error_percent()));
  return out;
}

std::vector<std::string> regressions(const std::vector<Row>& rows,
                                     const std::map<std::pair<std::string, std::string>, double>& recorded,
                                     double tolerance_points) {
  std::vector<std::string> out;
  for (const auto& row : rows) {
    const double e = std::abs(row.error_percent());
    auto it = recorded.find({row.c->name, row.m->name});
    if (it == recorded.end())
      out.push_back(fmt::format("{} {}: no recorded error (now {:.1f} %)", row.c->name, row.m->name, e));
    else if (e > it->second + tolerance_points)
      out.push_back(fmt::format("{} {}: error {:.1f} % grew past the recorded {:.1f} % by more than {} points",
                                row.c->name, row.m->name, e, it->second, tolerance_points));
  }
  return out;
}

}  // namespace p2psim::validation
