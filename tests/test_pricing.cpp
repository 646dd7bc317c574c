// Pricing against hand-computed bills from a price book, the book's billing rules, and the memory -> CPU share of
// functions.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <type_traits>

#include "cost/pricing.hpp"
#include "inputs/cloud_profile.hpp"
#include "inputs/price_book.hpp"
#include "temp_dir.hpp"
#include "util/input_error.hpp"

using namespace p2psim;

// A function run takes all five of its values or none: the four of the layout before billed INIT existed must not
// compile (they would put the handler's duration in billed INIT and leave the handler at 0 s).
static_assert(std::is_constructible_v<FunctionRun, int, std::string, double, double, double>);
static_assert(!std::is_constructible_v<FunctionRun, int, std::string, double, double>);
static_assert(std::is_default_constructible_v<FunctionRun>);

namespace {
// The test profile: the shipped performance values (tests/data/test_profile.xml), and its price book of round
// made-up prices (tests/data/test_prices.xml).
CloudProfile shipped() { return load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml"); }
PriceBook prices() { return load_price_book(shipped().price_book_path, shipped()); }
// Two 3008 MB runs, 8 transitions, 10 GETs and 4 PUTs: the metered part of the hand-computed bills below.
Ledger serverless_usage() {
  Ledger l;
  // The first ran 2.5 s of cold start, of which 1.71 s INIT: 11.711 s billed; the second was warm: 10 s.
  l.function_runs = {{3008, "x86", 2.5, 1.71, 10.0004}, {3008, "x86", 0, 0, 10.0}};
  l.workflow_transitions = 8;
  l.storage_gets = 10;
  l.storage_puts = 4;
  return l;
}
}  // namespace

TEST_CASE("function duration is billed in whole milliseconds, INIT included when the price book says so") {
  auto p = prices();
  CHECK(billed_function_seconds({128, "x86", 0, 0, 2.0004}, p.functions) == doctest::Approx(2.001));
  CHECK(billed_function_seconds({128, "x86", 0, 0, 0.003}, p.functions) == doctest::Approx(0.003));  // exact: not 4 ms
  // A cold start of 2.3 s, of which INIT 1.5 s: the platform's start before INIT is not billed.
  CHECK(billed_function_seconds({128, "x86", 2.3, 1.5, 2.0}, p.functions) == doctest::Approx(3.5));
  p.functions.init_billed = false;
  CHECK(billed_function_seconds({128, "x86", 2.3, 1.5, 2.0}, p.functions) == doctest::Approx(2.0));
}

TEST_CASE("a serverless bill computed by hand") {
  auto p = prices();
  Ledger l = serverless_usage();
  l.instances = {{"t2.large", 30.0}, {"t2.large", 61.2}};  // 60 s minimum; per-second rounding up
  l.broker_uptime_s = 61.2;
  const Cost c = price(l, p);
  CHECK(c.function_compute_usd == doctest::Approx((11.711 + 10.0) * 3008 / 1024.0 * 0.00002).epsilon(1e-9));
  CHECK(c.function_requests_usd == doctest::Approx(2 * 0.000001).epsilon(1e-9));
  CHECK(c.workflow_usd == doctest::Approx(8 * 0.00003).epsilon(1e-9));
  CHECK(c.storage_usd == doctest::Approx(10 * 0.000001 + 4 * 0.00001).epsilon(1e-9));
  CHECK(c.instances_usd == doctest::Approx((60 + 62) / 3600.0 * 0.1).epsilon(1e-9));
  CHECK(c.broker_usd == doctest::Approx(62 / 3600.0 * 0.1).epsilon(1e-9));
  CHECK(c.total_usd() == doctest::Approx(c.function_compute_usd + c.function_requests_usd + c.workflow_usd +
                                         c.storage_usd + c.instances_usd + c.broker_usd).epsilon(1e-9));
}

TEST_CASE("the cost at a moment of a run: uptime so far, usage metered so far, the whole bill at the end") {
  auto p = prices();
  Ledger l = serverless_usage();
  l.instances = {{"t2.large", 200.0}, {"t2.large", 150.0}};
  l.broker_uptime_s = 200.0;
  const CostTimeline timeline(l, p);
  // At 100 s: one function run, 3 transitions, 5 GETs and 2 PUTs metered; both instances and the broker up
  // 100 s (above the 60 s minimum).
  const Cost at = timeline.at(100.0, {1, 3, 5, 2});
  CHECK(at.function_compute_usd == doctest::Approx(11.711 * 3008 / 1024.0 * 0.00002).epsilon(1e-9));
  CHECK(at.function_requests_usd == doctest::Approx(1 * 0.000001).epsilon(1e-9));
  CHECK(at.workflow_usd == doctest::Approx(3 * 0.00003).epsilon(1e-9));
  CHECK(at.storage_usd == doctest::Approx(5 * 0.000001 + 2 * 0.00001).epsilon(1e-9));
  CHECK(at.instances_usd == doctest::Approx(2 * 100 / 3600.0 * 0.1).epsilon(1e-9));
  CHECK(at.broker_usd == doctest::Approx(100 / 3600.0 * 0.1).epsilon(1e-9));
  // At 10 s the instance minimum applies; at the end the timeline is the bill.
  CHECK(timeline.at(10.0, {}).instances_usd == doctest::Approx(2 * 60 / 3600.0 * 0.1).epsilon(1e-9));
  CHECK(timeline.at(200.0, {2, 8, 10, 4}).total_usd() == doctest::Approx(price(l, p).total_usd()).epsilon(1e-9));
}

TEST_CASE("each function run is billed at its own memory size and architecture's price") {
  auto p = prices();
  Ledger l;
  l.function_runs = {{1024, "arm", 0, 0, 1.0}, {2048, "x86", 0, 0, 0.5}};
  CHECK(price(l, p).function_compute_usd == doctest::Approx(1.0 * 1 * 0.00001 + 0.5 * 2 * 0.00002).epsilon(1e-9));
}

TEST_CASE("instances are billed at their own type's price, a design without a broker pays none") {
  auto p = prices();
  p.instances.per_hour_usd.at("m5.large") = 0.36;
  Ledger l;
  l.instances = {{"t2.large", 3600}, {"m5.large", 1800}};
  const Cost c = price(l, p);
  CHECK(c.instances_usd == doctest::Approx(0.1 + 0.18).epsilon(1e-9));
  CHECK(c.broker_usd == 0);
}

TEST_CASE("function CPU share: memory / 1769 MB, capped at 6 vCPUs and at the visible cores") {
  auto f = shipped().functions;
  CHECK(f.vcpus(1769) == doctest::Approx(1.0));
  CHECK(f.vcpus(885) == doctest::Approx(885 / 1769.0));
  CHECK(f.vcpus(3008) == doctest::Approx(3008 / 1769.0));
  CHECK(f.vcpus(10240) == doctest::Approx(10240 / 1769.0));  // 5.79: under both caps
  f.max_vcpus = 3;
  CHECK(f.vcpus(10240) == doctest::Approx(3.0));
  f.visible_cores.front().second = 1;  // pretend only one core were visible up to 3008 MB
  CHECK(f.vcpus(3008) == doctest::Approx(1.0));
}

TEST_CASE("workflow branches beyond the burst start at the ramp rate") {
  auto w = shipped().workflow;
  CHECK(w.branch_start_delay_s(0) == doctest::Approx(0.15));
  CHECK(w.branch_start_delay_s(19) == doctest::Approx(0.15));
  CHECK(w.branch_start_delay_s(20) == doctest::Approx(0.15 + 1 / 5.0));
  CHECK(w.branch_start_delay_s(49) == doctest::Approx(0.15 + 30 / 5.0));
}

TEST_CASE("a price book's billing rules: a function run's minimum, free GB-seconds and requests taken by the first") {
  auto p = prices();
  // A provider billing functions by the 100 ms, at least 100 ms, with 10 GB-s and 1 request free.
  p.functions.billing = {0.1, 0.1};
  p.functions.free_gb_s = 10;
  p.functions.free_requests = 1;
  CHECK(billed_function_seconds({1024, "x86", 0, 0, 0.01}, p.functions) == doctest::Approx(0.1));
  CHECK(billed_function_seconds({1024, "x86", 0, 0, 0.25}, p.functions) == doctest::Approx(0.3));
  Ledger l;
  // 8 s at 1 GB (8 GB-s: free), 4 s at 1 GB (2 free, 2 charged), 3 s at 2 GB arm (6 charged at the arm price).
  l.function_runs = {{1024, "x86", 0, 0, 8.0}, {1024, "x86", 0, 0, 4.0}, {2048, "arm", 0, 0, 3.0}};
  const auto each = function_runs_compute_usd(l.function_runs, p.functions);
  REQUIRE(each.size() == 3);
  CHECK(each[0] == 0);
  CHECK(each[1] == doctest::Approx(2 * 0.00002).epsilon(1e-9));
  CHECK(each[2] == doctest::Approx(6 * 0.00001).epsilon(1e-9));
  const Cost c = price(l, p);
  CHECK(c.function_compute_usd == doctest::Approx(2 * 0.00002 + 6 * 0.00001).epsilon(1e-9));
  CHECK(c.function_requests_usd == doctest::Approx(2 * 0.000001).epsilon(1e-9));
  // The cost at a moment takes the same allowance in the same order: after the first run, nothing yet.
  const CostTimeline timeline(l, p);
  CHECK(timeline.at(1.0, {1, 0, 0, 0}).function_compute_usd == 0);
  CHECK(timeline.at(1.0, {1, 0, 0, 0}).function_requests_usd == 0);
  // A broker billed by the hour, at least one.
  p.broker.billing = {3600, 3600};
  l.broker_uptime_s = 10;
  CHECK(price(l, p).broker_usd == doctest::Approx(0.1).epsilon(1e-9));
}

TEST_CASE("a price book that leaves a platform's instance type or an architecture unpriced is refused by name") {
  TempDir dir;
  auto book = [&](const std::string& name, const std::string& arches) {
    std::ofstream(dir.path(name)) << R"(<price_book provider="x" region="r" currency="USD" date="2026-01-01">
  <instances billing_granularity_s="1" surplus_credit_per_vcpu_hour_usd="0">
    <instance type="t2.large" per_hour_usd="1"/>
  </instances>
  <functions billing_granularity_s="0.001" init_billed="true" per_request_usd="0">)" << arches << R"(</functions>
  <workflow per_transition_usd="0"/>
  <object_storage per_get_usd="0" per_put_usd="0"/>
  <broker per_hour_usd="0" billing_granularity_s="1"/>
</price_book>
)";
    return dir.path(name);
  };
  const std::string one_type = book("one_type.xml", R"(<arch name="x86" per_gb_s_usd="1"/><arch name="arm" per_gb_s_usd="1"/>)");
  const std::string one_arch = book("one_arch.xml", R"(<arch name="x86" per_gb_s_usd="1"/>)");
  auto error_of = [&](const std::string& path) {
    try {
      load_price_book(path, shipped());
    } catch (const InputError& e) {
      return e;
    }
    FAIL("an incomplete price book was accepted: " << path);
    return InputError("", 0, "", "");
  };
  const InputError type = error_of(one_type);
  CHECK(type.file == one_type);
  CHECK(type.line == 2);
  CHECK(type.field == "instances/instance");
  CHECK(type.message.find("no price for the instance type 'c5.2xlarge'") != std::string::npos);
  const InputError arch = error_of(one_arch);
  CHECK(arch.file == one_arch);
  CHECK(arch.line == 5);
  CHECK(arch.field == "functions/arch");
  CHECK(arch.message.find("the architecture 'arm'") != std::string::npos);
}

TEST_CASE("a price book read once is checked against each platform, and a bad override's value names the override") {
  // The book is parsed once per process (a sweep's scenarios inherit it); a platform whose override renamed an
  // instance type is still held to it.
  const auto profile = shipped();
  const std::string book = profile.price_book_path;
  CHECK_NOTHROW(load_price_book(book, profile));
  const auto renamed = load_cloud_profile(profile.path, {{"instance_types/instance[@type='t2.medium']/@type",
                                                          "t2.renamed", "x.xml", 4}});
  CHECK_THROWS_WITH_AS(load_price_book(book, renamed), doctest::Contains("no price for the instance type 't2.renamed'"),
                       InputError);
  try {
    load_price_book(book, profile, {{"functions/@per_request_usd", "abc", "experiment.xml", 9}});
    FAIL("a price that is not a number was accepted");
  } catch (const InputError& e) {
    CHECK(e.file == "experiment.xml");
    CHECK(e.line == 9);
    CHECK(e.field == "override/@value");
  }
}
