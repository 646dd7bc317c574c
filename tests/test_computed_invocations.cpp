// Gradient function invocations computed rather than simulated (sim/simulation/strategies/computed_invocations.hpp)
// against the simulated reference: the same scenario run both ways must give the same run, to rounding, where
// no two events tie (SimGrid's order of simultaneous events is not the queue's: where they tie, the goldens and
// the scenario traces under tests/scenarios pin the queue's).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "same_run.hpp"
#include "sim_fixture.hpp"
#include "simulation/strategies/computed_invocations.hpp"

using namespace p2psim;

namespace {

/// Runs `system` with invocations simulated as actors, whatever the platform allows.
RunOutput simulate_with_actors(const Scenario& s, const std::string& system) {
  simulation::set_computed_invocations(false);
  RunOutput out;
  try {
    out = fixture::simulate(s, system);
  } catch (...) {
    simulation::set_computed_invocations(true);
    throw;
  }
  simulation::set_computed_invocations(true);
  return out;
}

bool computable(const Scenario& s, const std::string& system, sg::StorageSharing sharing = sg::StorageSharing::Exact) {
  const auto& sys = fixture::system(s, system);
  auto spec = platform_spec(s, sys);
  spec.storage_sharing = sharing;
  return simulation::invocations_computable(s, simulation::make_strategy(sys, s)->needs(), spec);
}

}  // namespace

TEST_CASE("computed invocations: the same run as simulated ones, with LV08 and latency, cold and warm starts, "
          "failures and retries") {
  TempDir dir;
  // LV08 and a network latency (the fixture's exact overrides set CM02 and none): the lone-flow formula's
  // latency factor, bandwidth factor and TCP bound all count. Heavy-tailed steps and the cold starts' spread keep
  // the invocations' events apart, and one peer has no other peer to tie with at its 2 s polls.
  const std::string overrides = R"(
    <override select="simulation/@network_model" value="LV08"/>
    <override select="network/@one_way_latency_s" value="0.00017"/>
    <override select="function_service/cold_start/@image_sigma" value="0.348"/>
    <override select="workflow_service/@task_retry_attempts" value="3"/>)";
  const std::string peers = R"(
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb="1024"/>
    <stragglers tail_probability="1" tail_shape="3"/>)";
  // SimGrid adds each sleep to its clock, the queue to the invocation's own: rounding, well under a microsecond.
  const double tolerance_s = 1e-9;
  SUBCASE("three iterations: cold starts, then every branch on a warm container") {
    auto s = fixture::scenario(fixture::write_experiment(dir, R"(
      <workload model="mnist_cnn" input_shape="1x28x28" dataset="fashion_mnist" batch_size="2000" iterations="3"/>
      <accuracy target="0.2" eval_every="2" test_samples="500"/>)" + peers,
                                                         overrides));
    REQUIRE(computable(s, "serverless"));
    const auto computed = fixture::simulate(s, "serverless");
    CHECK(computed.failure.empty());
    CHECK(computed.cold_starts == static_cast<long long>(s.peer_groups[0].invocations.size()));
    CHECK(computed.warm_starts == 2 * computed.cold_starts);
    CHECK(computed.updates.size() == 3);  // recorded for the accuracy replay, with what each had metered
    same_run::check_same_run(computed, simulate_with_actors(s, "serverless"), tolerance_s);
  }
  SUBCASE("a function network's token bucket that runs dry mid-transfer, and refills between invocations") {
    // A small bucket (0.5 MB over 20 MB/s, refilling at 10 MB/s; the test profile's streams move 55 MB/s): the
    // functions' GETs of their samples and their gradients' PUTs empty it and move the rest at 20 MB/s; warm
    // containers carry what their last invocation left, and what they earned idle since.
    const std::string experiment = R"(
      <workload model="mnist_cnn" input_shape="1x28x28" dataset="fashion_mnist" batch_size="2000" iterations="3"/>)" +
                                   peers;
    auto s = fixture::scenario(fixture::write_experiment(dir, experiment, overrides + R"(
      <override select="function_service/@network_sustained_bps" value="20000000"/>
      <override select="function_service/@network_burst_bytes" value="500000"/>
      <override select="function_service/@network_refill_bps" value="10000000"/>)"));
    REQUIRE(s.profile.functions.network_sustained_bps == 2e7);
    REQUIRE(computable(s, "serverless"));
    const auto computed = fixture::simulate(s, "serverless");
    CHECK(computed.failure.empty());
    same_run::check_same_run(computed, simulate_with_actors(s, "serverless"), tolerance_s);
    // The bucket did run dry: without it (the test profile's never does) the functions' handlers run shorter (the
    // peers' 2 s polls absorb the difference in the iterations' ends).
    const auto unbounded =
        fixture::simulate(fixture::scenario(fixture::write_experiment(dir, experiment, overrides)), "serverless");
    auto handler_s = [](const RunOutput& out) {
      double sum = 0;
      for (const auto& run : out.ledger.function_runs) sum += run.run_s;
      return sum;
    };
    CHECK(handler_s(computed) > handler_s(unbounded) + 0.1);
  }
  SUBCASE("failed attempts retried, on new containers or warm ones of invocations that ended") {
    // One iteration: a burst of branches that all start at once finds no warm container, so which branch SimGrid
    // serves first (its order, not the queue's) cannot pick who starts cold.
    auto s = fixture::scenario(fixture::write_experiment(dir, R"(
      <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="1"/>)" + peers +
                                                             R"(<failures function_failure_probability="0.3"/>)",
                                                         overrides));
    REQUIRE(computable(s, "serverless"));
    const auto computed = fixture::simulate(s, "serverless");
    CHECK(computed.failure.empty());
    CHECK(computed.ledger.function_runs.size() > s.peer_groups[0].invocations.size());  // some attempts failed and were retried
    CHECK(computed.warm_starts > 0);                                          // some retries found a warm container
    same_run::check_same_run(computed, simulate_with_actors(s, "serverless"), tolerance_s);
  }
}

