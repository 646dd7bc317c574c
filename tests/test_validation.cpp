// Validation cases: reading them, what each quantity reads from a result (against hand computations), the
// summary, and the regression guard.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <tuple>

#include "results/columns.hpp"
#include "results/results.hpp"
#include "results/validation.hpp"
#include "simulation/strategies/strategy.hpp"
#include "sim_fixture.hpp"
#include "util/read_text.hpp"

using namespace p2psim;
namespace fs = std::filesystem;
namespace v = p2psim::validation;

namespace {

// One t2.large peer loading all of MNIST (60,000 x 3,136 B) from storage, then training once.
const char* kOnePeer = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
            compute_variability="none"/>
  <peers count="1" instance_type="t2.large"/>
  <systems><system name="peer" strategy="p2p_all_to_all" compute="peer"/></systems>)";

// Made-up traces are read against this experiment: its scenario gives the prices, the message and the iterations.
const char* kThreeIterationsOnFunctions = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="3"/>
  <peers count="1" instance_type="t2.large"/>
  <systems><system name="peer" strategy="p2p_all_to_all" compute="functions"/></systems>)";

std::string write_case(const TempDir& dir, const std::string& metrics, const std::string& role = "validation",
                       const std::string& name = "c1") {
  const std::string path = dir.path(name + ".case.xml");
  std::ofstream(path) << "<case name=\"" << name << "\" role=\"" << role << "\" design=\"object_storage\">\n"
                      << "  <source group=\"G\" reference=\"R\" url=\"https://example.org/data.csv\" where=\"row 1\""
                         " measured=\"2020\"/>\n"
                      << "  <experiment file=\"experiment.xml\" system=\"peer\"/>\n"
                      << metrics << "\n</case>\n";
  return path;
}

PhaseRecord rec(int peer, int it, int inv, Phase ph, double start, double end) {
  PhaseRecord p;
  p.peer = peer, p.iteration = it, p.invocation = inv, p.phase = ph, p.start_s = start, p.end_s = end;
  return p;
}

}  // namespace

TEST_CASE("validate: a peer's shard download read from a simulated run matches the hand computation") {
  TempDir dir;
  fixture::write_experiment(dir, kOnePeer);
  const auto c = v::load_case(write_case(
      dir, R"(<metric name="mbps" kind="throughput" unit="MB/s" quantity="shard_fetch_mb_per_s" measured="100"/>)"));
  const auto s = fixture::scenario(c.experiment_path);
  const auto r = summarise(s, fixture::system(s, "peer"), fixture::simulate(s, "peer"));
  // 188.16 MB over the slower of the peer's NIC (62.5 MB/s) and one storage connection (87.5 MB/s), after the
  // first byte (0.15 s); the exact overrides remove network latency and TCP corrections.
  const double bytes = 60000.0 * 3136, seconds = 0.15 + bytes / 62.5e6;
  const double expected = bytes / 1e6 / seconds;
  const double predicted = v::predict(c, c.metrics[0], s, r);
  CHECK(predicted == doctest::Approx(expected).epsilon(1e-6));
  const v::Row row{&c, &c.metrics[0], predicted};
  CHECK(row.error_percent() == doctest::Approx(100 * (expected / 100 - 1)).epsilon(1e-6));
}

