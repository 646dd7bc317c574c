#include "results.hpp"

#include "columns.hpp"

#include "../util/atomic_file.hpp"
#include "../util/file_stamp.hpp"
#include "../util/fixed9.hpp"
#include "../util/json_text.hpp"
#include "../util/read_text.hpp"

#include <fmt/compile.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <stdexcept>

namespace fs = std::filesystem;

namespace p2psim {

std::string file_hash(const std::string& path) {
  static FileMemo<int, std::string> hashes;  // a sweep's scenarios share their calibration and profile files
  return hashes.get({path}, 0, [&] {
    const std::string bytes = read_text(path);
    return fmt::format("{:016x}", XXH64(bytes.data(), bytes.size(), 0));
  });
}

namespace {

// What a set of peers' iterations add up to, per (peer, iteration): its first start and last end, and where its
// serverless gradient began (the model's upload, or the workflow's start as the paper's timer has it).
struct IterationMarks {
  double first_start_s = 0, last_end_s = 0;
  double gradient_start_s = 0, paper_gradient_start_s = 0;
  bool seen = false, has_gradient_start = false;
};

// IterationMarks by (peer, iteration), visited in that order. Dense over the range of peers and iterations the
// rows hold (a map of them was a third of a 10,000-peer run's time), or a map where that range is much larger
// than the rows (a system that ended early in a large experiment).
class IterationTable {
 public:
  struct Range {
    int min_peer = 0, max_peer = -1, min_iteration = 0, max_iteration = -1;
    double rows = 0;
    void add(const PhaseRecord& p) {
      if (rows == 0) min_peer = max_peer = p.peer, min_iteration = max_iteration = p.iteration;
      min_peer = std::min(min_peer, p.peer), max_peer = std::max(max_peer, p.peer);
      min_iteration = std::min(min_iteration, p.iteration), max_iteration = std::max(max_iteration, p.iteration);
      ++rows;
    }
  };
  explicit IterationTable(const Range& r) : range_(r) {
    iterations_ = static_cast<size_t>(r.max_iteration - r.min_iteration + 1);
    const double cells = static_cast<double>(r.max_peer - r.min_peer + 1) * static_cast<double>(iterations_);
    if (r.rows > 0 && cells <= 4 * r.rows + 1024) dense_.resize(static_cast<size_t>(cells));
  }
  IterationMarks& at(int peer, int iteration) {
    if (dense_.empty()) return sparse_[{peer, iteration}];
    return dense_[static_cast<size_t>(peer - range_.min_peer) * iterations_ +
                  static_cast<size_t>(iteration - range_.min_iteration)];
  }
  template <class F>
  void for_each_seen(F&& f) const {
    for (const auto& m : dense_)
      if (m.seen) f(m);
    for (const auto& [key, m] : sparse_) f(m);
  }

 private:
  Range range_;
  size_t iterations_ = 0;
  std::vector<IterationMarks> dense_;
  std::map<std::pair<int, int>, IterationMarks> sparse_;
};

// Phase sums of a set of peers' iterations, turned into means per peer-iteration.
struct PhaseSums {
  IterationTable marks;
  PhaseMeans sums;
  double gradients = 0;  // gradients computed (a peer's compute, or its local average of its functions')

