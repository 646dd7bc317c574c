// Pricing against hand-computed bills, and the memory -> CPU share of functions.
#include <doctest/doctest.h>

#include "inputs/cloud_profile.hpp"
#include "cost/pricing.hpp"

using namespace p2psim;

namespace {
// The test profile: the shipped performance values with round made-up prices (tests/data/test_profile.xml).
CloudProfile shipped() { return load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml"); }
// Two 3008 MB runs, 8 transitions, 10 GETs and 4 PUTs: the metered part of the hand-computed bills below.
Ledger serverless_usage() {
  Ledger l;
  l.function_runs = {{3008, "x86", 1.71, 10.0004}, {3008, "x86", 0, 10.0}};  // 11.711 s and 10 s billed
  l.workflow_transitions = 8;
  l.storage_gets = 10;
  l.storage_puts = 4;
  return l;
}
}  // namespace

TEST_CASE("function duration is billed in whole milliseconds, INIT included when the profile says so") {
  auto p = shipped();
  CHECK(billed_function_seconds({128, "x86", 0, 2.0004}, p.functions) == doctest::Approx(2.001));
  CHECK(billed_function_seconds({128, "x86", 0, 0.003}, p.functions) == doctest::Approx(0.003));  // exact: not 4 ms
  CHECK(billed_function_seconds({128, "x86", 1.5, 2.0}, p.functions) == doctest::Approx(3.5));
  p.functions.init_billed = false;
  CHECK(billed_function_seconds({128, "x86", 1.5, 2.0}, p.functions) == doctest::Approx(2.0));
}

TEST_CASE("a serverless bill computed by hand") {
  auto p = shipped();
  Ledger l = serverless_usage();
  l.instances = {{"t2.large", 30.0}, {"t2.large", 61.2}};  // 60 s minimum; per-second rounding up
  l.broker_uptime_s = 61.2;
  const Cost c = price(l, p);
  CHECK(c.function_compute_usd == doctest::Approx((11.711 + 10.0) * 3008 / 1024.0 * 0.00002));
  CHECK(c.function_requests_usd == doctest::Approx(2 * 0.000001));
  CHECK(c.workflow_usd == doctest::Approx(8 * 0.00003));
  CHECK(c.storage_usd == doctest::Approx(10 * 0.000001 + 4 * 0.00001));
  CHECK(c.instances_usd == doctest::Approx((60 + 62) / 3600.0 * 0.1));
  CHECK(c.broker_usd == doctest::Approx(62 / 3600.0 * 0.1));
  CHECK(c.total_usd() == doctest::Approx(c.function_compute_usd + c.function_requests_usd + c.workflow_usd +
                                         c.storage_usd + c.instances_usd + c.broker_usd));
}

TEST_CASE("the cost at a moment of a run: uptime so far, usage metered so far, the whole bill at the end") {
  auto p = shipped();
  Ledger l = serverless_usage();
  l.instances = {{"t2.large", 200.0}, {"t2.large", 150.0}};
  l.broker_uptime_s = 200.0;
  const CostTimeline timeline(l, p);
  // At 100 s: one function run, 3 transitions, 5 GETs and 2 PUTs metered; both instances and the broker up
  // 100 s (above the 60 s minimum).
  const Cost at = timeline.at(100.0, {1, 3, 5, 2});
  CHECK(at.function_compute_usd == doctest::Approx(11.711 * 3008 / 1024.0 * 0.00002));
  CHECK(at.function_requests_usd == doctest::Approx(1 * 0.000001));
  CHECK(at.workflow_usd == doctest::Approx(3 * 0.00003));
  CHECK(at.storage_usd == doctest::Approx(5 * 0.000001 + 2 * 0.00001));
  CHECK(at.instances_usd == doctest::Approx(2 * 100 / 3600.0 * 0.1));
  CHECK(at.broker_usd == doctest::Approx(100 / 3600.0 * 0.1));
  // At 10 s the instance minimum applies; at the end the timeline is the bill.
  CHECK(timeline.at(10.0, {}).instances_usd == doctest::Approx(2 * 60 / 3600.0 * 0.1));
  CHECK(timeline.at(200.0, {2, 8, 10, 4}).total_usd() == doctest::Approx(price(l, p).total_usd()));
}

TEST_CASE("each function run is billed at its own memory size and architecture's price") {
  auto p = shipped();
  Ledger l;
  l.function_runs = {{1024, "arm", 0, 1.0}, {2048, "x86", 0, 0.5}};
  CHECK(price(l, p).function_compute_usd == doctest::Approx(1.0 * 1 * 0.00001 + 0.5 * 2 * 0.00002));
}

TEST_CASE("instances are billed at their own type's price; a design without a broker pays none") {
  auto p = shipped();
  p.instance_types.at("m5.large").price_per_hour_usd = 0.36;
  Ledger l;
  l.instances = {{"t2.large", 3600}, {"m5.large", 1800}};
  const Cost c = price(l, p);
  CHECK(c.instances_usd == doctest::Approx(0.1 + 0.18));
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