TEST_CASE("validate: trace quantities and the warm function cost, computed by hand on a made-up run") {
  TempDir dir;
  fixture::write_experiment(dir, kThreeIterationsOnFunctions);
  const auto c = v::load_case(write_case(dir, R"(
  <metric name="span" kind="time" unit="s" quantity="phase_span_s" phases="cold_start reduce" from_iteration="1" measured="1"/>
  <metric name="median" kind="time" unit="s" quantity="phase_median_s" phases="reduce" measured="1"/>
  <metric name="mean" kind="time" unit="s" quantity="phase_mean_s" phases="reduce" measured="1"/>
  <metric name="spread" kind="time" unit="s" quantity="branch_start_spread_s" measured="1"/>
  <metric name="warm" kind="cost" unit="USD" quantity="warm_function_usd_per_iteration" measured="1"/>
  <metric name="fn" kind="cost" unit="USD" quantity="cost_usd_per_iteration" services="function_compute storage" measured="1"/>
  <metric name="send" kind="throughput" unit="MB/s" quantity="send_mb_per_s" from_iteration="1" measured="1"/>
  <metric name="tail" kind="time" unit="s" quantity="phase_to_end_s" phases="deserialize reduce" from_iteration="1" measured="1"/>
  <metric name="lead" kind="time" unit="s" quantity="phase_to_start_s" phases="reduce deserialize" from_iteration="1" measured="1"/>)"));
  const auto s = fixture::scenario(c.experiment_path);
  SystemResult r;
  r.name = "peer";
  r.run.trace = {
      rec(-1, 0, 0, Phase::Reduce, 0, 100),                                    // cold iteration: left out of span
      rec(-1, 1, 0, Phase::ColdStart, 10, 12), rec(-1, 1, 0, Phase::Reduce, 12, 20),
      rec(-1, 1, 1, Phase::Reduce, 11, 25),                                    // iteration 1 spans 10..25 = 15
      rec(-1, 2, 0, Phase::Reduce, 30, 34), rec(-1, 2, 1, Phase::Reduce, 31, 40),  // iteration 2: 30..40 = 10
      rec(0, 0, 0, Phase::DataFetch, 1.0, 2), rec(0, 0, 1, Phase::DataFetch, 1.5, 2),   // spread 0.5
      rec(0, 1, 0, Phase::DataFetch, 5.0, 6), rec(0, 1, 1, Phase::DataFetch, 5.25, 6),  // spread 0.25
      rec(0, 2, 0, Phase::DataFetch, 7.0, 8), rec(0, 2, 1, Phase::DataFetch, 8.0, 9),   // spread 1.0
      rec(0, 0, -1, Phase::Send, 0, 50),                                                  // iteration 0: left out
      rec(0, 1, -1, Phase::Send, 10, 12), rec(0, 2, -1, Phase::Send, 20, 24)};            // sends of 2 s and 4 s
  // Two warm runs of 1 GB for 2 s and 4 s, one cold: warm mean 3 GB-s; 3 runs over 3 iterations.
  r.run.ledger.function_runs = {{1024, "x86", 0, 0, 2}, {1024, "x86", 0, 0, 4}, {2048, "x86", 1, 0.6, 10}};
  r.cost.function_compute_usd = 0.6;
  r.cost.storage_usd = 0.3;
  const auto& f = s.prices.functions;
  auto value = [&](int i) { return v::predict(c, c.metrics[i], s, r); };
  CHECK(value(0) == doctest::Approx((15 + 10) / 2.0));
  CHECK(value(1) == doctest::Approx(9));  // the reduces last 100, 8, 14, 4 and 9 s
  CHECK(value(2) == doctest::Approx((100 + 8 + 14 + 4 + 9) / 5.0));
  CHECK(value(3) == doctest::Approx(0.5));  // spreads 0.5, 0.25, 1.0
  CHECK(value(4) == doctest::Approx((3 * f.per_gb_s_usd.at("x86") + f.per_request_usd) * (3.0 / 3)).epsilon(1e-9));
  CHECK(value(5) == doctest::Approx(0.9 / 3));
  CHECK(value(6) == doctest::Approx(s.exchange_bytes / 1e6 / 3));  // the message over the mean send, 3 s
  // From a function run's deserialize start to its reduce's end, median over the warm runs: the runs of
  // iterations 1 and 2 that have both (a peer's records are no run's).
  r.run.trace.push_back(rec(-1, 1, 0, Phase::Deserialize, 14, 15));  // run (1, 0): 14 .. its reduce's end 20 = 6
  r.run.trace.push_back(rec(-1, 1, 1, Phase::Deserialize, 22, 23));  // run (1, 1): 22 .. 25 = 3
  r.run.trace.push_back(rec(-1, 2, 0, Phase::Deserialize, 31, 32));  // run (2, 0): 31 .. 34 = 3
  r.run.trace.push_back(rec(-1, 2, 0, Phase::Deserialize, 30, 31));  //   the first start counts: 30 .. 34 = 4
  r.run.trace.push_back(rec(-1, 0, 0, Phase::Deserialize, 1, 2));    // iteration 0: left out
  r.run.trace.push_back(rec(0, 1, 0, Phase::Deserialize, 0, 1));     // a peer's: no run's
  CHECK(value(7) == doctest::Approx(4));  // the runs' 6, 3, 4 (run (2, 1) has no deserialize)
  // From a run's reduce start to its first deserialize start: (1, 0) 12 .. 14 = 2, (1, 1) 11 .. 22 = 11,
  // (2, 0) 30 .. 30 = 0.
  CHECK(value(8) == doctest::Approx(2));
}

TEST_CASE("validate: GradsSharding's cost estimate bills every run of a round the slowest run's span") {
  TempDir dir;
  fixture::write_experiment(dir, kThreeIterationsOnFunctions);
  const auto c = v::load_case(write_case(dir, R"(
  <metric name="slowest" kind="cost" unit="USD" quantity="slowest_run_usd_per_iteration" phases="reduce serialize" from_iteration="1" measured="1"/>)"));
  const auto s = fixture::scenario(c.experiment_path);
  SystemResult r;
  r.name = "peer";
  r.run.trace = {
      rec(-1, 0, 0, Phase::Reduce, 0, 100), rec(-1, 0, 0, Phase::Serialize, 100, 101),  // iteration 0: left out
      // Iteration 1: three runs; reduce start to serialize start 8, 14 and 5 s: 3 runs x 14 s.
      rec(-1, 1, 0, Phase::Reduce, 12, 20), rec(-1, 1, 0, Phase::Serialize, 20, 21),
      rec(-1, 1, 1, Phase::Reduce, 11, 25), rec(-1, 1, 1, Phase::Serialize, 25, 27),
      rec(-1, 1, 2, Phase::Reduce, 10, 15), rec(-1, 1, 2, Phase::Serialize, 15, 16),
      rec(-1, 1, 3, Phase::Reduce, 10, 90),  // no serialize: no span, not counted
      // Iteration 2: two runs of 4 and 9 s: 2 runs x 9 s. A peer's records are no run's.
      rec(-1, 2, 0, Phase::Reduce, 30, 34), rec(-1, 2, 0, Phase::Serialize, 34, 35),
      rec(-1, 2, 1, Phase::Reduce, 31, 40), rec(-1, 2, 1, Phase::Serialize, 40, 41),
      rec(0, 2, 0, Phase::Reduce, 0, 60), rec(0, 2, 0, Phase::Serialize, 60, 61)};
  r.run.ledger.function_runs = {{1024, "x86", 0, 0, 2}, {1024, "x86", 1, 0.6, 10}};
  const double per_gb_s = s.prices.functions.per_gb_s_usd.at("x86");
  // 1 GB runs: (3 x 14 + 2 x 9) GB-s over the two iterations; no request fee, no free allowance.
  CHECK(v::predict(c, c.metrics[0], s, r) == doctest::Approx((3 * 14 + 2 * 9) * per_gb_s / 2).epsilon(1e-9));
  r.run.ledger.function_runs.push_back({2048, "x86", 0, 0, 3});
  CHECK_THROWS_WITH_AS(v::predict(c, c.metrics[0], s, r), doctest::Contains("differ in memory"), InputError);
  r.run.ledger.function_runs.back() = {1024, "arm", 0, 0, 3};  // the same size on the other architecture
  CHECK_THROWS_WITH_AS(v::predict(c, c.metrics[0], s, r), doctest::Contains("or architecture"), InputError);
  CHECK_THROWS_WITH_AS(
      v::load_case(write_case(dir, R"(<metric name="m" kind="cost" unit="USD" quantity="slowest_run_usd_per_iteration" phases="reduce" measured="1"/>)", "validation", "c2")),
      doctest::Contains("reads two phases"), InputError);
}

TEST_CASE("validate: the summary leaves calibration cases out, the guard flags grown and unrecorded errors") {
  v::Case a, b, cal;
  a.name = "a", a.role = "validation";
  b.name = "b", b.role = "validation";
  cal.name = "cal", cal.role = "calibration";
  v::Metric t, k;
  t.name = "t", t.kind = "time", t.measured = 10;
  k.name = "k", k.kind = "cost", k.measured = 2;
  const std::vector<v::Row> rows{{&a, &t, 11}, {&b, &t, 7}, {&cal, &t, 100}, {&a, &k, 2.5}};
  const auto time = v::summarise(rows, "time");
  CHECK(time.n == 2);  // 10 % and 30 %; the calibration case's 900 % is not counted
  CHECK(time.median_abs_percent == doctest::Approx(20));
  CHECK(time.worst_abs_percent == doctest::Approx(30));
  CHECK(time.worst->c->name == "b");
  CHECK(v::summarise(rows, "cost").median_abs_percent == doctest::Approx(25));
  CHECK(time.faster == 1);  // b's 7 s against 10: faster; a's 11 s: slower
  CHECK(v::summarise(rows, "cost").faster == 0);

  // By design: each design's own summary; a rate predicted above its measurement is faster, not slower.
  v::Case d;
  d.name = "d", d.role = "validation", d.design = "storage";
  a.design = b.design = "peer", cal.design = "network";
  v::Metric rate;
  rate.name = "r", rate.kind = "throughput", rate.measured = 100;
  auto designed = rows;
  designed.push_back({&d, &rate, 150});
  auto designs = [&](const char* group) {
    std::vector<std::string> names;
    for (const auto& [name, summary] : v::summaries_by_design(designed, group)) {
      CHECK(summary.n == v::summarise(designed, group, name).n);
      names.push_back(name);
    }
    return names;
  };
  CHECK(designs("time") == std::vector<std::string>{"peer", "storage"});  // calibration's design left out
  CHECK(designs("cost") == std::vector<std::string>{"peer"});
  const auto storage = v::summarise(designed, "time", "storage");
  CHECK(storage.n == 1);
  CHECK(storage.median_abs_percent == doctest::Approx(50));
  CHECK(storage.faster == 1);
  CHECK(designed.back().time_error_percent() == doctest::Approx(100.0 * (100.0 / 150 - 1)));
  const auto peer = v::summarise(designed, "time", "peer");
  CHECK(peer.n == 2);
  CHECK(peer.median_abs_percent == doctest::Approx(20));
  CHECK(v::summarise(designed, "time").n == 3);
  CHECK(v::summarise(designed, "time", "nonesuch").n == 0);

  // What `validate --record` keeps for `run`: every design of both groups, time first.
  const auto kept = v::accuracy_by_design(designed);
  // Then a row over every design of the group. One source (these cases name none): no spread.
  REQUIRE(kept.size() == 5);
  CHECK(kept[0].design == "peer");
  CHECK(kept[0].kind == "time");
  CHECK(kept[0].metrics == 2);
  CHECK(kept[1].design == "storage");
  CHECK(kept[1].predicted_faster == 1);
  CHECK(kept[2].design == p2psim::kEveryDesign);
  CHECK(kept[3].kind == "cost");
  CHECK(p2psim::accuracy_by_design_csv(kept) ==
        "design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,with_band,inside_band,"
        "sources,error_p10_percent,error_p90_percent,held_out_with_band,held_out_inside_band\n"
        "peer,time,2,20.0,30.0,1,0,0,1,,,0,0\n"
        "storage,time,1,50.0,50.0,1,0,0,1,,,0,0\n"
        "every_design,time,3,30.0,50.0,2,0,0,1,,,0,0\n"
        "peer,cost,1,25.0,25.0,0,0,0,1,,,0,0\n"
        "every_design,cost,1,25.0,25.0,0,0,0,1,,,0,0\n");

  const std::map<std::pair<std::string, std::string>, double> recorded{
      {{"a", "t"}, 10}, {{"b", "t"}, 24.9}, {{"cal", "t"}, 900}};
  const auto grown = v::regressions(rows, recorded, 5);
  REQUIRE(grown.size() == 2);
  CHECK(grown[0].find("b t: error 30.0 % grew past the recorded 24.9 %") == 0);
  CHECK(grown[1].find("a k: no recorded error") == 0);
  CHECK(v::regressions(rows, recorded, 5.2).size() == 1);  // 30 - 24.9 = 5.1 points: within 5.2

  // Coverage: the validation rows whose measured value lies in their predicted p10-p90 band.
  auto banded = rows;
  banded[0].band = std::make_pair(9.0, 12.0);    // holds 10
  banded[1].band = std::make_pair(6.0, 9.0);     // misses 10
  banded[2].band = std::make_pair(99.0, 101.0);  // a calibration case: not counted
  const auto covered = v::summarise(banded, "time");
  CHECK(covered.banded == 2);
  CHECK(covered.covered == 1);
  CHECK(v::summarise(banded, "cost").banded == 0);  // no band: no coverage claimed
}

TEST_CASE("validate: metrics predicted alike put a floor under the worst error, from their measurements alone") {
  v::Case a, b, c, d, cal;
  a.name = "a", b.name = "b", c.name = "c", d.name = "d", cal.name = "cal";
  a.role = b.role = c.role = d.role = "validation";
  cal.role = "calibration";
  v::Metric s10, s15, s12, rate, usd10, usd20;
  s10.kind = s15.kind = s12.kind = "time", s10.unit = s15.unit = s12.unit = "s";
  s10.measured = 1.0, s15.measured = 1.5, s12.measured = 1.2;
  rate.kind = "throughput", rate.unit = "MB/s", rate.measured = 3.0;
  usd10.kind = usd20.kind = "cost", usd10.unit = usd20.unit = "USD", usd10.measured = 1.0, usd20.measured = 2.0;
  const std::vector<v::Row> rows{
      {&a, &s10, 1.2},          // with b: 1.0 and 1.5 s measured, one prediction
      {&b, &s15, 1.2 * (1 + 1e-7)},  // alike to a millionth
      {&c, &s12, 1.21},         // predicted otherwise: alone
      {&d, &rate, 1.2},         // the same number in another unit: alone
      {&cal, &s12, 1.2},        // a calibration case: not counted
      {&a, &usd10, 5}, {&b, &usd20, 5}};
  const auto time = v::predicted_alike(rows, "time");
  REQUIRE(time.size() == 1);
  REQUIRE(time[0].rows.size() == 2);
  CHECK(time[0].rows[0]->c->name == "a");
  CHECK(time[0].rows[1]->c->name == "b");
  // The value that best meets 1.0 and 1.5 is 1.2 (2 x 1.0 x 1.5 / 2.5): +20 % and -20 %.
  CHECK(time[0].floor_percent == doctest::Approx(20));
  const auto cost = v::predicted_alike(rows, "cost");
  REQUIRE(cost.size() == 1);
  CHECK(cost[0].floor_percent == doctest::Approx(100.0 / 3));  // 4/3: +33.3 % and -33.3 %
  // A prediction that differed by more than a millionth is its own configuration.
  auto apart = rows;
  apart[1].predicted = 1.2 * (1 + 1e-5);
  CHECK(v::predicted_alike(apart, "time").empty());
}

TEST_CASE("validate: a malformed case is refused with its file, line and field") {
  TempDir dir;
  fixture::write_experiment(dir, kOnePeer);
  auto refused = [&](const std::string& metrics, const std::string& field) {
    const auto path = write_case(dir, metrics);
    try {
      v::load_case(path);
      FAIL("accepted: " << metrics);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK_MESSAGE(what.find(path + ":") == 0, what);
      CHECK_MESSAGE(what.find(field) != std::string::npos, what);
    }
  };
  refused(R"(<metric name="m" kind="time" unit="s" quantity="speed" measured="1"/>)", "metric/@quantity");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="phase_span_s" measured="1"/>)", "metric/@phases");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="phase_span_s" phases="lunch" measured="1"/>)",
          "metric/@phases");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="phase_to_end_s" phases="reduce" measured="1"/>)",
          "metric/@phases");
  refused(R"(<metric name="m" kind="cost" unit="USD" quantity="total_s" measured="1"/>)", "metric/@kind");
  refused(R"(<metric name="m" kind="time" unit="min" quantity="total_s" measured="1"/>)", "metric/@unit");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="total_s" measured="-1"/>)", "metric/@measured");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="total_s" measured="1" spread="2"/>)",
          "metric/@spread_kind");
  refused(R"(<metric name="m" kind="time" unit="s" quantity="total_s" measured="1" spread="2" spread_kind="a,b"/>)",
          "metric/@spread_kind");
  refused("", "case/metric");
  // A second <source>: which group the case counts in would be whichever came first.
  refused(R"(<source group="H" reference="R2" url="https://example.org/other.csv" where="row 2" measured="2021"/>
    <metric name="m" kind="time" unit="s" quantity="total_s" measured="1"/>)", "<source> is given twice");
}