  explicit PhaseSums(const IterationTable::Range& range) : marks(range) {}
  void add(const PhaseRecord& p) {
    const double d = p.end_s - p.start_s;
    IterationMarks& k = marks.at(p.peer, p.iteration);
    if (!k.seen) k.seen = true, k.first_start_s = p.start_s, k.last_end_s = p.end_s;
    else k.first_start_s = std::min(k.first_start_s, p.start_s), k.last_end_s = std::max(k.last_end_s, p.end_s);
    auto& m = sums;
    switch (p.phase) {
      case Phase::Compute: m.gradient_s += d, m.paper_gradient_s += d, ++gradients; break;  // instance-based
      case Phase::ModelUpload: k.gradient_start_s = p.start_s, k.has_gradient_start = true; break;  // serverless: from the model's upload ...
      case Phase::Orchestration:  // ... (or, the paper's timer and without one, from StartExecution) ...
        k.paper_gradient_start_s = p.start_s;
        if (!k.has_gradient_start) k.gradient_start_s = p.start_s, k.has_gradient_start = true;
        break;
      case Phase::LocalAverage:  // ... to the local mean
        m.gradient_s += p.end_s - k.gradient_start_s;
        m.paper_gradient_s += p.end_s - k.paper_gradient_start_s;
        ++gradients;
        break;
      case Phase::Send:
      case Phase::Receive:
      case Phase::ReduceScatter:
      case Phase::AllGather: m.communication_s += d; break;
      case Phase::AggregateUpdate: m.aggregate_update_s += d; break;
      case Phase::Barrier: m.barrier_s += d; break;
      default: break;
    }
  }
  // Means over `peer_iterations`; the gradient's over the `computed` gradients.
  PhaseMeans means(double peer_iterations, double computed) const {
    PhaseMeans m = sums;
    marks.for_each_seen([&](const IterationMarks& k) { m.iteration_s += k.last_end_s - k.first_start_s; });
    m.gradient_s /= computed;
    m.paper_gradient_s /= computed;
    m.communication_s /= peer_iterations;
    m.aggregate_update_s /= peer_iterations;
    m.barrier_s /= peer_iterations;
    m.iteration_s /= peer_iterations;
    return m;
  }
};

// The rows the iteration means count: the peer's own phases, not its functions', not the data load, not the
// time it was down.
bool iteration_row(const PhaseRecord& p) {
  return p.invocation < 0 && p.phase != Phase::DataFetch && p.phase != Phase::Down;
}

}  // namespace

SystemResult summarise(const Scenario& s, const SystemSpec& system, RunOutput run) {
  SystemResult r;
  r.name = system.name;
  r.strategy = system.strategy;
  r.run = std::move(run);
  r.cost = price(r.run.ledger, s.prices);
  // Means over the iterations peers completed (a crashed peer completes fewer); over every planned one when
  // none completed (an infeasible system), so that its partial phases still show.
  const auto& e = s.experiment;
  const size_t groups = e.peer_groups.size();
  std::vector<double> done(groups, 0), end_s(groups, 0);  // per group: iterations completed; its last peer's end
  for (size_t i = 0; i < r.run.iterations_done.size(); ++i) {
    const auto g = static_cast<size_t>(s.group_of(static_cast<int>(i)));
    done[g] += r.run.iterations_done[i];
    end_s[g] = std::max(end_s[g], r.run.peer_end_s[i]);
  }
  auto peer_iterations = [&](double completed, int peers) {
    return completed > 0 ? completed : static_cast<double>(peers) * e.workload.iterations;
  };
  IterationTable::Range all_range;
  std::vector<IterationTable::Range> group_ranges(groups > 1 ? groups : 0);
  for (const auto& p : r.run.trace) {
    if (!iteration_row(p)) continue;
    all_range.add(p);
    if (!group_ranges.empty() && p.peer >= 0) group_ranges[static_cast<size_t>(s.group_of(p.peer))].add(p);
  }
  std::array<std::pair<double, long long>, kPhaseCount> phase_sum{};  // per phase: total, count
  PhaseSums all(all_range);
  std::vector<PhaseSums> per_group(group_ranges.begin(), group_ranges.end());
  for (const auto& p : r.run.trace) {
    auto& ps = phase_sum[static_cast<size_t>(p.phase)];
    ps.first += p.end_s - p.start_s;
    ++ps.second;
    if (!iteration_row(p)) continue;
    all.add(p);
    if (!per_group.empty() && p.peer >= 0) per_group[static_cast<size_t>(s.group_of(p.peer))].add(p);
  }
  double done_all = 0;
  for (double d : done) done_all += d;
  // The system's gradient mean: over the completed peer-iterations that computed one (the participants').
  const double all_iterations = peer_iterations(done_all, e.peers);
  static_cast<PhaseMeans&>(r) = all.means(all_iterations, all_iterations * r.run.participation);
  for (size_t g = 0; g < per_group.size(); ++g) {
    // A group's: over the gradients its peers computed (which peers took part differs from round to round).
    const auto& group = e.peer_groups[g];
    const auto& sums = per_group[g];
    const double iterations = peer_iterations(done[g], group.count);
    r.groups.push_back({group.name, group.instance_type, group.count,
                        sums.means(iterations, sums.gradients > 0 ? sums.gradients : iterations * r.run.participation),
                        end_s[g]});
  }
  for (size_t phase = 0; phase < phase_sum.size(); ++phase)
    if (const auto& [total, count] = phase_sum[phase]; count > 0)
      r.phase_means_s[to_string(static_cast<Phase>(phase))] = total / static_cast<double>(count);
  r.total_s = *std::max_element(r.run.peer_end_s.begin(), r.run.peer_end_s.end());
  return r;
}

const SystemResult* Result::baseline() const {
  for (const auto& sys : systems)
    if (sys.name == scenario->experiment.baseline) return &sys;
  return nullptr;
}

const AccuracyPoint* AccuracyResult::first_reaching(double target) const {
  for (const auto& p : points)
    if (p.test_accuracy && *p.test_accuracy >= target) return &p;
  return nullptr;
}

const AccuracyPoint* AccuracyResult::last_evaluated() const {
  for (auto it = points.rbegin(); it != points.rend(); ++it)
    if (it->test_accuracy) return &*it;
  return nullptr;
}

// 100 (1 - time / baseline's), in %. Two designs whose peers run the same steps differ only in the order their
// means were summed (a parameter server's -2.2e-14 %, printed "-0.00 %"): within 1e-12 of each other they are equal.
static double improvement_percent(double time_s, double baseline_s) {
  const double ratio = time_s / baseline_s;
  return std::abs(1.0 - ratio) < 1e-12 ? 0.0 : 100.0 * (1.0 - ratio);
}

std::optional<Comparison> Result::comparison(const SystemResult& sys) const {
  const SystemResult* base = baseline();
  if (!base || base == &sys || !base->feasible() || !sys.feasible()) return std::nullopt;
  const bool broker = scenario->experiment.cost_includes_broker;
  return Comparison{improvement_percent(sys.gradient_s, base->gradient_s),
                    improvement_percent(sys.paper_gradient_s, base->paper_gradient_s),
                    sys.cost.counted_usd(broker) / base->cost.counted_usd(broker), base->total_s / sys.total_s};
}

// A speed-up in words: "2.02x faster", "1.49x slower" (a speed-up of 0.67), "as fast" when it rounds to 1.00.
static std::string speed_up_text(double speedup) {
  if (fmt::format("{:.2f}", speedup) == "1.00") return "as fast (1.00x)";
  return speedup > 1 ? fmt::format("{:.2f}x faster", speedup) : fmt::format("{:.2f}x slower", 1 / speedup);
}

// What the compute model carries beyond its calibration data, in words; empty when nothing.
static std::string extrapolation_note(const Scenario& s) {
  std::string note;
  auto add = [&](bool on, const std::string& what) {
    if (on) note += (note.empty() ? "" : "; ") + what;
  };
  const auto& w = s.experiment.workload;
  const int fn_threads = s.step_model(StepTarget::Function).step_fits().at({w.model, w.input_shape}).max_threads();
  for (size_t g = 0; g < s.peer_groups.size(); ++g) {  // each group's type on its own steps' calibration
    const int group = static_cast<int>(g);
    const int threads = s.step_model(StepTarget::Peer, group).step_fits().at({w.model, w.input_shape}).max_threads();
    add(s.peer_extrapolation.threads && s.step_vcpus(StepTarget::Peer, group) > threads,
        fmt::format("peer steps on {} vCPUs, threads measured up to {}", s.step_vcpus(StepTarget::Peer, group), threads));
  }
  add(s.function_extrapolation.threads,
      fmt::format("function steps on {:.2f} vCPUs, threads measured up to {}", s.step_vcpus(StepTarget::Function),
                  fn_threads));
  add(s.peer_extrapolation.batch || s.function_extrapolation.batch, "a minibatch outside the measured batch sizes");
  return note;
}

// Whether a system's own compute steps are extrapolated beyond the calibration. A system that ran no function
// used no function's step: the instance-based one is not extrapolated because the functions beside it would be
// (result.json's compute_model notes the scenario's).
bool compute_extrapolated(const Scenario& s, const SystemResult& a) {
  return s.peer_extrapolation.any() || (!a.run.ledger.function_runs.empty() && s.function_extrapolation.any());
}

// Time and cost to the experiment's target accuracy, from the replays (when the experiment asks for them).
template <typename Row>
static void print_accuracy_rows(const Result& r, Row& row, std::FILE* out) {
  const double target = r.scenario->experiment.accuracy.target;
  auto cell = [&](const SystemResult& a, auto value) -> std::string {
    if (!a.accuracy || !a.accuracy->not_replayed.empty()) return "not replayed";
    const AccuracyPoint* p = a.accuracy->first_reaching(target);
    return p ? value(*p) : "not reached";
  };
  row("final test accuracy", [](const SystemResult& a) {
    const AccuracyPoint* p = a.accuracy ? a.accuracy->last_evaluated() : nullptr;
    return p ? fmt::format("{:.4f}", *p->test_accuracy) : std::string("n/a");
  }, "{:>14}");
  const std::string pct = fmt::format("{:.1f} %", 100 * target);
  row(fmt::format("iterations to {}", pct).c_str(),
      [&](const SystemResult& a) { return cell(a, [](const AccuracyPoint& p) { return std::to_string(p.iteration + 1); }); },
      "{:>14}");
  row(fmt::format("time to {} (s)", pct).c_str(), [&](const SystemResult& a) {
    return cell(a, [](const AccuracyPoint& p) { return fmt::format("{:.3f}", p.time_s); });
  }, "{:>14}");
  row(fmt::format("cost to {} (USD)", pct).c_str(), [&](const SystemResult& a) {
    return cell(a, [](const AccuracyPoint& p) { return fmt::format("{:.6f}", p.cost_usd); });
  }, "{:>14}");
  for (const auto& a : r.systems) {
    if (!a.accuracy) continue;
    if (!a.accuracy->not_replayed.empty())
      fmt::print(out, "{} was not replayed: {}\n", a.name, a.accuracy->not_replayed);
    else if (!a.accuracy->first_reaching(target))
      fmt::print(out, "{} did not reach {} test accuracy in {} iterations\n", a.name, pct,
                 a.accuracy->points.empty() ? 0 : a.accuracy->points.back().iteration + 1);
  }
}

// p10 / p50 / p90 of time and cost over the replicates, per system.
template <typename Row>
static void print_replicate_rows(const Result& r, Row& row) {
  const auto& reps = *r.replicates;
  auto band = [&](const char* quantity, int significant) {
    return [&reps, quantity, significant](const SystemResult& a) -> std::string {
      const auto* sr = reps.of(a.name);
      if (!sr || sr->feasible == 0) return "n/a";
      return band_text(sr->bands.at(quantity), significant);
    };
  };
  // The rows above are one run with the profile's constants as written; these draw them from their spreads.
  row(fmt::format("total (s) p10/p50/p90 of {} draws", reps.n).c_str(), band("total_s", 3), "{:>14}");
  row(fmt::format("cost (USD) p10/p50/p90 of {} draws", reps.n).c_str(), band("total_usd", 4), "{:>14}");
  row("replicates that finished", [&reps](const SystemResult& a) {
    const auto* sr = reps.of(a.name);
    return fmt::format("{}/{}", sr ? sr->feasible : 0, reps.n);
  }, "{:>14}");
}

void print_table(const Result& r, std::FILE* out) {
  const Scenario& s = *r.scenario;
  const auto& e = s.experiment;
  // Per peer: one number, or each group's ("4/2") when their shards differ.
  auto per_peer = [&](auto count) {
    std::string text;
    for (const auto& g : s.peer_groups) text += (text.empty() ? "" : "/") + std::to_string(count(g));
    return s.uniform_shards() ? std::to_string(count(s.peer_groups[0])) : text;
  };
  fmt::print(out, "{}: {} on {} ({}), {} peers on {}, {} iterations of {} minibatches per peer\n", e.name,
             e.workload.model, e.workload.dataset, e.workload.input_shape, e.peers, e.instance_type,
             e.workload.iterations, per_peer([](const auto& g) { return g.minibatches.size(); }));
  fmt::print(out, "functions: {} MB {} ({:.2f} vCPU), {} invocations per peer per iteration; gradient {:.1f} MB\n\n",
             e.functions.memory_mb, e.functions.arch, s.function_vcpus,
             per_peer([](const auto& g) { return g.invocations.size(); }), s.gradient_bytes / 1e6);
  // Columns wide enough for every system's name and strategy.
  size_t width = 14;
  for (const auto& a : r.systems) width = std::max({width, a.name.size() + 1, a.strategy.size() + 1});
  if (r.replicates) width = std::max<size_t>(width, 31);  // p10/p50/p90 in one cell, up to 29 characters
  fmt::print(out, "{:<38}", "");
  for (const auto& a : r.systems) fmt::print(out, "{:>{}}", a.name, width);
  fmt::print(out, "\n");
  auto row = [&](const char* label, auto value, const char* format) {
    fmt::print(out, "{:<38}", label);  // the longest label, "CPU throttled, credits out, from (s)", and 2 spaces
    std::string f = format;
    f.replace(f.find("14"), 2, std::to_string(width));
    for (const auto& a : r.systems) fmt::print(out, fmt::runtime(f), value(a));
    fmt::print(out, "\n");
  };
  row("strategy", [](auto& a) { return a.strategy; }, "{:>14}");
  // Times of an infeasible system mean nothing: shown as n/a (its costs are what it spent before failing).
  auto time_row = [&](const char* label, auto value, const char* format) {
    row(label, [&](const SystemResult& a) { return a.feasible() ? fmt::format(fmt::runtime(format), value(a)) : "n/a"; },
        "{:>14}");
  };
  time_row("gradient computation / iter (s)", [](auto& a) { return a.gradient_s; }, "{:>14.3f}");
  time_row("  as the paper timed it (s)", [](auto& a) { return a.paper_gradient_s; }, "{:>14.3f}");
  time_row("communication / iter (s)", [](auto& a) { return a.communication_s; }, "{:>14.3f}");
  time_row("aggregate + update / iter (s)", [](auto& a) { return a.aggregate_update_s; }, "{:>14.3f}");
  time_row("barrier / iter (s)", [](auto& a) { return a.barrier_s; }, "{:>14.3f}");
  // The rest of an iteration: polling and status waits, model uploads beside the gradient, a crashed peer's
  // absence, whatever its design spends outside the four parts above (so that the parts add up to it).
  time_row("other (waits, polls) / iter (s)", [](auto& a) { return a.other_s(); }, "{:>14.3f}");
  time_row("iteration (s)", [](auto& a) { return a.iteration_s; }, "{:>14.3f}");
  time_row("total (s)", [](auto& a) { return a.total_s; }, "{:>14.3f}");
  // Peers of several groups: each group's compute and what it waits for the others (communication, barrier,
  // other), per iteration, and when its last peer ended.
  for (size_t g = 0; g < e.peer_groups.size() && e.peer_groups.size() > 1; ++g) {
    const auto& group = e.peer_groups[g];
    // Within the label column: the group's name, cut to 11 characters (its count is in the first line).
    const auto label = [&](const char* what) { return fmt::format("  [{:.11}] {}", group.name, what); };
    time_row(label("gradient/iter (s)").c_str(), [g](auto& a) { return a.groups[g].means.gradient_s; }, "{:>14.3f}");
    time_row(label("comm+wait/iter (s)").c_str(), [g](auto& a) {
      const auto& m = a.groups[g].means;
      return m.communication_s + m.barrier_s + m.other_s();
    }, "{:>14.3f}");
    time_row(label("ends at (s)").c_str(), [g](auto& a) { return a.groups[g].end_s; }, "{:>14.3f}");
  }
  // A ratio against the baseline, or what stands in for one.
  auto vs_baseline = [&r](double Comparison::*ratio) {
    return [&r, ratio](const SystemResult& a) {
      const auto c = r.comparison(a);
      return c ? fmt::format("{:.2f}", (*c).*ratio) : std::string(&a == r.baseline() ? "baseline" : "n/a");
    };
  };
  row("speed-up vs baseline (x)", vs_baseline(&Comparison::total_speedup), "{:>14}");
  if (s.experiment.asynchronous) {
    row("staleness mean (iterations)", [](auto& a) { return a.staleness_mean(); }, "{:>14.3f}");
    row("staleness max (iterations)", [](auto& a) { return a.staleness_max(); }, "{:>14d}");
  }
  row("waiting for failed peers (s)", [](auto& a) { return a.run.failure_detection_wait_s; }, "{:>14.3f}");
  // When a burstable peer's CPU credit balance reached zero means two things: a standard-mode peer is throttled to
  // its baseline from then; an unlimited one keeps full speed on surplus credits, billed unless its earnings repay
  // them by the end (0.0 for a T3, which launches with none). Shown apart, so that a reader does not take the second
  // for the first.
  auto first_zero_balance = [&](const SystemResult& a, bool unlimited) {
    double first = -1;
    for (size_t i = 0; i < a.run.credits_exhausted_at_s.size(); ++i) {
      const double t = a.run.credits_exhausted_at_s[i];
      if (t >= 0 && s.peer_type(static_cast<int>(i)).unlimited == unlimited && (first < 0 || t < first)) first = t;
    }
    return first < 0 ? std::string("never") : fmt::format("{:.1f}", first);
  };
  bool standard = false, unlimited = false;
  for (const auto& g : s.peer_groups)
    if (g.type.burstable()) (g.type.unlimited ? unlimited : standard) = true;
  if (standard) row("CPU throttled, credits out, from (s)", [&](auto& a) { return first_zero_balance(a, false); }, "{:>14}");
  if (unlimited) row("CPU surplus credits spent from (s)", [&](auto& a) { return first_zero_balance(a, true); }, "{:>14}");
  // The sizes each system's functions ran at: a design may size its own (sharded reducers, tree aggregators),
  // whatever the experiment's <functions memory_mb> says.
  row("functions' memory (MB)", [](auto& a) { return memory_sizes_text(a.run.ledger.function_runs, "none"); },
      "{:>14}");
  row("cost: instances (USD)", [](auto& a) { return a.cost.instances_usd; }, "{:>14.6f}");
  row("cost: CPU credit surplus (USD)", [](auto& a) { return a.cost.cpu_credits_usd; }, "{:>14.6f}");
  row("cost: broker (USD)", [](auto& a) { return a.cost.broker_usd; }, "{:>14.6f}");
  row("cost: function compute (USD)", [](auto& a) { return a.cost.function_compute_usd; }, "{:>14.6f}");
  row("cost: function requests (USD)", [](auto& a) { return a.cost.function_requests_usd; }, "{:>14.6f}");
  row("cost: workflow (USD)", [](auto& a) { return a.cost.workflow_usd; }, "{:>14.6f}");
  row("cost: storage requests (USD)", [](auto& a) { return a.cost.storage_usd; }, "{:>14.6f}");
  row("cost: total (USD)", [](auto& a) { return a.cost.total_usd(); }, "{:>14.6f}");
  row("cost vs baseline (x)", vs_baseline(&Comparison::cost_ratio), "{:>14}");
  if (e.accuracy.enabled) print_accuracy_rows(r, row, out);
  if (r.replicates) print_replicate_rows(r, row);
  for (const auto& a : r.systems)
    if (!a.feasible())
      fmt::print(out, "\n{} is INFEASIBLE, its times mean nothing; the cost is what was spent before it failed:\n  {}\n",
                 a.name, a.run.failure);
  const std::string& base = e.baseline;
  for (const auto& a : r.systems)
    if (auto c = r.comparison(a))
      fmt::print(out, "\ngradient-computation time improvement ({} vs {}): {:.2f} % (as the paper timed it: {:.2f} %)\n"
                      "total time ({} vs {}): {}\n"
                      "cost ratio ({} / {}{}): {:.2f}x\n",
                 a.name, base, c->gradient_improvement_percent, c->paper_gradient_improvement_percent, a.name, base,
                 speed_up_text(c->total_speedup), a.name, base, e.cost_includes_broker ? "" : ", broker not counted",
                 c->cost_ratio);
  if (const std::string x = extrapolation_note(s); !x.empty()) fmt::print(out, "\nextrapolated: {}\n", x);
}

// Each peer group's means, when the peers are of several (an empty list otherwise).
static nlohmann::ordered_json groups_json(const SystemResult& a) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& g : a.groups)
    list.push_back({{"name", g.name},
                    {"instance_type", g.instance_type},
                    {"count", g.count},
                    {"gradient_s_per_iteration", g.means.gradient_s},
                    {"communication_s_per_iteration", g.means.communication_s},
                    {"aggregate_update_s_per_iteration", g.means.aggregate_update_s},
                    {"barrier_s_per_iteration", g.means.barrier_s},
                    {"other_s_per_iteration", g.means.other_s()},
                    {"iteration_s", g.means.iteration_s},
                    {"end_s", g.end_s}});
  return list;
}

