// Participants computed rather than simulated (sim/simulation/strategies/computed_participants.hpp) against the
// actors (--exact-participants): the same scenario both ways must give the same run, every phase and every
// billed quantity within 1e-9 relative (issue 40), where the peers' storage transfers share slices of the storage
// link, peers of two kinds share each slice (different NICs: different penalties under LV08), an "up to" NIC
// bursts, burstable CPUs are throttled, objects move in parts on several streams, and only some peers take part.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "same_run.hpp"
#include "sim_fixture.hpp"
#include "simulation/strategies/computed_invocations.hpp"

using namespace p2psim;

namespace {

// LV08 and the network's latency (the fixture's exact overrides set CM02 and none), and (kSlices) a storage link
// that 64 peers can fill, so that they share it in slices of 32. The test profile's t2.xlarge bursts its NIC to twice its
// baseline (its bucket lasts the run); here it starts without CPU credits (standard mode: it computes at its
// baseline share).
const char* kOverrides = R"(
    <override select="simulation/@network_model" value="LV08"/>
    <override select="network/@one_way_latency_s" value="0.00017"/>
    <override select="instance_types/instance[@type='t2.xlarge']/@launch_credits" value="0"/>)";
const char* kSlices = R"(<override select="object_storage/@aggregate_bandwidth_bps" value="2e9"/>)";

std::string body(int peers) {
  // Two kinds of peer in every slice: t2.xlarge (bursting NIC, throttled CPU) and c5.large, slowed down twice.
  // Heavy-tailed steps keep the peers' events apart: simultaneous events are ordered differently by SimGrid and
  // by the queue.
  return R"(
    <workload model="resnet18_cifar" input_shape="3x32x32" dataset="cifar10" batch_size="64" iterations="2"/>
    <peers>
      <group count=")" + std::to_string(peers / 2) + R"(" instance_type="t2.xlarge"/>
      <group count=")" + std::to_string(peers / 2) + R"(" instance_type="c5.large" slowdown="2"/>
    </peers>
    <stragglers tail_probability="1" tail_shape="3"/>
    <systems>
      <system name="tree" strategy="serverless_tree"/>
      <system name="tree3_half" strategy="serverless_tree" levels="3" participation="0.5"/>
      <system name="sharded" strategy="serverless_sharded" shards="4"/>
      <system name="sharded_parts" strategy="serverless_sharded" shards="2" storage_streams="4" storage_part_mb="5" storage_threshold_mb="5"/>
      <system name="ps" strategy="parameter_server" servers="4" server_type="c5.large"/>
      <system name="ps_half" strategy="parameter_server" servers="3" server_type="c5.xlarge" participation="0.5"/>
    </systems>)";
}

// The fixture's experiment with the shipped kernel calibration instead of the hand-made one, which does not hold
// the small minibatches of hundreds of peers (the times need not be computable by hand: both ways are compared).
Scenario scenario(const TempDir& dir, int peers, const std::string& overrides = "") {
  const std::string path = dir.path("experiment.xml");
  std::ofstream(path) << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << fixture::kSource
                      << "/tests/data/test_profile.xml\">" << fixture::exact_overrides_then(kOverrides + overrides)
                      << "\n  </profile>\n" << body(peers) << "\n</experiment>\n";
  return fixture::scenario(path);
}

void check_both_ways(int peers, const std::string& overrides = kSlices,
                     const std::vector<std::string>& systems = {"tree", "tree3_half", "sharded", "sharded_parts", "ps",
                                                                "ps_half"}) {
  TempDir dir;
  const auto s = scenario(dir, peers, overrides);
  for (const std::string& name : systems) {
    CAPTURE(name);
    const auto& system = fixture::system(s, name);
    const RunOutput computed = simulate_isolated(s, system, sg::StorageSharing::Optimistic, false);
    const RunOutput actors = simulate_isolated(s, system, sg::StorageSharing::Optimistic, true);
    REQUIRE(computed.participants_computed);
    REQUIRE_FALSE(actors.participants_computed);
    CHECK(computed.failure.empty());
    const auto& exhausted = computed.credits_exhausted_at_s;  // the t2.xlarge peers' CPU ran at its baseline
    CHECK(std::any_of(exhausted.begin(), exhausted.begin() + peers / 2, [](double at) { return at >= 0; }));
    CHECK(exhausted.back() < 0);  // the c5.large ones have no credits
    same_run::check_same_run(computed, actors, 0, 1e-9);
  }
}