TEST_CASE("computed invocations: not where an invocation could wait or share its route") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="1"/>
    <peers count="2" instance_type="t2.large"/>)";
  CHECK(computable(fixture::scenario(fixture::write_experiment(dir, body)), "serverless"));
  CHECK_FALSE(computable(fixture::scenario(fixture::write_experiment(dir, body)), "instance"));  // no functions
  // A limit the containers reach: invocations would queue.
  CHECK_FALSE(computable(fixture::scenario(fixture::write_experiment(
                             dir, body, R"(<override select="function_service/@concurrency_limit" value="3"/>)")),
                         "serverless"));
  // A broker outage: publishing would wait for it.
  CHECK_FALSE(computable(fixture::scenario(fixture::write_experiment(
                             dir, body + R"(<failures broker_outage_from_s="1" broker_outage_to_s="2"/>)")),
                         "serverless"));
  // A storage link the functions could fill: their transfers share it, unless the platform is optimistic (each
  // slot's route its own, the link watched: tests/test_simulation.cpp, "network: optimistic storage sharing").
  const auto narrow = fixture::scenario(fixture::write_experiment(
      dir, body, R"(<override select="object_storage/@aggregate_bandwidth_bps" value="1e8"/>)"));
  CHECK_FALSE(computable(narrow, "serverless"));
  CHECK(computable(narrow, "serverless", sg::StorageSharing::Optimistic));
}

TEST_CASE("computed invocations: PUTs over S3's request rate wait for a later second, counted as the actors' are") {
  // One peer fans 30 minibatches out to functions; S3 takes one PUT a second (one prefix): the functions' gradient
  // PUTs (the peer's own goes inline through the broker) queue a second apart. The requests are planned when the
  // invocations start, the actors' when they ask, so the two runs may order them differently; both count every
  // throttled request, and at most one PUT a second is served in its own second.
  TempDir dir;
  auto s = fixture::scenario(fixture::write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="30" iterations="1"/>
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb="1769"/>
    <architectures run="serverless"/>)", R"(
    <override select="object_storage/@put_requests_per_prefix_per_s" value="1"/>)"));
  REQUIRE(computable(s, "serverless"));
  const auto computed = fixture::simulate(s, "serverless");
  const auto actors = simulate_with_actors(s, "serverless");
  for (const RunOutput* r : {&computed, &actors}) {
    CHECK(r->failure.empty());
    CHECK(r->ledger.storage_puts >= 30);  // and the peer's model for the functions
    const double end_s = *std::max_element(r->peer_end_s.begin(), r->peer_end_s.end());
    CHECK(r->ledger.storage_throttled_requests >= r->ledger.storage_puts - static_cast<long long>(std::floor(end_s)) - 1);
    CHECK(r->ledger.storage_throttle_wait_s > 0);
    CHECK(end_s > 29);  // the 30th PUT is served 29 s after the first at the earliest
  }
  CHECK(computed.ledger.storage_puts == actors.ledger.storage_puts);
  CHECK(computed.ledger.function_storage_requests == actors.ledger.function_storage_requests);
  CHECK(computed.ledger.function_storage_requests > 0);
  CHECK(computed.mechanisms == actors.mechanisms);
  CHECK(computed.ledger.storage_throttled_requests == actors.ledger.storage_throttled_requests);
}