// groups.csv: a row per system and peer group.
static std::string groups_csv(const Result& r) {
  std::string csv = csv_header(group_columns());
  for (const auto& a : r.systems)
    for (const auto& g : a.groups) csv += csv_row(group_columns(), GroupRow{r, a, g});
  return csv;
}

static nlohmann::ordered_json accuracy_json(const AccuracyResult& a, double target) {
  nlohmann::ordered_json j;
  j["target"] = target;
  j["replayed"] = a.not_replayed.empty();
  j["why_not"] = a.not_replayed;
  const AccuracyPoint* last = a.last_evaluated();
  const AccuracyPoint* hit = a.first_reaching(target);
  j["final_test_accuracy"] = last ? nlohmann::ordered_json(*last->test_accuracy) : nlohmann::ordered_json();
  j["reached"] = hit != nullptr;
  j["iterations_to_target"] = hit ? nlohmann::ordered_json(hit->iteration + 1) : nlohmann::ordered_json();
  j["time_to_target_s"] = hit ? nlohmann::ordered_json(hit->time_s) : nlohmann::ordered_json();
  j["cost_to_target_usd"] = hit ? nlohmann::ordered_json(hit->cost_usd) : nlohmann::ordered_json();
  // [iteration, time_s, cost_usd, train_loss, test_loss, test_accuracy]; the test ones null between evaluations
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  auto maybe = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  for (const auto& p : a.points)
    curve.push_back({p.iteration, p.time_s, p.cost_usd, p.train_loss, maybe(p.test_loss), maybe(p.test_accuracy)});
  j["curve"] = std::move(curve);
  return j;
}