TEST_CASE("validate: a metric is compared as of its own date, its source's, or its source's bound, else none, and a "
          "mistyped date is refused") {
  v::Case c;
  v::Metric m;
  for (const auto& [source, own, expected] :
       {std::tuple{"2021-11", "", "2021-11"}, std::tuple{"2024-04-18", "", "2024-04-18"},
        std::tuple{"2022-07 and 2024", "2024-05", "2024-05"}, std::tuple{"2022-07 and 2024", "", ""},
        std::tuple{"before 2021-06 (not stated: the paper is of 2021-06)", "", "2021-06"},
        std::tuple{"after 2023-01 (not stated)", "", "2023-01"}, std::tuple{"not stated (paper of 2021-06)", "", ""},
        std::tuple{"before 2021", "", ""}, std::tuple{"2021-11", "2020-05", "2020-05"}}) {
    CAPTURE(source);
    c.source.measured = source;
    m.measured_when = own;
    CHECK(v::measurement_date(c, m) == expected);
  }
  // A metric's own date must be one.
  TempDir dir;
  std::ofstream(dir.path("experiment.xml")) << "<experiment/>";
  const auto path = write_case(dir, R"(  <metric name="m" kind="throughput" unit="MB/s" quantity="shard_fetch_mb_per_s"
          measured="1" measured_when="mid 2022"/>)");
  try {
    v::load_case(path);
    FAIL("a metric dated 'mid 2022' was read");
  } catch (const InputError& e) {
    CHECK_MESSAGE(std::string(e.what()).find(":4: field 'metric/@measured_when': expected YYYY-MM or YYYY-MM-DD, got 'mid 2022'") !=
                      std::string::npos,
                  std::string(e.what()));
  }
  // Nor may its source's date be mistyped, nor words name no year: either would pick no date, and the profile as
  // written, without a word. "not stated" says so, and a year alone is a date.
  const std::string metric = R"(<metric name="m" kind="time" unit="s" quantity="total_s" measured="1"/>)";
  const std::string not_a_date = "is not a date (YYYY-MM or YYYY-MM-DD)", no_year = "names no year";
  for (const auto& [when, refusal] : {std::pair{"2022-13", not_a_date},
                                      std::pair{"before 2021-02-32 (not stated)", not_a_date},
                                      std::pair{"2019-10 and 2020-00", not_a_date}, std::pair{"yesterday", no_year},
                                      std::pair{"1024 MB", no_year}, std::pair{"Not stated", std::string()},
                                      std::pair{"not stated", std::string()},
                                      std::pair{"not stated (a paper of 2021-06)", std::string()},
                                      std::pair{"2021", std::string()}}) {
    CAPTURE(when);
    std::string text = read_text(write_case(dir, metric));
    text.replace(text.find("measured=\"2020\""), 15, std::string("measured=\"") + when + "\"");
    std::ofstream(dir.path("when.case.xml")) << text;
    if (refusal.empty()) {
      CHECK_NOTHROW(v::load_case(dir.path("when.case.xml")));
      continue;
    }
    try {
      v::load_case(dir.path("when.case.xml"));
      FAIL("a source measured '" << when << "' was read");
    } catch (const InputError& e) {
      CHECK(e.line == 2);
      CHECK(e.field == "source/@measured");
      CHECK(e.message.find(refusal) != std::string::npos);
    }
  }
}

