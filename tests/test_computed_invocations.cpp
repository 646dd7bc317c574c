// Gradient function invocations computed rather than simulated (sim/simulation/strategies/computed_invocations.hpp)
// against the simulated reference: the same scenario run both ways must give the same run, to rounding, where
// no two events tie (SimGrid's order of simultaneous events is not the queue's: where they tie, the goldens and
// the scenario traces under tests/scenarios pin the queue's).
#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>
#include <vector>

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

std::vector<PhaseRecord> sorted_trace(const RunOutput& r) {
  auto rows = r.trace;
  std::sort(rows.begin(), rows.end(), [](const PhaseRecord& a, const PhaseRecord& b) {
    return std::tie(a.peer, a.iteration, a.invocation, a.start_s, a.phase) <
           std::tie(b.peer, b.iteration, b.invocation, b.start_s, b.phase);
  });
  return rows;
}

/// The same run to `tolerance_s`: every trace row, every billed function run, the counts and the peers' ends.
void check_same_run(const RunOutput& computed, const RunOutput& simulated, double tolerance_s) {
  CHECK(computed.failure == simulated.failure);
  CHECK(computed.ledger.storage_gets == simulated.ledger.storage_gets);
  CHECK(computed.ledger.storage_puts == simulated.ledger.storage_puts);
  CHECK(computed.ledger.workflow_transitions == simulated.ledger.workflow_transitions);
  CHECK(computed.cold_starts == simulated.cold_starts);
  CHECK(computed.max_containers == simulated.max_containers);
  const auto a = sorted_trace(computed), b = sorted_trace(simulated);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i].peer == b[i].peer);
    CHECK(a[i].iteration == b[i].iteration);
    CHECK(a[i].invocation == b[i].invocation);
    CHECK(a[i].phase == b[i].phase);
    CHECK(std::abs(a[i].start_s - b[i].start_s) <= tolerance_s);
    CHECK(std::abs(a[i].end_s - b[i].end_s) <= tolerance_s);
  }
  auto runs = [](const RunOutput& r) {
    std::vector<std::pair<double, double>> v;
    for (const auto& f : r.ledger.function_runs) v.emplace_back(f.init_s, f.run_s);
    std::sort(v.begin(), v.end());
    return v;
  };
  const auto ra = runs(computed), rb = runs(simulated);
  REQUIRE(ra.size() == rb.size());
  for (size_t i = 0; i < ra.size(); ++i) {
    CHECK(std::abs(ra[i].first - rb[i].first) <= tolerance_s);
    CHECK(std::abs(ra[i].second - rb[i].second) <= tolerance_s);
  }
  // What each update had metered by its moment (the schedule prices a run up to it): records of computed
  // invocations count from the instant they happen, not from when they were computed.
  REQUIRE(computed.updates.size() == simulated.updates.size());
  for (size_t i = 0; i < computed.updates.size(); ++i) {
    const auto &u = computed.updates[i], &v = simulated.updates[i];
    CHECK(std::abs(u.time_s - v.time_s) <= tolerance_s);
    CHECK(u.usage.function_runs == v.usage.function_runs);
    CHECK(u.usage.workflow_transitions == v.usage.workflow_transitions);
    CHECK(u.usage.storage_gets == v.usage.storage_gets);
    CHECK(u.usage.storage_puts == v.usage.storage_puts);
  }
  REQUIRE(computed.peer_end_s.size() == simulated.peer_end_s.size());
  for (size_t i = 0; i < computed.peer_end_s.size(); ++i)
    CHECK(std::abs(computed.peer_end_s[i] - simulated.peer_end_s[i]) <= tolerance_s);
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
    check_same_run(computed, simulate_with_actors(s, "serverless"), tolerance_s);
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
    check_same_run(computed, simulate_with_actors(s, "serverless"), tolerance_s);
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