nlohmann::ordered_json result_json(const Result& r) {
  const Scenario& s = *r.scenario;
  const auto& e = s.experiment;
  nlohmann::ordered_json j;
  j["p2psim_version"] = P2PSIM_VERSION;
  j["experiment"] = e.name;
  j["seed"] = e.seed;
  j["inputs_xxh64"] = r.input_hashes;
  const auto& first = s.peer_groups[0];  // every peer's, unless there are groups (below)
  double function_need = 0;
  for (const auto& g : s.peer_groups)
    for (double need : g.invocation_need_bytes) function_need = std::max(function_need, need);
  j["memory"] = {{"checked", s.memory_checked},
                 {"peer_need_bytes", first.need_bytes},
                 {"peer_memory_bytes", first.memory_bytes},
                 {"function_need_bytes_max", function_need},
                 {"function_memory_bytes", s.function_memory_bytes},
                 {"smallest_function_memory_mb", s.smallest_function_memory_mb()}};
  j["scenario"] = {{"model", e.workload.model},
                   {"input_shape", e.workload.input_shape},
                   {"dataset", e.workload.dataset},
                   {"peers", e.peers},
                   {"instance_type", e.instance_type},
                   {"iterations", e.workload.iterations},
                   {"minibatches_per_peer", first.minibatches.size()},
                   {"minibatch_sizes", first.minibatches},
                   {"invocations_per_peer", first.invocations.size()},
                   {"function_memory_mb", e.functions.memory_mb},
                   {"function_arch", e.functions.arch},
                   {"function_vcpus", s.function_vcpus},
                   {"parameters", s.parameters},
                   {"gradient_bytes", s.gradient_bytes},
                   {"compression", e.exchange.compression},
                   {"exchange_bytes", s.exchange_bytes},
                   {"function_gradient_bytes", s.function_gradient_bytes},
                   {"profile_as_of", e.profile_as_of}};  // "": the profile as written, its latest measurements
  j["compute_model"] = {
      {"extrapolated", s.peer_extrapolation.any() || s.function_extrapolation.any()},
      {"note", extrapolation_note(s)},
      {"cpu_work", e.workload.cpu_work},  // which of each CPU's speed factors the run used: vector or scalar
      {"peer_speed_factor", s.peer_groups[0].type.cpu_speed_factor},
      {"function_speed_factor", s.function_speed_factor},
      {"peer_steps_measured_on_target", s.peer_groups[0].steps.has_value()},
      {"function_steps_measured_on_target", s.function_steps.has_value()}};
  if (e.peer_groups.size() > 1) {  // the per-peer values above are one group's: each group's own instead
    j["memory"].erase("peer_need_bytes");
    j["memory"].erase("peer_memory_bytes");
    j["compute_model"].erase("peer_speed_factor");
    j["compute_model"].erase("peer_steps_measured_on_target");
    for (const char* key : {"minibatches_per_peer", "minibatch_sizes", "invocations_per_peer"}) j["scenario"].erase(key);
    for (size_t g = 0; g < e.peer_groups.size(); ++g) {
      const auto& group = e.peer_groups[g];
      const auto& model = s.peer_groups[g];
      j["scenario"]["peer_groups"].push_back({{"name", group.name},
                                              {"count", group.count},
                                              {"instance_type", group.instance_type},
                                              {"slowdown", group.slowdown},
                                              {"shard_samples", model.shard_samples},
                                              {"minibatch_sizes", model.minibatches},
                                              {"invocations_per_peer", model.invocations.size()},
                                              {"need_bytes", model.need_bytes},
                                              {"memory_bytes", model.memory_bytes},
                                              {"speed_factor", model.type.cpu_speed_factor},
                                              {"steps_measured_on_target", model.steps.has_value()}});
    }
  }
  j["cost_ratio_includes_broker"] = e.cost_includes_broker;
  if (r.replicates) j["replicates"] = {{"n", r.replicates->n}, {"seed", r.replicates->seed}};
  j["baseline"] = e.baseline;
  for (const auto& system : r.systems) {
    const auto* a = &system;
    const auto& c = a->cost;
    auto& entry = j["systems"][a->name];
    entry = {
        {"strategy", a->strategy},
        {"status", a->feasible() ? "ok" : "infeasible"},
        {"reason", a->run.failure},
        {"transport", a->run.transport},
        {"mechanisms", mechanism_names(a->run.mechanisms)},
        {"participation", a->run.participation},  // the share of the peers that compute each round
        {"gradient_s_per_iteration", a->gradient_s},
        {"paper_gradient_s_per_iteration", a->paper_gradient_s},
        {"communication_s_per_iteration", a->communication_s},
        {"aggregate_update_s_per_iteration", a->aggregate_update_s},
        {"barrier_s_per_iteration", a->barrier_s},
        {"iteration_s", a->iteration_s},
        {"total_s", a->total_s},
        {"compute_extrapolated", compute_extrapolated(s, *a)},
        {"phase_means_s", a->phase_means_s},
        {"groups", groups_json(*a)},
        {"cost_usd",
         {{"instances", c.instances_usd}, {"cpu_credit_surplus", c.cpu_credits_usd}, {"broker", c.broker_usd}, {"function_compute", c.function_compute_usd},
          {"function_requests", c.function_requests_usd}, {"workflow", c.workflow_usd}, {"storage", c.storage_usd},
          {"total", c.total_usd()},
          {"by_role", {{"compute", c.compute_usd()}, {"storage", c.storage_usd},
                       {"orchestration", c.orchestration_usd()},
                       {"shared_infrastructure", c.shared_infrastructure_usd()}}},
          {"counted_in_cost_ratio", c.counted_usd(e.cost_includes_broker)}}},
        {"usage",
         {{"function_invocations", a->run.ledger.function_runs.size()},
          {"function_memory_mb", memory_sizes_mb(a->run.ledger.function_runs)}, {"cold_starts", a->run.cold_starts},
          {"warm_starts", a->run.warm_starts}, {"max_containers", a->run.max_containers},
          {"workflow_transitions", a->run.ledger.workflow_transitions}, {"storage_gets", a->run.ledger.storage_gets},
          {"storage_puts", a->run.ledger.storage_puts},
          {"storage_throttled_requests", a->run.ledger.storage_throttled_requests},
          {"storage_throttle_wait_s", a->run.ledger.storage_throttle_wait_s},
          {"gradient_deliveries", a->run.deliveries.size()},
          {"surplus_cpu_credits", a->run.ledger.surplus_credits},
          {"staleness_mean_iterations", a->staleness_mean()},
          {"failure_detection_wait_s", a->run.failure_detection_wait_s},
          {"staleness_max_iterations", a->staleness_max()},
          {"credits_exhausted_at_s_per_peer", a->run.credits_exhausted_at_s}}}};
    if (a->accuracy) entry["accuracy"] = accuracy_json(*a->accuracy, e.accuracy.target);
    if (r.replicates) {
      const auto* sr = r.replicates->of(a->name);
      nlohmann::ordered_json bands;
      bands["n"] = r.replicates->n;
      bands["finished"] = sr ? sr->feasible : 0;
      if (sr)
        for (const auto& [quantity, b] : sr->bands) bands[quantity] = {{"p10", b.p10}, {"p50", b.p50}, {"p90", b.p90}};
      entry["replicates"] = std::move(bands);
    }
    if (auto cmp = r.comparison(system))
      entry["vs_baseline"] = {{"gradient_time_improvement_percent", cmp->gradient_improvement_percent},
                              {"paper_gradient_time_improvement_percent", cmp->paper_gradient_improvement_percent},
                              {"total_time_speedup", cmp->total_speedup},
                              {"cost_ratio", cmp->cost_ratio}};
  }
  return j;
}