TEST_CASE("validate: the recorded accuracy by design, read back, and the lines `run` prints from it") {
  TempDir dir;
  const std::string header =
      "design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,with_band,inside_band,"
      "sources,error_p10_percent,error_p90_percent,held_out_with_band,held_out_inside_band\n";
  const std::string path = dir.path("by_design.csv");
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,3,3,0,2,-22.8,-3.1,3,2\n"
                                   "sharded,time,27,22.2,61.4,21,27,1,1,,,27,16\nsharded,cost,10,30.6,45.7,9,10,0,1,,,10,2\n";
  const auto recorded = p2psim::load_accuracy_by_design(path);
  REQUIRE(recorded.size() == 3);
  CHECK(p2psim::accuracy_by_design_csv(recorded) == p2psim::read_text(path));  // written as read
  // Two systems of a design never measured whole, which used mechanisms of which one was measured alone (the
  // ring's design doubles as one here), then two measured designs, then the first design again.
  const auto lines = p2psim::accuracy_lines(
      recorded, {{"instance", "p2p_all_to_all", bit(Mechanism::InstanceCompute) | bit(Mechanism::Broker)},
                 {"sharded", "sharded", bit(Mechanism::FunctionCompute)},
                 {"serverless", "p2p_all_to_all", bit(Mechanism::FunctionColdStart) | bit(Mechanism::Broker)},
                 {"ring", "ring_allreduce", bit(Mechanism::Ec2Network)}});
  REQUIRE(lines.size() == 6);  // a design a line, in the systems' order; under one never measured, its mechanisms
  CHECK(lines[0] == "p2p_all_to_all (instance, serverless): no measured run of this design is among the validation "
                    "cases; what their runs used, each measured alone:");
  // In the mechanisms' own order, each with the systems that used it.
  CHECK(lines[1] == "  work on an instance's CPU [instance_compute; instance]: no validation case measures it");
  CHECK(lines[2] == "  function cold starts [function_cold_start; serverless]: no validation case measures it");
  CHECK(lines[3] == "  the message broker [broker; instance, serverless]: no validation case measures it");
  CHECK(lines[4] == "sharded: time 22.2 % median |error| over 27 measured metrics (worst 61.4 %), faster than measured "
                    "in 21 of 27; cost 30.6 % median |error| over 10 measured metrics (worst 45.7 %), cheaper than "
                    "measured in 9 of 10");
  CHECK(lines[5] == "ring_allreduce: time 15.5 % median |error| over 3 measured metrics (worst 22.8 %), faster than "
                    "measured in 3 of 3, its errors p10 -22.8 % to p90 -3.1 % (2 sources)");
  // A mechanism measured alone reads as a design does.
  std::ofstream(path) << header << "function_cold_start,time,5,2.9,8.0,3,5,1,1,,,5,5\n";
  const auto alone = p2psim::accuracy_lines(p2psim::load_accuracy_by_design(path),
                                            {{"serverless", "p2p_all_to_all", bit(Mechanism::FunctionColdStart)}});
  REQUIRE(alone.size() == 2);
  CHECK(alone[0] == "p2p_all_to_all (serverless): no measured run of this design is among the validation cases; "
                    "what its run used, each measured alone:");
  CHECK(alone[1] == "  function cold starts [function_cold_start; serverless]: time 2.9 % median |error| over 5 "
                    "measured metrics (worst 8.0 %), faster than measured in 3 of 5");

  // Bad files: the file, the line and the field.
  std::ofstream(path) << header << "ring_allreduce,money,3,15.5,22.8,3,3,0,1,,,3,3\n";
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains("by_design.csv:2: field 'kind'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,4,3,0,1,,,3,3\n";  // 4 of 3 faster
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'metrics'"), InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,3,1,,,3,3\n";  // 3 inside a band of 2
  CHECK_THROWS_AS(p2psim::load_accuracy_by_design(path), InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,1,,,2,3\n";  // 3 inside a held-out 2
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'metrics'"), InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,2,5.0,-5.0,3,2\n";  // p10 above p90
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p10_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,2,-5.0,,3,2\n";  // one percentile
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p10_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,2,-100,5.0,3,2\n";  // a time of 0
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p10_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,2,-5.0,ten,3,2\n";
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p90_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,1,-5.0,5.0,3,2\n";  // from one source
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p10_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,3,,,3,2\n";  // three, none
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'error_p10_percent'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,,2,1,1,,,3,2\n";  // read as 0 before
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'predicted_faster'"),
                       InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,25.5,22.8,1,2,1,1,,,3,2\n";  // median above the worst
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path),
                       doctest::Contains(":2: field 'median_abs_error_percent'"), InputError);
  std::ofstream(path) << header << "ring_allreduce,time,3,15.5,22.8,1,2,1,1,,,,\n";  // counts left empty
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":2: field 'held_out_with_band'"),
                       InputError);
  std::ofstream(path) << header << "every_design,time,3,15.5,22.8,1,2,1,1,,,3,2\n"
                                   "every_design,time,3,15.5,22.8,1,2,1,1,,,3,2\n";  // twice
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains(":3: field 'design'"), InputError);
  std::ofstream(path) << "design,kind,metrics\nring_allreduce,time,3\n";
  CHECK_THROWS_WITH_AS(p2psim::load_accuracy_by_design(path), doctest::Contains("by_design.csv"), InputError);
}

