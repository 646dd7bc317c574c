// Partial participation (participation.hpp): who takes part each round, what the aggregators then average,
// by hand on the test profile (tests/data/test_profile.xml, hand calibration: a 2-vCPU mnist_cnn step of b
// samples takes 0.6 (1 + 1e-4 b) s), and its errors.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <vector>

#include "sim_fixture.hpp"
#include "util/input_error.hpp"

using namespace p2psim;
using fixture::write_experiment;

namespace {

constexpr double kFirstByte = 0.15, kT2LargeNic = 62.5e6, kFunctionNet = 55e6, kImage = 0.79, kImport = 0.92;
constexpr double kGradient = 4799528, kElements = 1199882;
double average_s(double elements, int n) { return 0.0024 * n * elements / (2 * kElements); }
double step_s(double batch) { return 0.6 * (1 + 1e-4 * batch); }

std::string experiment(int peers, int iterations, const std::string& systems) {
  return R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations=")" +
         std::to_string(iterations) + R"(" compute_variability="none"/>
    <peers count=")" + std::to_string(peers) + R"(" instance_type="t2.large"/>
    <systems>)" + systems + "</systems>";
}

// Per round, the peers that computed a gradient (their Send phase).
std::vector<std::set<int>> senders(const RunOutput& r, int rounds) {
  std::vector<std::set<int>> out(static_cast<size_t>(rounds));
  for (const auto& p : r.trace)
    if (p.phase == Phase::Send && p.invocation < 0 && p.peer >= 0) out.at(static_cast<size_t>(p.iteration)).insert(p.peer);
  return out;
}

}  // namespace

TEST_CASE("sharded aggregation, 2 of 4 peers per round: the reducers average the participants' shards, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(4, 1, R"(<system name="half" strategy="serverless_sharded" shards="2" participation="0.5"/>)")));
  auto r = fixture::simulate(s, "half");
  const double shard = kGradient / 2;
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;
  const double compute = step_s(15000);
  const double send = 2 * (kFirstByte + shard / kT2LargeNic);
  const int reducer_mb = 267;  // the 262 MB runtime + 2 shard buffers (as with every peer: the buffers, not N)
  const double share = reducer_mb / 1769.0;
  const double init = kImage + kImport / share;
  const double get = kFirstByte + shard / kFunctionNet;
  // Each reducer GETs the two participants' copies of its shard (not four), adds them once, PUTs the average.
  const double reduce = 2 * get + 1 * average_s(kElements / 2, 2) / share + (kFirstByte + shard / kFunctionNet);
  const double collect = 2 * (kFirstByte + shard / kT2LargeNic);
  const double update = average_s(kElements, 2);
  const auto round = senders(r, 1)[0];
  REQUIRE(round.size() == 2);
  CHECK(r.participation == doctest::Approx(0.5));
  CHECK(fixture::phase_total(r, Phase::Reduce) == doctest::Approx(2 * reduce).epsilon(1e-9));
  const double end = fetch + compute + send + init + reduce + collect + update;
  for (int peer = 0; peer < 4; ++peer) {
    const bool takes_part = round.count(peer) > 0;
    CAPTURE(peer);
    CHECK(fixture::peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(takes_part ? compute : 0));
    CHECK(fixture::peer_phase_total(r, peer, Phase::Send) == doctest::Approx(takes_part ? send : 0).epsilon(1e-9));
    // Who sat out waits from its data load to the averaged shards, and ends with everyone.
    CHECK(fixture::peer_phase_total(r, peer, Phase::Receive) ==
          doctest::Approx(takes_part ? init + reduce + collect : compute + send + init + reduce + collect).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] == doctest::Approx(end).epsilon(1e-9));
    CHECK(r.iterations_done[peer] == 1);
  }
  CHECK(r.ledger.storage_puts == 2 * 2 + 2);          // the participants' shards, then the averaged ones
  CHECK(r.ledger.storage_gets == 4 + 2 * 2 + 4 * 2);  // data shards, reducers' inputs, every peer's averaged shards
  CHECK(r.ledger.function_storage_requests == 2 * 2 + 2);  // the reducers': their inputs, then their averages
}

