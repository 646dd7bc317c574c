// Peers of several kinds (<peers><group/></peers>): each group's instance type (CPU, network, memory, price)
// and slowdown, by hand on the test profile (tests/data/test_profile.xml: t2.large NIC 62.5 MB/s, c5.large
// 93.75 MB/s, object storage's one stream 87.5 MB/s, first byte 0.15 s, every CPU factor 1; hand calibration:
// a 2-vCPU mnist_cnn step of b samples takes 0.6 (1 + 1e-4 b) s), and the groups' errors.
#include <doctest/doctest.h>

#include <map>

#include "cost/pricing.hpp"
#include "results/results.hpp"
#include "sim_fixture.hpp"
#include "util/input_error.hpp"

using namespace p2psim;
using fixture::write_experiment;

namespace {

constexpr double kFirstByte = 0.15, kFunctionNet = 55e6, kImage = 0.79, kImport = 0.92;
constexpr double kGradient = 4799528, kElements = 1199882;
double average_s(double elements, int n) { return 0.0024 * n * elements / (2 * kElements); }
double step_s(double batch) { return 0.6 * (1 + 1e-4 * batch); }

std::string experiment(const std::string& peers, const std::string& systems, int iterations = 1) {
  return R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations=")" +
         std::to_string(iterations) + R"(" compute_variability="none"/>
    )" + peers + "\n    <systems>" + systems + "</systems>";
}

// The error of resolving an experiment of these <peers> and a ring; "no error" when it resolves.
std::string resolve_error(const TempDir& dir, const std::string& peers) {
  const auto path = write_experiment(dir, experiment(peers, R"(<system name="x" strategy="ring_allreduce"/>)"));
  try {
    fixture::scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kTwoGroups = R"(<peers>
      <group count="2" instance_type="t2.large"/>
      <group count="2" instance_type="c5.large" slowdown="2" name="fast_nic"/>
    </peers>)";

}  // namespace

TEST_CASE("peer groups, sharded aggregation: each group's network, CPU and bill, and the round waits for the slowest") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(kTwoGroups, R"(<system name="sharded" strategy="serverless_sharded" shards="2"/>)")));
  REQUIRE(s.experiment.peers == 4);
  CHECK(s.experiment.instance_type == "2xt2.large+2xc5.large");
  const auto r = fixture::simulate(s, "sharded");
  // Per group: its storage rate (the t2.large's NIC; the c5.large's NIC is above one stream's cap), its
  // slowdown on every CPU phase of the peer.
  const double rate[2] = {62.5e6, 87.5e6}, slowdown[2] = {1, 2};
  const double shard = kGradient / 2, data = 15000.0 * 784 * 4;
  auto fetch = [&](int g) { return kFirstByte + data / rate[g]; };
  auto compute = [&](int g) { return slowdown[g] * step_s(15000); };
  auto send = [&](int g) { return 2 * (kFirstByte + shard / rate[g]); };
  auto collect = [&](int g) { return 2 * (kFirstByte + shard / rate[g]); };
  auto update = [&](int g) { return slowdown[g] * average_s(kElements, 2); };
  // The reducers start once the last peer has uploaded: a c5.large peer (twice as slow a CPU).
  const double last_upload = std::max(fetch(0) + compute(0) + send(0), fetch(1) + compute(1) + send(1));
  CHECK(last_upload == doctest::Approx(fetch(1) + compute(1) + send(1)));
  const double share = 267 / 1769.0;
  const double init = kImage + kImport / share;
  const double reduce = 4 * (kFirstByte + shard / kFunctionNet) + 3 * average_s(kElements / 2, 2) / share +
                        (kFirstByte + shard / kFunctionNet);
  double bill_s[2] = {0, 0};
  for (int peer = 0; peer < 4; ++peer) {
    const int g = peer < 2 ? 0 : 1;
    CAPTURE(peer);
    CHECK(s.group_of(peer) == g);
    CHECK(fixture::peer_phase_total(r, peer, Phase::DataFetch) == doctest::Approx(fetch(g)).epsilon(1e-9));
    CHECK(fixture::peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(compute(g)).epsilon(1e-9));
    CHECK(fixture::peer_phase_total(r, peer, Phase::Send) == doctest::Approx(send(g)).epsilon(1e-9));
    const double end = last_upload + init + reduce + collect(g) + update(g);
    CHECK(r.peer_end_s[peer] == doctest::Approx(end).epsilon(1e-9));
    bill_s[g] += end;
  }
  // Each instance billed as its type: per second, one minute at least (the test profile's round 0.1 USD/h).
  REQUIRE(r.ledger.instances.size() == 4);
  CHECK(r.ledger.instances[0].type == "t2.large");
  CHECK(r.ledger.instances[3].type == "c5.large");
  CHECK(price(r.ledger, s.prices).instances_usd == doctest::Approx(4 * 60 * 0.1 / 3600).epsilon(1e-9));
  // Each group's means in the results: the t2.large peers wait for the c5.large ones.
  const SystemResult summary = summarise(s, fixture::system(s, "sharded"), r);
  REQUIRE(summary.groups.size() == 2);
  CHECK(summary.groups[0].name == "t2.large");
  CHECK(summary.groups[1].name == "fast_nic");
  CHECK(summary.groups[0].means.gradient_s == doctest::Approx(compute(0)).epsilon(1e-9));
  CHECK(summary.groups[1].means.gradient_s == doctest::Approx(compute(1)).epsilon(1e-9));
  CHECK(summary.groups[0].means.communication_s ==
        doctest::Approx(send(0) + (last_upload - fetch(0) - compute(0) - send(0)) + init + reduce + collect(0)).epsilon(1e-9));
  CHECK(summary.groups[1].means.communication_s == doctest::Approx(send(1) + init + reduce + collect(1)).epsilon(1e-9));
  CHECK(summary.groups[1].end_s == doctest::Approx(last_upload + init + reduce + collect(1) + update(1)).epsilon(1e-9));
  CHECK(summary.gradient_s == doctest::Approx((2 * compute(0) + 2 * compute(1)) / 4).epsilon(1e-9));
}

