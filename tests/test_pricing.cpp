// Pricing against hand-computed bills, and the memory -> CPU share of functions.
#include <doctest/doctest.h>

#include "cloud_profile.hpp"
#include "pricing.hpp"

using namespace p2psim;

namespace {
CloudProfile shipped() { return load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/platforms/aws_us_east_1.xml"); }
}  // namespace

TEST_CASE("function duration is billed in whole milliseconds, INIT included when the profile says so") {
  auto p = shipped();
  CHECK(billed_function_seconds({0, 2.0004}, p.functions) == doctest::Approx(2.001));
  CHECK(billed_function_seconds({0, 0.003}, p.functions) == doctest::Approx(0.003));  // exact: not 4 ms
  CHECK(billed_function_seconds({1.5, 2.0}, p.functions) == doctest::Approx(3.5));
  p.functions.init_billed = false;
  CHECK(billed_function_seconds({1.5, 2.0}, p.functions) == doctest::Approx(2.0));
}

TEST_CASE("a serverless bill computed by hand") {
  auto p = shipped();
  Ledger l;
  l.function_memory_mb = 3008;
  l.function_price_per_gb_s_usd = p.functions.price_per_gb_s_x86_usd;
  l.function_runs = {{1.71, 10.0004}, {0, 10.0}};  // 11.711 s and 10 s billed
  l.workflow_transitions = 8;
  l.storage_gets = 10;
  l.storage_puts = 4;
  l.peer_uptime_s = {30.0, 61.2};  // 60 s minimum; per-second rounding up
  l.instance_price_per_hour_usd = 0.0928;
  l.broker_uptime_s = 61.2;
  const Cost c = price(l, p);
  CHECK(c.function_compute_usd == doctest::Approx((11.711 + 10.0) * 3008 / 1024.0 * 0.0000166667));
  CHECK(c.function_requests_usd == doctest::Approx(2 * 0.0000002));
  CHECK(c.workflow_usd == doctest::Approx(8 * 0.000025));
  CHECK(c.storage_usd == doctest::Approx(10 * 0.0000004 + 4 * 0.000005));
  CHECK(c.instances_usd == doctest::Approx((60 + 62) / 3600.0 * 0.0928));
  CHECK(c.broker_usd == doctest::Approx(62 / 3600.0 * 0.288));
  CHECK(c.total_usd() == doctest::Approx(c.function_compute_usd + c.function_requests_usd + c.workflow_usd +
                                         c.storage_usd + c.instances_usd + c.broker_usd));
}

TEST_CASE("arm functions are billed at the arm price") {
  auto p = shipped();
  Ledger l;
  l.function_memory_mb = 1024;
  l.function_price_per_gb_s_usd = p.functions.price_per_gb_s_arm_usd;
  l.function_runs = {{0, 1.0}};
  CHECK(price(l, p).function_compute_usd == doctest::Approx(0.0000133334));
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