TEST_CASE("validate: the spread of the errors weighs each source alike, and each source is banded by the others") {
  // Three sources: A over-predicts a time 2x (+100 %), B has two metrics (-50 % and 0 %), C +25 %. Each source
  // weighs 1, so B's metrics 1/2 each; in logarithms the points, sorted, sit at the middle of their weight over
  // the total 3: -ln 2 at 0.25/3, 0 at 0.75/3, ln 1.25 at 1.5/3, ln 2 at 2.5/3.
  v::Case a, b, c, cal;
  a.name = "a", b.name = "b", c.name = "c", cal.name = "cal";
  a.role = b.role = c.role = "validation", cal.role = "calibration";
  a.source.group = "A", b.source.group = "B", c.source.group = "C", cal.source.group = "D";
  v::Metric t1, t2, cost;
  t1.name = "t1", t1.kind = "time", t1.measured = 10;
  t2.name = "t2", t2.kind = "time", t2.measured = 10;
  cost.name = "usd", cost.kind = "cost", cost.measured = 1;
  std::vector<v::Row> rows{{&a, &t1, 20}, {&b, &t1, 5}, {&b, &t2, 10}, {&c, &t1, 12.5}, {&cal, &t1, 1000},
                           {&a, &cost, 3}};
  std::vector<const v::Row*> time_rows{&rows[0], &rows[1], &rows[2], &rows[3]};
  const auto spread = v::error_spread(time_rows);
  REQUIRE(spread);
  CHECK(spread->sources == 3);
  // p10: a tenth of the way from 0.25/3 to 0.75/3 (0.1 = 0.25/3 + 0.1 x 0.5/3), from -ln 2 to 0: 2^-0.9 - 1.
  CHECK(spread->p10_percent == doctest::Approx(100 * (std::pow(2.0, -0.9) - 1)).epsilon(1e-12));
  CHECK(spread->p90_percent == doctest::Approx(100));  // above the last point: its value
  CHECK_FALSE(v::error_spread({&rows[1], &rows[2]}));  // one source

  // Held out: each validation row's band is the spread of the other sources' time rows.
  v::band_by_other_sources(rows);
  // A's: B and C (weights 1/2, 1/2, 1 over 2: at 0.125, 0.375, 0.75): p10 below the first (-50 %), p90 above the
  // last (+25 %); its +100 % is outside.
  REQUIRE(rows[0].held_out_band_percent);
  CHECK(rows[0].held_out_band_percent->first == doctest::Approx(-50));
  CHECK(rows[0].held_out_band_percent->second == doctest::Approx(25));
  CHECK_FALSE(rows[0].inside_held_out_band());
  // B's: A and C (at 0.25 and 0.75): +25 % to +100 %; -50 % and 0 % are outside.
  CHECK(rows[1].held_out_band_percent->first == doctest::Approx(25));
  CHECK(rows[2].held_out_band_percent->second == doctest::Approx(100));
  CHECK_FALSE(rows[1].inside_held_out_band());
  CHECK_FALSE(rows[2].inside_held_out_band());
  // C's: A and B (at 0.125, 0.375, 0.75): -50 % to +100 %; its +25 % is inside.
  CHECK(rows[3].held_out_band_percent->first == doctest::Approx(-50));
  CHECK(rows[3].held_out_band_percent->second == doctest::Approx(100));
  CHECK(rows[3].inside_held_out_band());
  CHECK_FALSE(rows[4].held_out_band_percent);  // calibration: none, and its 1000 s is in nobody's spread
  // A's cost is a time at a price: banded by B's and C's time errors, -50 to +25 %; +200 % is outside.
  CHECK(rows[5].held_out_band_percent->second == doctest::Approx(25));
  CHECK_FALSE(rows[5].inside_held_out_band());
  const auto time = v::summarise(rows, "time");
  CHECK(time.sources == 3);
  CHECK(time.held_out_banded == 4);
  CHECK(time.held_out_covered == 1);
  CHECK(v::summarise(rows, "cost").held_out_banded == 1);
  // With two sources, each has one other: no band.
  std::vector<v::Row> two{{&a, &t1, 20}, {&b, &t1, 5}};
  v::band_by_other_sources(two);
  CHECK_FALSE(two[0].held_out_band_percent);
  CHECK(v::summarise(two, "time").held_out_banded == 0);
  // A prediction of 0 is an infinite error: refused, naming the case's file, the metric's line and the field.
  a.file = "a.case.xml", t1.line = 7;
  std::vector<v::Row> zero{{&a, &t1, 0}, {&b, &t1, 5}, {&c, &t1, 12.5}};
  CHECK_THROWS_WITH_AS(v::band_by_other_sources(zero), doctest::Contains("a.case.xml:7: field 'predicted'"),
                       InputError);
  // A cost of 0 too, though no time spread holds costs: the cost summary's spread would be a NaN.
  std::vector<v::Row> free{{&a, &cost, 0}, {&b, &t1, 5}, {&c, &t1, 12.5}};
  CHECK_THROWS_WITH_AS(v::band_by_other_sources(free), doctest::Contains("field 'predicted'"), InputError);
}

