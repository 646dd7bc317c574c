// Burstable CPU credits against hand computations (cpu-and-workflow-facts.md §1.1-1.3).
#include <doctest/doctest.h>

#include "compute/cpu_credits.hpp"

using namespace p2psim;

namespace {
InstanceType t2_medium(double launch = 60) {
  InstanceType t;
  t.name = "t2.medium";
  t.vcpus = 2;
  t.credits_earned_per_hour = 24;
  t.max_credits = 576;
  t.launch_credits = launch;
  return t;
}
}  // namespace

TEST_CASE("a t2 with no credits computes at its baseline share") {
  CpuCredits c(t2_medium(0));
  // 24 credits/h = 0.4 vCPU of the 2: work takes 5 times longer, and credits ran out at once.
  CHECK(c.run(0, 100) == doctest::Approx(500));
  CHECK(c.exhausted_at_s() == doctest::Approx(0));
}

TEST_CASE("launch credits last their share, then the baseline") {
  CpuCredits c(t2_medium(60));
  // Drain at full speed: 2/60 spent - 24/3600 earned = 1/37.5 credits per second: 60 credits last 2,250 s
  // (cpu-and-workflow-facts.md §1.3: 38 min for t2.medium).
  CHECK(c.run(0, 1000) == doctest::Approx(1000));
  CHECK(c.exhausted_at_s() < 0);
  const double wall = c.run(1000, 2000);  // 1,250 s at full speed, then 750 s of work at 1/5 speed
  CHECK(wall == doctest::Approx(1250 + 750 * 5));
  CHECK(c.exhausted_at_s() == doctest::Approx(2250));
}

TEST_CASE("idle time earns credits back, up to the cap") {
  CpuCredits c(t2_medium(0));
  c.run(0, 0);
  CHECK(c.run(3600, 0) == 0);  // an hour idle: 24 credits
  CHECK(c.balance() == doctest::Approx(24));
  c.run(3600 * 100, 0);
  CHECK(c.balance() == doctest::Approx(576));  // capped at 24 h of earnings
}

TEST_CASE("unlimited mode never slows and counts the surplus it must pay for") {
  auto t = t2_medium(0);
  t.unlimited = true;
  CpuCredits c(t);
  CHECK(c.run(0, 3600) == doctest::Approx(3600));
  // One hour at 100 % on 2 vCPUs: 120 credits spent, 24 earned: 96 surplus credits ($0.05 per 60).
  CHECK(c.surplus_credits() == doctest::Approx(96));
  CHECK(c.exhausted_at_s() == doctest::Approx(0));
}

TEST_CASE("fixed-performance instances are not affected") {
  InstanceType m5;
  m5.vcpus = 2;
  CpuCredits c(m5);
  CHECK(c.run(0, 123) == 123);
  CHECK(c.exhausted_at_s() < 0);
}

TEST_CASE("credits drain by the vCPUs a step keeps busy, not by all of them") {
  // One of the two vCPUs busy: 1/60 spent - 24/3600 earned = 0.01 credits per second: 60 credits last 6,000 s,
  // where both vCPUs busy would exhaust them after 2,250 s.
  CpuCredits one(t2_medium(60));
  CHECK(one.run(0, 5000, 1.0) == doctest::Approx(5000));
  CHECK(one.exhausted_at_s() < 0);
  CHECK(one.run(5000, 2000, 1.0) == doctest::Approx(1000 + 1000 * 5));
  CHECK(one.exhausted_at_s() == doctest::Approx(6000));
  // Below the baseline's 0.4 vCPU the balance only grows.
  CpuCredits light(t2_medium(0));
  CHECK(light.run(0, 1000, 0.3) == doctest::Approx(1000));
  CHECK(light.exhausted_at_s() < 0);
}