// `system` with its aggregator functions' transfers simulated (SimGrid comms on real slots), whatever the
// platform allows.
RunOutput simulate_aggregators(const Scenario& s, const SystemSpec& system, bool exact_participants) {
  simulation::set_computed_invocations(false);
  RunOutput out;
  try {
    out = simulate_isolated(s, system, sg::StorageSharing::Optimistic, exact_participants);
  } catch (...) {
    simulation::set_computed_invocations(true);
    throw;
  }
  simulation::set_computed_invocations(true);
  return out;
}

}  // namespace

TEST_CASE("computed aggregators: the same run as simulated ones, with participants computed or actors") {
  TempDir dir;
  // Functions' storage rates bound by their CPU share (100 MB/s per vCPU): an aggregator's slot is set to its
  // memory's rate when it takes it, a SimGrid call that lets other actors run, and simulated aggregators that
  // started together once took the same slot and shared its NIC.
  const auto s = scenario(dir, 64, std::string(kSlices) + R"(
    <override select="function_service/@storage_client_bps_per_vcpu" value="1e8"/>)");
  for (const std::string name : {"tree", "tree3_half", "sharded", "sharded_parts"}) {
    CAPTURE(name);
    const auto& system = fixture::system(s, name);
    auto spec = platform_spec(s, system);
    spec.storage_sharing = sg::StorageSharing::Optimistic;
    REQUIRE(simulation::invocations_computable(s, simulation::make_strategy(system, s)->needs(), spec));
    for (const bool exact_participants : {false, true}) {
      CAPTURE(exact_participants);
      const RunOutput computed = simulate_isolated(s, system, sg::StorageSharing::Optimistic, exact_participants);
      const RunOutput simulated = simulate_aggregators(s, system, exact_participants);
      CHECK(computed.failure.empty());
      CHECK(computed.participants_computed == !exact_participants);
      same_run::check_same_run(computed, simulated, 0, 1e-9);
    }
  }
}

TEST_CASE("computed participants: the same run as actors at 64 peers (two slices of the storage link)") {
  check_both_ways(64);
}

TEST_CASE("computed participants: the same run as actors at 256 peers (eight slices)") { check_both_ways(256); }

TEST_CASE("computed participants: a parameter server's peers with flows capped below their NICs") {
  // EC2's single-flow limit below the c5.large NICs: each flow to or from a server is capped (a flow-cap link on
  // every instance's routes), a bound and a penalty of its own.
  const std::string capped = R"(<override select="network/@single_flow_bps" value="3e7"/>)";
  check_both_ways(64, capped, {"ps", "ps_half"});
  TempDir dir, uncapped_dir;
  const auto s = scenario(dir, 64, capped), uncapped = scenario(uncapped_dir, 64);
  const RunOutput slow = simulate_isolated(s, fixture::system(s, "ps")),
                  fast = simulate_isolated(uncapped, fixture::system(uncapped, "ps"));
  CHECK(fixture::peer_phase_total(slow, 0, Phase::Receive) > fixture::peer_phase_total(fast, 0, Phase::Receive));
}

TEST_CASE("computed participants: not where an \"up to\" NIC could run out of credits, the actors run instead") {
  TempDir dir;
  // A bucket of 0.05 s at the baseline (4.7 MB) against 2 x 45 MB each way: the actors run, and their NICs fall
  // back to the baseline once it is spent (sg/nic_credits.hpp), so the run takes longer than with a full bucket.
  // No slices, and storage streams faster than the baseline: the NIC binds, not the storage service.
  const std::string streams = R"(<override select="object_storage/@stream_bandwidth_bps" value="1.5e8"/>)";
  const auto dry = scenario(dir, 64, streams + R"(<override select="instance_types/instance[@type='t2.xlarge']/@nic_credit_s" value="0.05"/>)");
  const RunOutput r = simulate_isolated(dry, fixture::system(dry, "tree"));
  CHECK_FALSE(r.participants_computed);
  CHECK(r.failure.empty());
  TempDir full_dir;
  const auto full = scenario(full_dir, 64, streams);
  const RunOutput f = simulate_isolated(full, fixture::system(full, "tree"));
  CHECK(f.participants_computed);
  CHECK(fixture::peer_phase_total(r, 0, Phase::Send) > fixture::peer_phase_total(f, 0, Phase::Send));
}