TEST_CASE("validate: a mechanism case is apart: not in the summary, the record or the held-out bands") {
  // Three validation sources and a mechanism checked alone, whose 0 % (its speed set by its own source's
  // calibration case) would otherwise narrow everybody's band and lower the median.
  v::Case a, b, c, mechanism;
  a.name = "a", b.name = "b", c.name = "c", mechanism.name = "m";
  a.role = b.role = c.role = "validation", mechanism.role = "mechanism", mechanism.anchored_by = "cal";
  a.source.group = "A", b.source.group = "B", c.source.group = "C", mechanism.source.group = "M";
  v::Metric t;
  t.name = "t", t.kind = "time", t.measured = 10;
  std::vector<v::Row> without{{&a, &t, 20}, {&b, &t, 5}, {&c, &t, 12.5}};
  std::vector<v::Row> with = without;
  with.push_back({&mechanism, &t, 10});
  v::band_by_other_sources(without);
  v::band_by_other_sources(with);
  for (size_t i = 0; i < without.size(); ++i) {  // the others' bands as if it were not there
    REQUIRE(with[i].held_out_band_percent);
    CHECK(with[i].held_out_band_percent->first == doctest::Approx(without[i].held_out_band_percent->first));
    CHECK(with[i].held_out_band_percent->second == doctest::Approx(without[i].held_out_band_percent->second));
  }
  CHECK_FALSE(with[3].held_out_band_percent);
  const auto summary = v::summarise(with, "time");
  CHECK(summary.n == 3);
  CHECK(summary.sources == 3);
  CHECK(summary.median_abs_percent == doctest::Approx(50));  // 100, 50, 25: the mechanism's 0 is not among them
  REQUIRE(summary.spread);
  CHECK(summary.spread->p10_percent == doctest::Approx(v::error_spread({&without[0], &without[1], &without[2]})->p10_percent));
  const auto alone = v::summarise(with, "time", "", "mechanism");
  CHECK(alone.n == 1);
  CHECK(alone.worst_abs_percent == doctest::Approx(0));
  // Yet recorded and guarded as every case is: its error kept by --record, and flagged when it grows or is missing.
  CHECK(v::recorded_csv(with).find("\nm,t,0.0\n") != std::string::npos);
  const std::map<std::pair<std::string, std::string>, double> recorded{
      {{"a", "t"}, 100}, {{"b", "t"}, 50}, {{"c", "t"}, 25}};
  const auto unguarded = v::regressions(with, recorded, 5);
  REQUIRE(unguarded.size() == 1);
  CHECK(unguarded[0].find("m t: no recorded error") == 0);
  std::vector<v::Row> grown = with;
  grown[3].predicted = 12;  // +20 %, recorded at 0
  const auto flagged = v::regressions(grown, {{{"a", "t"}, 100}, {{"b", "t"}, 50}, {{"c", "t"}, 25}, {{"m", "t"}, 0}}, 5);
  REQUIRE(flagged.size() == 1);
  CHECK(flagged[0].find("m t: error 20.0 % grew past the recorded 0.0 %") == 0);
  // Nor is it grouped with validation metrics predicted alike (a floor under the summary's worst error).
  std::vector<v::Row> alike = with;
  alike[3].predicted = 20;  // as a's
  for (const auto& group : v::predicted_alike(alike, "time"))
    for (const v::Row* row : group.rows) CHECK(row->c->role == "validation");

  // In files: a mechanism case names its anchor, which must be a calibration case; no other role names one.
  TempDir dir;
  fixture::write_experiment(dir, kOnePeer);
  const std::string metric = R"(<metric name="m" kind="time" unit="s" quantity="total_s" measured="1"/>)";
  auto refused = [&](const std::function<void()>& load, const std::string& path) {
    try {
      load();
      FAIL("accepted: " << path);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK_MESSAGE(what.find(path + ":1: field 'case/@anchored_by'") == 0, what);  // the <case> element's line
    }
  };
  const auto unanchored = write_case(dir, metric, "mechanism", "m1");
  refused([&] { v::load_case(unanchored); }, unanchored);
  const auto anchored_validation = write_case(dir, metric, "validation\" anchored_by=\"cal1", "v1");
  refused([&] { v::load_case(anchored_validation); }, anchored_validation);
  fs::remove(unanchored), fs::remove(anchored_validation);
  const auto mechanism_file = write_case(dir, metric, "mechanism\" anchored_by=\"cal1", "m1");
  refused([&] { v::load_cases(dir.path("")); }, mechanism_file);  // no case named cal1
  const auto not_calibration = write_case(dir, metric, "validation", "cal1");
  refused([&] { v::load_cases(dir.path("")); }, mechanism_file);  // cal1 is no calibration case
  fs::remove(not_calibration);
  const auto other_source = dir.path("cal1.case.xml");  // a calibration case of another source
  {
    write_case(dir, metric, "calibration", "cal1");
    std::string text = p2psim::read_text(other_source);
    text.replace(text.find("group=\"G\""), 9, "group=\"H\"");
    std::ofstream(other_source) << text;
  }
  refused([&] { v::load_cases(dir.path("")); }, mechanism_file);
  write_case(dir, metric, "calibration", "cal1");
  const auto cases = v::load_cases(dir.path(""));
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].role == "mechanism");
  CHECK(cases[1].anchored_by == "cal1");
}