void write_results(const Result& r, const std::string& dir) {
  fs::create_directories(dir);
  std::string json = json_text(result_json(r), 2) + "\n";
  const Scenario& s = *r.scenario;
  const auto& e = s.experiment;
  std::string csv = csv_header(result_columns());
  std::string trace = csv_header(trace_columns());
  if (trace_columns().size() != 8) throw std::logic_error("trace.csv's columns and its row format differ");
  // Reserved, not grown by doubling: each doubling copies the rows into fresh pages, and a page's first touch
  // is most of what a row costs (a paper-grid trace is up to ~1 MB). 96 bytes: above the grid's longest row, 79.
  size_t rows = 0;
  for (const auto& system : r.systems) rows += system.run.trace.size();
  trace.reserve(trace.size() + rows * 96);
  for (const auto& system : r.systems) {
    csv += csv_row(result_columns(), SystemRow{r, system, r.comparison(system)});
    // Formatted in place, the format parsed at compile time: no string per row (2.3 M rows in the paper grid); the
    // times as fmt's "{:.9f}" without its arbitrary-precision path (fixed9.hpp). trace_columns(), in its order.
    for (const auto& p : system.run.trace) {
      fmt::format_to(std::back_inserter(trace), FMT_COMPILE("{},{},{},{},{},"), system.name, p.peer, p.iteration,
                     p.invocation, to_string(p.phase));
      append_fixed9(trace, p.start_s);
      trace += ',';
      append_fixed9(trace, p.end_s);
      trace += ',';
      append_fixed9(trace, p.end_s - p.start_s);
      trace += '\n';
    }
  }
  std::vector<std::pair<std::string, std::string>> files;  // moved in: a trace can be 1.6 GB (22 million rows)
  files.emplace_back("result.json", std::move(json));
  files.emplace_back("result.csv", std::move(csv));
  files.emplace_back("trace.csv", std::move(trace));
  if (e.peer_groups.size() > 1) files.emplace_back("groups.csv", groups_csv(r));
  if (r.sensitivity) files.emplace_back("sensitivity.csv", sensitivity_csv(*r.sensitivity));
  write_files_atomically(dir, files);
}

}  // namespace p2psim