TEST_CASE("participants: as many each round, drawn anew each round, the same in every design, by the seed") {
  TempDir dir;
  const int peers = 8, rounds = 6;
  const std::string systems =
      R"(<system name="tree" strategy="serverless_tree" participants_per_round="3"/>
         <system name="sharded" strategy="serverless_sharded" shards="2" participants_per_round="3"/>
         <system name="ps" strategy="parameter_server" participation="0.375"/>
         <system name="all" strategy="serverless_tree"/>)";
  auto s = fixture::scenario(write_experiment(dir, experiment(peers, rounds, systems)));
  const auto tree = senders(fixture::simulate(s, "tree"), rounds);
  const auto sharded = senders(fixture::simulate(s, "sharded"), rounds);
  const auto ps = senders(fixture::simulate(s, "ps"), rounds);
  const auto all = senders(fixture::simulate(s, "all"), rounds);
  std::set<std::set<int>> distinct;
  for (int round = 0; round < rounds; ++round) {
    CAPTURE(round);
    CHECK(tree[round].size() == 3);
    CHECK(all[round].size() == peers);
    CHECK(sharded[round] == tree[round]);  // common random numbers: the designs average the same gradients
    CHECK(ps[round] == tree[round]);       // 0.375 x 8 = 3 peers: the same draw
    distinct.insert(tree[round]);
  }
  CHECK(distinct.size() > 1);  // drawn per round, not once
  // The same seed, the same draw; another seed, another.
  CHECK(senders(fixture::simulate(s, "tree"), rounds) == tree);
  auto other = s;
  other.experiment.seed = 8;
  CHECK(senders(fixture::simulate(other, "tree"), rounds) != tree);
}

TEST_CASE("partial participation: bad values and designs without rounds to sample are refused, naming the field") {
  TempDir dir;
  auto error = [&](const std::string& systems, const std::string& extra = "") {
    const auto path = write_experiment(dir, experiment(8, 1, systems) + extra);
    try {
      check_systems(fixture::scenario(path));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto refused = [&](const std::string& systems, const std::string& field, const std::string& why,
                     const std::string& extra = "") {
    const std::string e = error(systems, extra);
    CAPTURE(e);
    CHECK(e.find(fixture::line_tag(dir.path("experiment.xml"), "<system ")) != std::string::npos);
    CHECK(e.find("field 'systems/system[@name='x']/@" + field + "'") != std::string::npos);
    CHECK(e.find(why) != std::string::npos);
  };
  refused(R"(<system name="x" strategy="serverless_tree" participation="0"/>)", "participation", "in (0, 1]");
  refused(R"(<system name="x" strategy="serverless_tree" participation="1.5"/>)", "participation", "[0, 1], got 1.5");
  refused(R"(<system name="x" strategy="serverless_tree" participation="half"/>)", "participation", "expected a number");
  refused(R"(<system name="x" strategy="serverless_sharded" shards="2" participants_per_round="9"/>)",
          "participants_per_round", "expected 1..8, got 9");
  refused(R"(<system name="x" strategy="serverless_sharded" shards="2" participants_per_round="0"/>)",
          "participants_per_round", "expected 1..8, got 0");
  refused(R"(<system name="x" strategy="serverless_tree" participation="0.5" participants_per_round="4"/>)",
          "participants_per_round", "not both");
  refused(R"(<system name="x" strategy="parameter_server" participation="0.5"/>)", "participation", "has no rounds",
          R"(<synchronization mode="async" staleness_bound="2"/><barrier instance="false" serverless="false"/>)");
  refused(R"(<system name="x" strategy="ring_allreduce" participation="0.5"/>)", "participation",
          "unknown attribute for strategy 'ring_allreduce'");
  refused(R"(<system name="x" strategy="p2p_all_to_all" participation="0.5"/>)", "participation",
          "unknown attribute for strategy 'p2p_all_to_all'");
  CHECK(error(R"(<system name="x" strategy="parameter_server" participation="1"/>)",
              R"(<synchronization mode="async" staleness_bound="2"/><barrier instance="false" serverless="false"/>)") == "no error");  // everyone: nothing sampled
}