TEST_CASE("peer groups: every design takes them but LambdaML, which runs no peer instance") {
  TempDir dir;
  for (const char* system : {R"(<system name="x" strategy="p2p_all_to_all" compute="functions"/>)",
                             R"(<system name="x" strategy="ring_allreduce"/>)",
                             R"(<system name="x" strategy="serverless_tree"/>)",
                             R"(<system name="x" strategy="parameter_server"/>)", R"(<system name="x" strategy="spirt" gradient_format="tensor"/>)"}) {
    CAPTURE(system);
    auto s = fixture::scenario(write_experiment(dir, experiment(kTwoGroups, system)));
    const auto r = fixture::simulate(s, "x");
    CHECK(r.failure.empty());
    CHECK(r.iterations_done == std::vector<int>{1, 1, 1, 1});
    // Where peers compute, a c5.large's step takes twice a t2.large's (its group's slowdown; same CPU factor).
    if (std::string(system).find("functions") == std::string::npos && std::string(system).find("spirt") == std::string::npos)
      CHECK(fixture::peer_phase_total(r, 3, Phase::Compute) ==
            doctest::Approx(2 * fixture::peer_phase_total(r, 0, Phase::Compute)).epsilon(1e-9));
    int c5 = 0;
    for (const auto& instance : r.ledger.instances) c5 += instance.type == "c5.large";
    CHECK(c5 == 2);  // each peer billed as its own type (SPIRT's databases run on the peers)
  }
  auto lambdaml = fixture::scenario(write_experiment(dir, experiment(kTwoGroups, R"(<system name="x" strategy="lambdaml"/>)")));
  CHECK_THROWS_WITH_AS(check_systems(lambdaml), doctest::Contains("lambdaml runs no peer instance"), InputError);
}

TEST_CASE("peer groups: bad groups are named by file, line and field") {
  TempDir dir;
  auto error = [&](const std::string& peers) { return resolve_error(dir, peers); };
  const std::string file = dir.path("experiment.xml");
  auto refused = [&](const std::string& peers, const std::string& needle, const std::string& field,
                     const std::string& why) {
    const std::string e = error(peers);
    CAPTURE(e);
    CHECK(e.find(file + fixture::line_tag(file, needle)) != std::string::npos);
    CHECK(e.find("field '" + field + "'") != std::string::npos);
    CHECK(e.find(why) != std::string::npos);
  };
  refused(R"(<peers count="4"><group count="2" instance_type="t2.large"/></peers>)", "<peers", "peers/@count",
          "not both");
  refused(R"(<peers>
      <group count="2" instance_type="t2.large"/>
      <group count="0" instance_type="c5.large"/></peers>)", "count=\"0\"", "peers/group[2]/@count", "expected an integer in [1, 100000]");
  refused(R"(<peers>
      <group count="2" instance_type="t2.large"/>
      <group count="3" instance_type="t2.large"/></peers>)", "count=\"3\"", "peers/group[2]/@name",
          "two groups are named 't2.large'");
  refused(R"(<peers>
      <group count="2" instance_type="t2.large" slowdown="0.5"/></peers>)", "slowdown", "peers/group[1]/@slowdown", "expected");
  refused(R"(<peers>
      <group count="60000" instance_type="t2.large"/>
      <group count="60000" instance_type="c5.large" name="b"/></peers>)", "name=\"b\"", "peers/group[2]/@count",
          "more than 100000 peers");
  refused(R"(<peers>
      <group count="2" instance_type="t2.large"/>
      <group count="2" instance_type="t9.huge"/></peers>)", "t9.huge", "peers/group[2]/@instance_type",
          "unknown instance type 't9.huge'");
}