TEST_CASE("validate: the spread between its points, rates as the time to move their bytes, by hand") {
  // Six sources of one metric each, their log time errors 0, 0.1, ..., 0.5, at 1/12, 3/12, ..., 11/12. The p10
  // lies a tenth of the way from 1/12 to 3/12 (0.01), the p90 nine tenths of the way from 9/12 to 11/12 (0.49).
  // Sources 1, 3 and 5 measured a rate: p2psim's rate measured / e^x gives the time error e^x - 1.
  std::vector<v::Case> cases(6);
  std::vector<v::Metric> metrics(6);
  std::vector<v::Row> rows;
  for (int k = 0; k < 6; ++k) {
    cases[k].name = "c" + std::to_string(k), cases[k].role = "validation";
    cases[k].source.group = "S" + std::to_string(k);
    const bool rate = k % 2 == 1;
    metrics[k].name = "m", metrics[k].kind = rate ? "throughput" : "time", metrics[k].measured = 10;
    const double ratio = std::exp(0.1 * k);  // predicted time over measured time
    rows.push_back({&cases[k], &metrics[k], rate ? 10 / ratio : 10 * ratio});
  }
  std::vector<const v::Row*> all;
  for (const auto& r : rows) all.push_back(&r);
  const auto spread = v::error_spread(all);
  REQUIRE(spread);
  CHECK(spread->p10_percent == doctest::Approx(100 * std::expm1(0.01)).epsilon(1e-12));
  CHECK(spread->p90_percent == doctest::Approx(100 * std::expm1(0.49)).epsilon(1e-12));
  // Held out, the slowest (0.5) is judged by the five others, at 0.1, 0.3, ..., 0.9 of their weight: p10 and p90
  // fall on the first and last points, 0 and 0.4, and its 0.5 is outside; 0.2 lies inside 0 to 0.5.
  v::band_by_other_sources(rows);
  CHECK(rows[5].held_out_band_percent->first == doctest::Approx(0).epsilon(1e-12));
  CHECK(rows[5].held_out_band_percent->second == doctest::Approx(100 * std::expm1(0.4)).epsilon(1e-12));
  CHECK_FALSE(rows[5].inside_held_out_band());
  CHECK(rows[2].inside_held_out_band());  // 0.2 among 0, 0.1, 0.3, 0.4, 0.5
}