TEST_CASE("computed participants: not where peers compute through functions, download in steps, or when asked for "
          "actors") {
  TempDir dir;
  const auto s = fixture::scenario(fixture::write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="1"/>
    <peers count="4" instance_type="t2.large"/>
    <systems>
      <system name="tree_functions" strategy="serverless_tree" compute="functions"/>
      <system name="ps_functions" strategy="parameter_server" servers="1" compute="functions"/>
      <system name="ps" strategy="parameter_server" servers="1"/>
      <system name="tree" strategy="serverless_tree"/>
      <system name="tree_first_part" strategy="serverless_tree" storage_streams="4" storage_size_probe="first_part"/>
      <system name="ps_first_part" strategy="parameter_server" servers="1" storage_streams="4" storage_size_probe="first_part"/>
      <system name="ps_first_part_one_stream" strategy="parameter_server" servers="1" storage_size_probe="first_part"/>
    </systems>)"));
  CHECK_FALSE(fixture::simulate(s, "tree_functions").participants_computed);
  CHECK_FALSE(fixture::simulate(s, "ps_functions").participants_computed);
  CHECK(fixture::simulate(s, "tree").participants_computed);
  CHECK(fixture::simulate(s, "ps").participants_computed);
  // A shard that downloads in steps (its first part alone, then the rest): the actors run it.
  CHECK_FALSE(fixture::simulate(s, "tree_first_part").participants_computed);
  CHECK_FALSE(fixture::simulate(s, "ps_first_part").participants_computed);
  // One stream too: the Go downloader's one worker GETs the other parts one after another (since 2026-12-07).
  CHECK_FALSE(fixture::simulate(s, "ps_first_part_one_stream").participants_computed);
  for (const std::string name : {"tree", "ps"})
    CHECK_FALSE(simulate_isolated(s, fixture::system(s, name), sg::StorageSharing::Optimistic, true).participants_computed);
}

TEST_CASE("computed participants: not where a peer's storage client binds (its CPU), which only the actors' routes carry") {
  // The test profile's t2.large (a 62.5 MB/s NIC) at a twentieth of the calibration CPU: its transfer manager moves
  // 0.05 / 1.6e-9 = 31.25 MB/s, below its NIC (a link on its route to storage); its get_object on one stream
  // 0.05 / 0.5e-9 = 100 MB/s, above it (none).
  TempDir dir;
  const auto s = fixture::scenario(fixture::write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="1"/>
    <peers count="4" instance_type="t2.large"/>
    <systems>
      <system name="tree" strategy="serverless_tree"/>
      <system name="ps" strategy="parameter_server" servers="1"/>
      <system name="tree_parts" strategy="serverless_tree" storage_streams="4"/>
      <system name="ps_parts" strategy="parameter_server" servers="1" storage_streams="4"/>
    </systems>)", R"(<override select="instance_types/instance[@type='t2.large']/@cpu_speed_factor" value="0.05"/>)"));
  CHECK(fixture::simulate(s, "tree").participants_computed);
  CHECK(fixture::simulate(s, "ps").participants_computed);
  CHECK_FALSE(fixture::simulate(s, "tree_parts").participants_computed);
  CHECK_FALSE(fixture::simulate(s, "ps_parts").participants_computed);
}

TEST_CASE("computed participants: not a parameter server's where its server's \"up to\" NIC could run out, nor an "
          "asynchronous one's") {
  TempDir dir;
  // 4 peers x 2 rounds x 2 x 4.58 MiB through the t2.xlarge server: 77 MB, more than a 0.5 s bucket at its
  // 93.75 MB/s baseline (47 MB); its peers' own NICs (t2.large) have no credits.
  const std::string peers = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="2"/>
    <peers count="4" instance_type="t2.large"/>
    <systems><system name="ps" strategy="parameter_server" servers="1" server_type="t2.xlarge"/></systems>)";
  auto with_bucket = [&](const std::string& seconds, const std::string& extra = "") {
    return fixture::scenario(fixture::write_experiment(dir, peers + extra, R"(<override select="instance_types/instance[@type='t2.xlarge']/@nic_credit_s" value=")" + seconds + R"("/>)"));
  };
  CHECK_FALSE(fixture::simulate(with_bucket("0.5"), "ps").participants_computed);
  CHECK(fixture::simulate(with_bucket("3600"), "ps").participants_computed);
  CHECK_FALSE(fixture::simulate(with_bucket("3600", R"(<synchronization mode="async" staleness_bound="1"/>)"), "ps")
                  .participants_computed);
}