TEST_CASE("peer groups with shards of their own sizes: each peer loads and computes its own, by hand") {
  TempDir dir;
  // MNIST's 60,000 samples: 2 t2.large peers of 10,000 each, the 2 c5.large peers share the 40,000 left.
  auto s = fixture::scenario(write_experiment(dir, experiment(R"(<peers>
      <group count="2" instance_type="t2.large" shard_samples="10000"/>
      <group count="2" instance_type="c5.large"/>
    </peers>)", R"(<system name="ring" strategy="ring_allreduce"/>)")));
  REQUIRE(s.peer_groups.size() == 2);
  CHECK(s.peer_groups[0].shard_samples == 10000);
  CHECK(s.peer_groups[1].shard_samples == 20000);
  CHECK(s.peer_groups[1].minibatches == std::vector<long long>{20000});  // minibatches_per_peer="1"
  CHECK_FALSE(s.uniform_shards());
  const auto r = fixture::simulate(s, "ring");
  const double rate[2] = {62.5e6, 87.5e6}, samples[2] = {10000, 20000};
  for (int peer = 0; peer < 4; ++peer) {
    const int g = peer < 2 ? 0 : 1;
    CAPTURE(peer);
    CHECK(fixture::peer_phase_total(r, peer, Phase::DataFetch) ==
          doctest::Approx(kFirstByte + samples[g] * 784 * 4 / rate[g]).epsilon(1e-9));
    CHECK(fixture::peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(step_s(samples[g])).epsilon(1e-9));
  }
}

TEST_CASE("peer groups with shards: more samples than the dataset, or none left, is refused naming the group") {
  TempDir dir;
  auto error = [&](const std::string& peers) { return resolve_error(dir, peers); };
  const std::string file = dir.path("experiment.xml");
  const std::string over = error(R"(<peers>
      <group count="2" instance_type="t2.large" shard_samples="20000"/>
      <group count="2" instance_type="c5.large" shard_samples="20001"/></peers>)");
  CHECK(over.find(file + fixture::line_tag(file, "20001") + " field 'peers/group[2]/@shard_samples'") != std::string::npos);
  CHECK(over.find("80002 samples up to here, more than the 60000 training samples") != std::string::npos);
  const std::string none = error(R"(<peers>
      <group count="2" instance_type="t2.large" shard_samples="30000"/>
      <group count="2" instance_type="c5.large"/></peers>)");
  CHECK(none.find(file + fixture::line_tag(file, "c5.large") + " field 'peers/group[2]/@count'") != std::string::npos);
  CHECK(none.find("no training sample is left for this group's peers") != std::string::npos);
  CHECK(error(R"(<peers><group count="2" instance_type="t2.large" shard_samples="0"/></peers>)")
            .find("field 'peers/group[1]/@shard_samples'") != std::string::npos);
  // One <group> whose peers leave no sample for some: its own line and field.
  const std::string crowded = error(R"(<peers>
      <group count="70000" instance_type="t2.large"/></peers>)");
  CHECK(crowded.find(file + fixture::line_tag(file, "70000") + " field 'peers/group[1]/@count'") != std::string::npos);
  CHECK(crowded.find("70000 peers leave no training sample") != std::string::npos);
}

TEST_CASE("peer groups: a group's means count its own gradients, with partial participation too") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(kTwoGroups, R"(<system name="half" strategy="serverless_tree" participation="0.5"/>)", 6)));
  const SystemResult r = summarise(s, fixture::system(s, "half"), fixture::simulate(s, "half"));
  REQUIRE(r.groups.size() == 2);
  // Whichever peers took part: a t2.large's gradient takes one step, a c5.large's (slowdown 2) two.
  CHECK(r.groups[0].means.gradient_s == doctest::Approx(step_s(15000)).epsilon(1e-9));
  CHECK(r.groups[1].means.gradient_s == doctest::Approx(2 * step_s(15000)).epsilon(1e-9));
}

TEST_CASE("peer groups: SPIRT's databases on instances of their own are each of its peer's type") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(kTwoGroups, R"(<system name="x" strategy="spirt" gradient_format="tensor" database="instance"/>)")));
  const auto r = fixture::simulate(s, "x");
  std::map<std::string, int> types;
  for (const auto& instance : r.ledger.instances) ++types[instance.type];
  CHECK(types["t2.large"] == 2 + 2);  // two peers and their two databases
  CHECK(types["c5.large"] == 2 + 2);
}

TEST_CASE("peer groups: shards of different sizes are told apart even when their minibatches are alike") {
  TempDir dir;
  // 24,004 samples, minibatches_per_peer 4: 8,002 for the first peer, 8,001 for the others, 4 x 2,000 each.
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" train_samples="24004" minibatches_per_peer="4"
              iterations="1" compute_variability="none"/>
    <peers>
      <group count="1" instance_type="t2.large" shard_samples="8002"/>
      <group count="2" instance_type="c5.large"/>
    </peers>
    <systems><system name="x" strategy="ring_allreduce"/></systems>)";
  auto s = fixture::scenario(write_experiment(dir, body));
  CHECK(s.peer_groups[0].minibatches == s.peer_groups[1].minibatches);
  CHECK(s.peer_groups[1].shard_samples == 8001);
  CHECK_FALSE(s.uniform_shards());
}