TEST_CASE("validate: the record of every design puts a band around each system's predicted time, by hand") {
  p2psim::DesignAccuracy every{p2psim::kEveryDesign, "time", 10, 12.0, 40.0, 5, 10, 3, 4, -20.0, 25.0, 10, 8};
  const std::vector<p2psim::SystemDesign> systems{{"fast", "ring_allreduce", 0, 100.0},
                                                  {"stuck", "ring_allreduce", 0, std::nullopt}};
  const auto lines = p2psim::record_band_lines({every}, systems);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find("p10 -20.0 %, p90 +25.0 % (error = predicted / measured - 1, so a run predicted "
                      "at T takes T / (1 + error)); held out, 8 of 10") != std::string::npos);
  // 100 s predicted: 100 / 1.25 = 80 s to 100 / 0.8 = 125 s.
  CHECK(lines[1] == "  fast   80 to 125 s (predicted 100 s)");
  CHECK(lines[2] == "  stuck  did not finish");
  auto design = every;  // a design's own row is not the record of every design
  design.design = "ring_allreduce";
  CHECK(p2psim::record_band_lines({design}, systems).empty());
  every.error_p10_percent = every.error_p90_percent = std::nullopt;  // one source: no spread, no band
  CHECK(p2psim::record_band_lines({every}, systems).empty());
}

TEST_CASE("validate: every shipped case measures a design p2psim runs or a mechanism its runs record") {
  // `run` finds a design's accuracy, or its mechanisms', by these names: a case under another name would never be
  // shown to anyone.
  std::set<std::string> known;
  for (const auto& name : simulation::strategy_names()) known.insert(name);
  for (const auto& m : kMechanisms) known.insert(m.name);
  const auto cases = v::load_cases(P2PSIM_SOURCE_DIR "/validation");
  REQUIRE(cases.size() > 50);
  for (const auto& c : cases) {
    CAPTURE(c.file);
    CHECK(known.count(c.design) == 1);
  }
}

TEST_CASE("validate: errors as times, a rate half as fast is a time twice as long, and the bands likewise, by hand") {
  v::Case c;
  c.name = "c", c.role = "validation";
  v::Metric rate, time, cost;
  rate.kind = "throughput", rate.measured = 100;  // MB/s
  time.kind = "time", time.measured = 10;         // s
  cost.kind = "cost", cost.measured = 2;          // USD
  const v::Row r{&c, &rate, 50, std::make_pair(40.0, 125.0)};
  const v::Row t{&c, &time, 12, std::make_pair(11.0, 13.0)};
  const v::Row k{&c, &cost, 1.5, std::make_pair(1.0, 2.0)};
  // 100 MB/s measured, 50 predicted: the bytes take twice as long (+100 %); the band's 125 MB/s is its short end
  // (100 / 125 - 1 = -20 %), its 40 MB/s the long one (+150 %). Times and costs as they are.
  CHECK(r.time_error_percent() == doctest::Approx(100));
  CHECK(r.error_percent() == doctest::Approx(-50));
  CHECK(r.time_error_band_percent()->first == doctest::Approx(-20));
  CHECK(r.time_error_band_percent()->second == doctest::Approx(150));
  CHECK(t.time_error_percent() == doctest::Approx(20));
  CHECK(t.time_error_band_percent()->first == doctest::Approx(10));
  CHECK(t.time_error_band_percent()->second == doctest::Approx(30));
  CHECK(k.time_error_percent() == doctest::Approx(-25));
  CHECK(k.time_error_band_percent()->first == doctest::Approx(-50));
  CHECK(k.time_error_band_percent()->second == doctest::Approx(0));
  const v::Row unbanded{&c, &rate, 50};
  CHECK_FALSE(unbanded.time_error_band_percent());
  // validation.csv carries them, so the figure draws what the summary counts (no second definition).
  const auto& columns = validation_columns();
  auto cell = [&](const v::Row& row, const char* name) {
    return std::find_if(columns.begin(), columns.end(), [&](const auto& col) { return col.name == name; })->cell(row);
  };
  CHECK(cell(r, "time_error_percent") == "100.000");
  CHECK(cell(r, "time_error_p10_percent") == "-20.000");
  CHECK(cell(r, "time_error_p90_percent") == "150.000");
  CHECK(cell(unbanded, "time_error_p10_percent").empty());
}
