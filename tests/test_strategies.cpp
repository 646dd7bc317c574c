// The designs beyond the paper's all-to-all, against hand-computed times and bills (1 and 4 peers, one
// iteration), and the <systems> schema's errors. Values are the test profile's (tests/data/test_profile.xml)
// and the hand calibration's (tests/data/hand_calibration.csv): a 2-vCPU mnist_cnn step of b samples takes
// 0.6 (1 + 1e-4 b) s; averaging n gradients of e floats takes 0.0024 n e / (2 * 1,199,882) s.
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <fstream>
#include <optional>

#include "cost/pricing.hpp"
#include "sim_fixture.hpp"
#include "simulation/strategies/json_gradient.hpp"
#include "simulation/strategies/strategy.hpp"
#include "util/input_error.hpp"
#include "util/read_text.hpp"

using namespace p2psim;
using fixture::write_experiment;

namespace {

using fixture::peer_phase_total;
using fixture::phase_total;
int phase_count(const RunOutput& r, Phase phase) {
  int n = 0;
  for (const auto& p : r.trace) n += p.phase == phase;
  return n;
}

constexpr double kFirstByte = 0.15, kT2LargeNic = 62.5e6, kFunctionNet = 55e6, kImage = 0.79, kImport = 0.92;
constexpr double kGradient = 4799528, kElements = 1199882;
double average_s(double elements, int n) { return 0.0024 * n * elements / (2 * kElements); }
double step_s(double batch) { return 0.6 * (1 + 1e-4 * batch); }

std::string experiment(int peers, const std::string& systems) {
  return R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count=")" + std::to_string(peers) + R"(" instance_type="t2.large"/>
    <systems>)" + systems + "</systems>";
}

}  // namespace

TEST_CASE("ring all-reduce, 4 peers: 2(N-1) steps of |g|/N bytes over peer-to-peer links, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, experiment(4, R"(<system name="ring" strategy="ring_allreduce"/>)")));
  auto r = fixture::simulate(s, "ring");
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;  // each peer's 15,000 images
  const double compute = step_s(15000);
  // One chunk through the sender's NIC (up) and the receiver's (down). SimGrid models TCP acknowledgements as
  // reverse traffic of 5 % of a flow's rate (network/crosstraffic, on by default): a peer's up-link carries its
  // own chunk and the acks of the chunk it receives, so each chunk flows at NIC / 1.05.
  const double chunk_s = kGradient / 4 * 1.05 / kT2LargeNic;
  const double reduce_scatter = 3 * (chunk_s + average_s(kElements / 4, 2));
  const double all_gather = 3 * chunk_s;
  const double update = average_s(kElements, 2);
  for (int peer = 0; peer < 4; ++peer) {
    CHECK(peer_phase_total(r, peer, Phase::DataFetch) == doctest::Approx(fetch).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(compute).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::ReduceScatter) == doctest::Approx(reduce_scatter).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::AllGather) == doctest::Approx(all_gather).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::AggregateUpdate) == doctest::Approx(update).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] == doctest::Approx(fetch + compute + reduce_scatter + all_gather + update).epsilon(1e-9));
  }
  CHECK(r.transport == "peer_to_peer");
  CHECK(r.ledger.storage_gets == 4);  // the shards; gradients never touch storage
  CHECK(r.ledger.storage_puts == 0);
  CHECK(r.ledger.broker_uptime_s == 0);  // no broker in this design
  CHECK(r.ledger.function_runs.empty());
  REQUIRE(r.ledger.instances.size() == 4);
  CHECK(r.ledger.instances[0].type == "t2.large");
}

TEST_CASE("ring all-reduce in a cluster placement group: each chunk moves at the single-flow cap inside one, by hand") {
  // EC2 caps one flow between two instances lower outside a cluster placement group (5 Gbit/s) than inside one
  // (10 Gbit/s). Here both caps lie below the t2.large NIC's 62.5 MB/s (59.5 with the acks of the chunk it
  // receives): 30 MB/s outside, 50 MB/s inside. Each of the 3 all-gather steps moves |g|/4 at the cap.
  const std::string caps = R"(
    <override select="network/@single_flow_bps" value="3e7"/>
    <override select="network/@single_flow_placement_group_bps" value="5e7"/>)";
  for (const bool placed : {false, true}) {
    TempDir dir;
    std::string body = experiment(4, R"(<system name="ring" strategy="ring_allreduce"/>)");
    if (placed) body.replace(body.find("instance_type=\"t2.large\""), 24, R"(instance_type="t2.large" placement="cluster")");
    auto s = fixture::scenario(write_experiment(dir, body, caps));
    CHECK(s.experiment.cluster_placement == placed);
    const auto r = fixture::simulate(s, "ring");
    const double chunk_s = kGradient / 4 / (placed ? 5e7 : 3e7);
    for (int peer = 0; peer < 4; ++peer)
      CHECK(peer_phase_total(r, peer, Phase::AllGather) == doctest::Approx(3 * chunk_s).epsilon(1e-9));
  }
}

TEST_CASE("peers' placement: anything but none or cluster is refused, naming the line and field") {
  TempDir dir;
  std::string body = experiment(2, R"(<system name="ring" strategy="ring_allreduce"/>)");
  body.replace(body.find("instance_type=\"t2.large\""), 24, R"(instance_type="t2.large" placement="spread")");
  const std::string path = write_experiment(dir, body);
  try {
    fixture::scenario(path);
    FAIL("a placement of 'spread' was accepted");
  } catch (const InputError& e) {
    CHECK(e.field == "peers/@placement");
    CHECK(e.line > 0);
  }
}

TEST_CASE("ring all-reduce with a straggler: the ring waits for its slowest member and moves at its pace") {
  // Peer 2's CPU is 3x slower: it computes last, and each of its steps adds its chunk 3x slower. In a ring every
  // peer's last step depends, through its predecessors, on every peer's steps, so all end together.
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(4, R"(<system name="ring" strategy="ring_allreduce"/>)") + R"(<stragglers slowdown="1 1 3 1"/>)"));
  auto r = fixture::simulate(s, "ring");
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;
  const double chunk_s = kGradient / 4 * 1.05 / kT2LargeNic;
  const double ring_start = fetch + 3 * step_s(15000);  // the straggler's gradient is the last one in
  const double ring_end = ring_start + 3 * (chunk_s + 3 * average_s(kElements / 4, 2)) + 3 * chunk_s;
  for (int peer = 0; peer < 4; ++peer) {
    const double slowdown = peer == 2 ? 3 : 1;
    CHECK(peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(slowdown * step_s(15000)).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] == doctest::Approx(ring_end + slowdown * average_s(kElements, 2)).epsilon(1e-9));
  }
}

TEST_CASE("ring all-reduce, 1 peer: nothing to exchange") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, experiment(1, R"(<system name="ring" strategy="ring_allreduce"/>)")));
  auto r = fixture::simulate(s, "ring");
  const double fetch = kFirstByte + 60000.0 * 784 * 4 / kT2LargeNic;
  CHECK(phase_total(r, Phase::ReduceScatter) == 0);
  CHECK(phase_total(r, Phase::AllGather) == 0);
  CHECK(r.peer_end_s[0] == doctest::Approx(fetch + step_s(60000) + average_s(kElements, 2)).epsilon(1e-9));
}

TEST_CASE("sharded serverless aggregation, 4 peers and 2 shards: every phase and the bill by hand") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(4, R"(<system name="sharded" strategy="serverless_sharded" shards="2"/>)")));
  auto r = fixture::simulate(s, "sharded");
  const double shard = kGradient / 2;
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;
  const double compute = step_s(15000);
  const double send = 2 * (kFirstByte + shard / kT2LargeNic);  // PUT both shards, one after the other
  // Reducer memory: the 262 MB runtime + 2 shard buffers of 2,399,764 bytes (4.58 MiB) = 267 MB (rounded up).
  const int reducer_mb = 267;
  const double share = reducer_mb / 1769.0;          // its CPU share
  const double init = kImage + kImport / share;       // cold start, no spread in the test profile
  const double get = kFirstByte + shard / kFunctionNet;
  const double reduce = 4 * get + 3 * average_s(kElements / 2, 2) / share + (kFirstByte + shard / kFunctionNet);
  const double collect = 2 * (kFirstByte + shard / kT2LargeNic);
  const double update = average_s(kElements, 2);
  CHECK(phase_count(r, Phase::ColdStart) == 2);
  CHECK(phase_count(r, Phase::Reduce) == 2);
  CHECK(phase_total(r, Phase::ColdStart) == doctest::Approx(2 * init).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Reduce) == doctest::Approx(2 * reduce).epsilon(1e-9));
  for (int peer = 0; peer < 4; ++peer) {
    CHECK(peer_phase_total(r, peer, Phase::Compute) == doctest::Approx(compute).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::Send) == doctest::Approx(send).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::Receive) == doctest::Approx(init + reduce + collect).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] ==
          doctest::Approx(fetch + compute + send + init + reduce + collect + update).epsilon(1e-9));
  }
  CHECK(r.ledger.storage_puts == 4 * 2 + 2);   // every peer's shards, then the averaged ones
  CHECK(r.ledger.storage_gets == 4 + 2 * 4 + 4 * 2);  // data shards, reducers' inputs, peers' averaged shards
  REQUIRE(r.ledger.function_runs.size() == 2);
  for (const auto& run : r.ledger.function_runs) {
    CHECK(run.memory_mb == reducer_mb);
    CHECK(run.init_s == doctest::Approx(init).epsilon(1e-9));
    CHECK(run.run_s == doctest::Approx(reduce).epsilon(1e-9));
  }
  // The test profile's round prices: 0.00002 USD per GB-s (x86), 0.000001 per request.
  const Cost c = price(r.ledger, s.prices);
  // Billed: INIT (the import) and the handler, not the platform's start before INIT (the image's 0.79 s).
  const double billed_s = std::ceil((kImport / share + reduce) * 1000 - 1e-6) / 1000;
  CHECK(c.function_compute_usd == doctest::Approx(2 * billed_s * reducer_mb / 1024.0 * 0.00002).epsilon(1e-9));
  CHECK(c.function_requests_usd == doctest::Approx(2 * 0.000001).epsilon(1e-9));
  CHECK(c.broker_usd == 0);
}

TEST_CASE("sharded serverless aggregation, 1 peer: the reducers add nothing") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(1, R"(<system name="sharded" strategy="serverless_sharded" shards="2"/>)")));
  auto r = fixture::simulate(s, "sharded");
  const double shard = kGradient / 2;
  const double init = kImage + kImport / (267 / 1769.0);
  const double reduce = 2 * (kFirstByte + shard / kFunctionNet);  // one GET, one PUT, no addition
  CHECK(phase_total(r, Phase::Reduce) == doctest::Approx(2 * reduce).epsilon(1e-9));
  const double fetch = kFirstByte + 60000.0 * 784 * 4 / kT2LargeNic;
  const double send = 2 * (kFirstByte + shard / kT2LargeNic);
  CHECK(r.peer_end_s[0] ==
        doctest::Approx(fetch + step_s(60000) + send + init + reduce + send + average_s(kElements, 2)).epsilon(1e-9));
}

TEST_CASE("serverless tree, 4 peers in two levels: two leaf aggregators of 2, then the root, by hand") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(4, R"(<system name="tree" strategy="serverless_tree" levels="2"/>)")));
  auto r = fixture::simulate(s, "tree");
  // Fan-in ceil(sqrt 4) = 2 at every level; each aggregator holds its 2 gradients: 262 MB + 2 x 4.58 MiB = 272 MB.
  const int mb = 272;
  const double share = mb / 1769.0;
  const double init = kImage + kImport / share;
  const double aggregate = 2 * (kFirstByte + kGradient / kFunctionNet) + average_s(kElements, 2) / share +
                           (kFirstByte + kGradient / kFunctionNet);  // GET, GET, add, PUT
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;
  const double send = kFirstByte + kGradient / kT2LargeNic;
  const double collect = kFirstByte + kGradient / kT2LargeNic;
  CHECK(phase_count(r, Phase::Reduce) == 3);     // two leaves, one root
  CHECK(phase_count(r, Phase::ColdStart) == 3);  // each level is its own function: no warm reuse across levels
  CHECK(phase_total(r, Phase::Reduce) == doctest::Approx(3 * aggregate).epsilon(1e-9));
  for (int peer = 0; peer < 4; ++peer) {
    CHECK(peer_phase_total(r, peer, Phase::Send) == doctest::Approx(send).epsilon(1e-9));
    // Waiting: the leaves (cold start + their work), then the root (the same), then the GET of the result.
    CHECK(peer_phase_total(r, peer, Phase::Receive) == doctest::Approx(2 * (init + aggregate) + collect).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] == doctest::Approx(fetch + step_s(15000) + send + 2 * (init + aggregate) + collect +
                                                average_s(kElements, 2)).epsilon(1e-9));
  }
  REQUIRE(r.ledger.function_runs.size() == 3);
  for (const auto& run : r.ledger.function_runs) CHECK(run.memory_mb == mb);
  CHECK(r.ledger.storage_puts == 4 + 3);
  CHECK(r.ledger.storage_gets == 4 + 6 + 4);  // data shards, aggregators' inputs, the result for each peer
}

TEST_CASE("serverless tree, 1 peer: the root alone passes the gradient through") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(1, R"(<system name="tree" strategy="serverless_tree" levels="3"/>)")));
  auto r = fixture::simulate(s, "tree");
  const int mb = 267;  // 262 MB + one 4.58 MiB gradient
  const double init = kImage + kImport / (mb / 1769.0);
  const double aggregate = 2 * (kFirstByte + kGradient / kFunctionNet);  // one GET, no addition, one PUT
  CHECK(phase_count(r, Phase::Reduce) == 1);
  CHECK(r.ledger.function_runs.at(0).memory_mb == mb);
  const double fetch = kFirstByte + 60000.0 * 784 * 4 / kT2LargeNic;
  const double move = kFirstByte + kGradient / kT2LargeNic;
  CHECK(r.peer_end_s[0] == doctest::Approx(fetch + step_s(60000) + move + init + aggregate + move +
                                           average_s(kElements, 2)).epsilon(1e-9));
}

TEST_CASE("parameter server, 4 peers and one shard on a t2.large: pushes and pulls share its NIC, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, experiment(4, R"(<system name="ps" strategy="parameter_server"/>)")));
  auto r = fixture::simulate(s, "ps");
  const double fetch = kFirstByte + 15000.0 * 784 * 4 / kT2LargeNic;
  const double push = 4 * kGradient / kT2LargeNic;  // four gradients at once into the server's 62.5 MB/s NIC
  const double server = average_s(kElements, 4) + average_s(kElements, 2);  // sum the four, apply the step
  const double pull = 4 * kGradient / kT2LargeNic;  // four parameter copies at once out of it
  CHECK(phase_total(r, Phase::AggregateUpdate) == doctest::Approx(server).epsilon(1e-9));  // the server's
  for (int peer = 0; peer < 4; ++peer) {
    CHECK(peer_phase_total(r, peer, Phase::Send) == doctest::Approx(push).epsilon(1e-9));
    CHECK(peer_phase_total(r, peer, Phase::Receive) == doctest::Approx(server + pull).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] == doctest::Approx(fetch + step_s(15000) + push + server + pull).epsilon(1e-9));
  }
  REQUIRE(r.ledger.instances.size() == 5);  // four peers and the server, billed as long as the last peer
  CHECK(r.ledger.instances[4].type == "t2.large");
  CHECK(r.ledger.instances[4].uptime_s == doctest::Approx(r.peer_end_s[0]).epsilon(1e-12));
  CHECK(r.ledger.broker_uptime_s == 0);
  CHECK(r.transport == "parameter_server");
}

TEST_CASE("parameter server, 1 peer and 2 shards on m5.large servers") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(1, R"(<system name="ps" strategy="parameter_server" servers="2" server_type="m5.large"/>)")));
  auto r = fixture::simulate(s, "ps");
  // The peer's 62.5 MB/s NIC carries both halves at once (the m5.large's 93.75 MB/s is not the bottleneck).
  const double move = kGradient / kT2LargeNic;
  const double server = average_s(kElements / 2, 1) + average_s(kElements / 2, 2);  // both shards at once
  const double fetch = kFirstByte + 60000.0 * 784 * 4 / kT2LargeNic;
  CHECK(r.peer_end_s[0] == doctest::Approx(fetch + step_s(60000) + move + server + move).epsilon(1e-9));
  CHECK(r.ledger.instances.size() == 3);
}

TEST_CASE("parameter server, asynchronous: a staleness bound lets the fast peer run ahead of a straggler") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="4"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.large"/>
    <barrier instance="false"/>
    <stragglers slowdown="1 3"/>
    <systems><system name="ps" strategy="parameter_server"/></systems>)";
  auto run = [&](int k) {
    return fixture::simulate(fixture::scenario(write_experiment(
                                 dir, body + R"(<synchronization mode="async" staleness_bound=")" + std::to_string(k) + R"("/>)")),
                             "ps");
  };
  auto tight = run(0), loose = run(3);
  CHECK(loose.peer_end_s[0] < tight.peer_end_s[0] - 5);  // peer 0 no longer waits for the 3x slower peer 1
  CHECK(loose.peer_end_s[1] == doctest::Approx(tight.peer_end_s[1]).epsilon(0.05));
  CHECK(*std::max_element(loose.staleness.begin(), loose.staleness.end()) > 0);
  CHECK(*std::max_element(tight.staleness.begin(), tight.staleness.end()) == 0);
}

namespace {
// SPIRT's function, from the workflow's start (one 1,769 MB function = 1 vCPU per peer, one minibatch of `b`):
// StartExecution and ProcessInput (0.3 s), the branch (0.15 s), a cold start (0.79 + 0.92 s), the data GET at
// 55 MB/s, the parameters read from the database, the step at one thread, the gradient written into it.
double spirt_function_end(double b, double request_cpu_s) {
  const double move = kGradient / kFunctionNet;  // database NIC 62.5 MB/s, function 55 MB/s
  return 0.3 + 0.15 + kImage + kImport + (kFirstByte + b * 784 * 4 / kFunctionNet) + request_cpu_s + move +
         (1 + 1e-4 * b) + move + request_cpu_s;
}
}  // namespace

TEST_CASE("spirt, 1 peer: functions through the peer's database, averaging inside it, the barrier, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, experiment(1, R"(<system name="spirt" strategy="spirt" gradient_format="tensor" database="instance"/>)") +
                                                       R"(<functions memory_mb="1769"/>)"));
  auto r = fixture::simulate(s, "spirt");
  // The state machine goes on into its averaging Task one transition after the Parallel state's last branch: no
  // status poll (the paper's peer would see it only at its next 2 s poll).
  const double entered = spirt_function_end(60000, 1e-5) + 0.15;
  const double kernel = average_s(kElements, 1);                    // inside the database
  const double average = kImage + kImport + kernel;                 // the averaging function's cold start, then it
  // Post, count, settle (SPIRT's 5 s), count again, purge (rank 0): each request a 1 ms round trip.
  const double barrier = 0.001 + 0.001 + 5 + 0.001 + 0.001;
  const double update = average_s(kElements, 1) + average_s(kElements, 2);  // average of 1, AI.ModelUpdate
  CHECK(fixture::phase_of(r, 0, Phase::LocalAverage) == doctest::Approx(average).epsilon(1e-9));
  CHECK(fixture::phase_of(r, 0, Phase::Barrier) == doctest::Approx(barrier).epsilon(1e-9));
  CHECK(r.peer_end_s[0] == doctest::Approx(entered + average + barrier + update).epsilon(1e-9));
  CHECK(fixture::phase_of(r, 0, Phase::PollingWait) == -1);  // no row: the peer never polled
  REQUIRE(r.ledger.function_runs.size() == 2);  // the gradient's function and the averaging one, ...
  // ... which is billed from its handler's start through the barrier it runs, as SPIRT's does.
  CHECK(r.ledger.function_runs[1].run_s == doctest::Approx(kernel + barrier).epsilon(1e-9));
  CHECK(r.ledger.workflow_transitions == 3 + 1 + 1);  // start, ProcessInput, Parallel; the branch; the averaging Task
  CHECK(r.ledger.storage_puts == 0);  // gradients never touch object storage
  REQUIRE(r.ledger.instances.size() == 2);  // the peer and its database's instance
  CHECK(r.ledger.broker_uptime_s > 0);      // the barrier's queue
}

TEST_CASE("spirt, 1 peer, aggregation on the peer: what the database spared moves and is (de)serialised, by hand") {
  // The test above with aggregation="peer": the functions' one gradient is read out of the database (its request's
  // 1e-5 s of the database's CPU, then the bytes over both 62.5 MB/s NICs), deserialised (1e-12 s: nothing), averaged
  // on the peer and written back; the update reads the peer's average and the model, applies it on the peer and
  // writes the model back.
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(1, R"(<system name="spirt" strategy="spirt" gradient_format="tensor" database="instance" aggregation="peer"/>)") +
               R"(<functions memory_mb="1769"/>)"));
  auto r = fixture::simulate(s, "spirt");
  const double seen = 2 * std::ceil((spirt_function_end(60000, 1e-5) + 0.15) / 2);  // as in the database's case
  const double move = 1e-5 + kGradient / kT2LargeNic;  // a read or a write of one gradient
  const double collect = move;
  const double average = average_s(kElements, 1) + move;  // on the peer, then written back
  const double barrier = 0.001 + 0.001 + 5 + 0.001 + 0.001;  // rank 0 purges
  const double update = 2 * move + average_s(kElements, 1) + average_s(kElements, 2) + move;
  CHECK(fixture::phase_of(r, 0, Phase::Collect) == doctest::Approx(collect).epsilon(1e-9));
  CHECK(fixture::phase_of(r, 0, Phase::LocalAverage) == doctest::Approx(average).epsilon(1e-9));
  CHECK(fixture::phase_of(r, 0, Phase::AggregateUpdate) == doctest::Approx(update).epsilon(1e-9));
  CHECK(r.peer_end_s[0] == doctest::Approx(seen + collect + average + barrier + update).epsilon(1e-9));
  int deserialised = 0;
  for (const auto& p : r.trace) deserialised += p.phase == Phase::Deserialize && p.invocation < 0;
  CHECK(deserialised == 1 + 2);  // the function's gradient, then the average and the model
}

namespace {
using fixture::json_test_profile;
constexpr double kJsonBytes = 20 * kElements, kAverageJsonBytes = 16 * kElements;
}  // namespace

TEST_CASE("spirt, 1 peer, JSON gradients (SPIRT's code): encoded by the function, averaged by a Lua script, parsed "
          "back by an averaging function, by hand") {
  TempDir dir;
  const std::string body = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance"/>)") +
                           R"(<functions memory_mb="1769"/>)";
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body, "", json_test_profile(dir))), "spirt");
  // The function: the tensor case's end, with json.dumps (1.2e6 x 4e-7 s on a function whose scalar and vector
  // factors are both 1, one vCPU) and the 24 MB text written instead of the 4.8 MB tensor.
  const double encode = kElements * 4e-7;
  const double function_end = spirt_function_end(60000, 1e-5) - kGradient / kFunctionNet + encode + kJsonBytes / kFunctionNet;
  const double entered = function_end + 0.15;  // the averaging Task, one transition after the Parallel state
  // The averaging Task: a cold start of its function, the Lua script on the database's t2.large at its scalar speed
  // (half its vector speed: 2 x 1.2e6 x (3e-7 + 2e-7) s), the reply's text to the function, its parse, the tensor
  // written back.
  const double lua = 2 * kElements * (3e-7 + 2e-7);
  const double reply = 1e-5 + kAverageJsonBytes / kFunctionNet;
  const double parse = kElements * 1e-7;
  const double write_back = kGradient / kFunctionNet + 1e-5;
  const double average = kImage + kImport + lua + reply + parse + write_back;
  const double barrier = 0.001 + 0.001 + 5 + 0.001 + 0.001;  // rank 0 purges
  const double update = average_s(kElements, 1) + average_s(kElements, 2);  // the binary averages, in the database
  CHECK(fixture::phase_of(r, 0, Phase::LocalAverage) == doctest::Approx(average).epsilon(1e-9));
  CHECK(r.peer_end_s[0] == doctest::Approx(entered + average + barrier + update).epsilon(1e-9));
  REQUIRE(r.ledger.function_runs.size() == 2);  // the gradient's function and the averaging one, billed through
  CHECK(r.ledger.function_runs[1].run_s == doctest::Approx(lua + reply + parse + write_back + barrier).epsilon(1e-9));
  CHECK(r.ledger.workflow_transitions == 3 + 1 + 1);  // start, ProcessInput, Parallel; the branch; the averaging Task
  // The same with the peer averaging: each text read out (1e-5 s, then 24 MB over the t2.large NICs) and parsed on
  // the peer at its scalar speed (1.2e6 x 1.5e-7 s x 2, its text longer than the average's).
  auto on_peer = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" aggregation="peer"/>)") +
                   R"(<functions memory_mb="1769"/>)",
          "", json_test_profile(dir))),
      "spirt");
  CHECK(fixture::phase_of(on_peer, 0, Phase::Collect) ==
        doctest::Approx(1e-5 + kJsonBytes / kT2LargeNic + 2 * kElements * 1.5e-7).epsilon(1e-9));
  CHECK(on_peer.ledger.function_runs.size() == 1);
}

TEST_CASE("spirt, JSON gradients: each cost per element scales with the elements, the texts averaged, the CPU's "
          "scalar speed against its run's and a function's share below one vCPU") {
  // A t2.large twice the calibration CPU on vector work and half it on scalar work; functions of 884 MB (884 / 1,769
  // of a vCPU) whose two factors are both 1.
  TempDir dir;
  const auto s = fixture::scenario(write_experiment(
      dir, experiment(1, R"(<system name="spirt" strategy="spirt"/>)") + R"(<functions memory_mb="884"/>)",
      R"(<override select="instance_types/instance[@type='t2.large']/@cpu_speed_factor" value="2"/>)",
      json_test_profile(dir)));
  const auto& json = *s.profile.kv_store.json;
  const auto& t2 = s.profile.instance_types.at("t2.large");
  // Work of the run's kind that takes what scalar work takes: reference seconds x 2 / 0.5.
  CHECK(simulation::database_json_average_s(s, json, 3, t2) ==
        doctest::Approx(kElements * (3 * 3e-7 + 2e-7) * 4).epsilon(1e-12));
  CHECK(simulation::instance_json_decode_gradient_s(s, json, t2) == doctest::Approx(kElements * 1.5e-7 * 4).epsilon(1e-12));
  CHECK(simulation::function_json_encode_s(s, json) == doctest::Approx(kElements * 4e-7 * 1769 / 884).epsilon(1e-12));
  CHECK(simulation::function_json_decode_average_s(s, json) == doctest::Approx(kElements * 1e-7 * 1769 / 884).epsilon(1e-12));
  CHECK(simulation::json_gradient_bytes(s, json) == kJsonBytes);
  CHECK(simulation::json_average_bytes(s, json) == kAverageJsonBytes);
}

TEST_CASE("spirt, JSON gradients: the averaging function keeps a container of its own, and a database on the peer "
          "scripts on the peer's CPU credits") {
  TempDir dir;
  auto run = [&](const std::string& database, int iterations, const std::string& overrides = "") {
    std::string body = experiment(1, R"(<system name="spirt" strategy="spirt" database=")" + database + R"("/>)") +
                       R"(<functions memory_mb="1769"/>)";
    body.replace(body.find(R"(iterations="1")"), 14, "iterations=\"" + std::to_string(iterations) + "\"");
    return fixture::simulate(fixture::scenario(write_experiment(dir, body, overrides, json_test_profile(dir))), "spirt");
  };
  // Two iterations: the gradient function and the averaging function each start cold once, then find their own
  // container warm (they used to share one, and each evicted the other).
  const auto two = run("instance", 2);
  CHECK(two.cold_starts == 2);
  CHECK(two.ledger.function_runs.size() == 4);
  // On the peer, the script is the peer's work. Made a 12-minute script (3e-4 s an element to decode and add: 2 x
  // 1.2e6 x 3e-4 s at the t2.large's scalar speed, 0.5), it spends 12 of a launch's 60 credits at full speed; a
  // t2.large launched with none runs it at its baseline, a fraction of a vCPU, and takes well over twice as long.
  const std::string slow_script = R"(<override select="kv_store/json_codec/@lua_decode_add_s_per_element_on_reference_cpu" value="3e-4"/>)";
  const auto with_credits = run("peer", 1, slow_script);
  const auto without = run("peer", 1, slow_script + R"(<override select="instance_types/instance[@type='t2.large']/@launch_credits" value="0"/>)");
  const double script_s = 2 * kElements * (3e-4 + 2e-7);
  CHECK(fixture::phase_of(with_credits, 0, Phase::LocalAverage) == doctest::Approx(script_s).epsilon(0.01));
  CHECK(fixture::phase_of(without, 0, Phase::LocalAverage) > 2 * script_s);
}

TEST_CASE("spirt: the averaging function's SSH tunnel, its CPU on both sides and its round trips, by hand, and a profile "
          "without one, or a database host without a scalar speed for it, refused") {
  TempDir dir;
  // The JSON test profile's tunnel made to cost 0.05 s of the function's CPU and 0.1 s of sshd's (scalar work), 0.03 s
  // of waits and 8 round trips; the network given a one-way latency of 1 ms (the hand tests' profile has none).
  auto profile = [&](const std::string& tunnel) {
    const std::string path = json_test_profile(dir);
    std::string text = p2psim::read_text(path);
    const std::string none = R"(client_cpu_s_on_reference_cpu="0" server_cpu_s_on_reference_cpu="0" wait_s="0" round_trips="0")";
    REQUIRE(text.find(none) != std::string::npos);
    text.replace(text.find(none), none.size(), tunnel);
    const std::string named = dir.path("tunnel_profile.xml");
    std::ofstream(named) << text;
    return named;
  };
  const std::string costly =
      R"(client_cpu_s_on_reference_cpu="0.05" server_cpu_s_on_reference_cpu="0.1" wait_s="0.03" round_trips="8")";
  const std::string body = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance"/>)") +
                           R"(<functions memory_mb="1769"/>)";
  const std::string latency = R"(<override select="network/@one_way_latency_s" value="0.001"/>)";
  auto run = [&](const std::string& tunnel) {
    return fixture::simulate(fixture::scenario(write_experiment(dir, body, latency, profile(tunnel))), "spirt");
  };
  const std::string none = R"(client_cpu_s_on_reference_cpu="0" server_cpu_s_on_reference_cpu="0" wait_s="0" round_trips="0")";
  const auto free = run(none);
  const auto paid = run(costly);
  // The function's 0.05 s at its scalar speed (factor 1, one vCPU at 1,769 MB); sshd's 0.1 s on the database's
  // t2.large at its scalar speed (half its speed on vector work: 0.2 s); the waits; 8 round trips of 2 x 1 ms, each
  // way at the test profile's latency factor, 13.01 (tests/data/test_profile.xml, <simulation>).
  const double tunnel_s = 0.05 + 0.1 / 0.5 + 0.03 + 8 * 2 * 0.001 * 13.01;
  CHECK(fixture::phase_of(paid, 0, Phase::LocalAverage) - fixture::phase_of(free, 0, Phase::LocalAverage) ==
        doctest::Approx(tunnel_s).epsilon(1e-9));
  CHECK(paid.peer_end_s[0] - free.peer_end_s[0] == doctest::Approx(tunnel_s).epsilon(1e-9));
  REQUIRE(paid.ledger.function_runs.size() == 2);
  CHECK(paid.ledger.function_runs[1].run_s - free.ledger.function_runs[1].run_s == doctest::Approx(tunnel_s).epsilon(1e-9));
  // The same with tensors, whose averaging function opens the same tunnel (it crashed once: the tensor format's
  // database did not know its host's type).
  const std::string tensor_body = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" )"
                                                R"(gradient_format="tensor"/>)") + R"(<functions memory_mb="1769"/>)";
  auto run_tensor = [&](const std::string& tunnel) {
    return fixture::simulate(fixture::scenario(write_experiment(dir, tensor_body, latency, profile(tunnel))), "spirt");
  };
  CHECK(run_tensor(costly).peer_end_s[0] - run_tensor(none).peer_end_s[0] == doctest::Approx(tunnel_s).epsilon(1e-9));
  // A profile without <ssh_tunnel>: averaging in the database is refused, on the peer it runs.
  {
    std::string text = p2psim::read_text(json_test_profile(dir));
    const auto begin = text.find("<ssh_tunnel"), end = text.find("/>", begin) + 2;
    REQUIRE(begin != std::string::npos);
    text.erase(begin, end - begin);
    std::ofstream(dir.path("no_tunnel.xml")) << text;
    const auto path = write_experiment(dir, body, "", dir.path("no_tunnel.xml"));
    CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(path), "spirt"),
                         doctest::Contains((fixture::line_tag(path, "strategy=\"spirt\"") +
                                            " field 'systems/system[@name='spirt']/@aggregation': \"database\" (SPIRT's "
                                            "averaging Task) needs <kv_store><ssh_tunnel>").c_str()),
                         InputError);
    const auto on_peer = write_experiment(
        dir, experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" aggregation="peer"/>)") +
                 R"(<functions memory_mb="1769"/>)",
        "", dir.path("no_tunnel.xml"));
    CHECK(fixture::simulate(fixture::scenario(on_peer), "spirt").failure.empty());
  }
  // sshd's part on a database host with no scalar speed (the test profile's m5.large), even with tensors.
  const auto m5 = write_experiment(
      dir, experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" database_type="m5.large" )"
                         R"(gradient_format="tensor"/>)"),
      "", profile(costly));
  CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(m5), "spirt"),
                       doctest::Contains("the averaging function's SSH tunnel is scalar work on the databases' CPUs: "
                                         "instance type 'm5.large' in"),
                       InputError);
}

TEST_CASE("spirt: the bytes through the averaging function's tunnel, each side's CPU per MB as they cross: hidden "
          "behind the transfer when below it, the time when above it") {
  TempDir dir;
  const std::string body = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance"/>)") +
                           R"(<functions memory_mb="1769"/>)";
  auto run = [&](const std::string& download_client, const std::string& upload_server) {
    const std::string overrides =
        R"(<override select="kv_store/ssh_tunnel/@download_client_cpu_s_per_mb_on_reference_cpu" value=")" +
        download_client + R"("/><override select="kv_store/ssh_tunnel/@upload_server_cpu_s_per_mb_on_reference_cpu" )"
        R"(value=")" + upload_server + R"("/>)";
    const auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body, overrides, json_test_profile(dir))),
                                     "spirt");
    return fixture::phase_of(r, 0, Phase::LocalAverage);
  };
  const double free = run("0", "0");
  // A nanosecond a MB: far below the transfers' time, it costs nothing.
  CHECK(run("1e-9", "1e-9") == doctest::Approx(free).epsilon(1e-12));
  // Seconds a MB: the CPU outlasts the transfers. The reply, 16 bytes an element (19.198112 MB), at 1 s a MB on the
  // function (its scalar speed factor 1, one vCPU at 1,769 MB); the tensor written back, 4,799,528 bytes, at 1 s a MB
  // of sshd's on the database's t2.large at its scalar speed, 0.5: 9.599056 s. Doubled, each adds as much again.
  const double one = run("1", "1"), two = run("2", "2");
  CHECK(two - one == doctest::Approx(19.198112 + 9.599056).epsilon(1e-9));
  CHECK(one - free > 0);
  CHECK(one - free < 19.198112 + 9.599056);  // the transfers' own time is inside the CPU's, not added to it
}

TEST_CASE("spirt, JSON gradients: a profile that does not price them, a CPU that parses them without a scalar speed "
          "and a text over the database's largest value are refused") {
  TempDir dir;
  const std::string body = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance"/>)");
  const auto no_codec = write_experiment(dir, body);
  CHECK_THROWS_WITH_AS(
      fixture::simulate(fixture::scenario(no_codec), "spirt"),
      doctest::Contains((fixture::line_tag(no_codec, "strategy=\"spirt\"") +
                         " field 'systems/system[@name='spirt']/@gradient_format': \"json\" (SPIRT's code) needs "
                         "<kv_store><json_codec>").c_str()),
      InputError);
  const auto m5 = write_experiment(
      dir, experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" database_type="m5.large"/>)"), "",
      json_test_profile(dir));
  CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(m5), "spirt"),
                       doctest::Contains("scalar work on the databases' CPUs: instance type 'm5.large' in"), InputError);
  // Averaged on the peer, the database's type parses nothing: the peers' must have a scalar speed, not its.
  auto peer_parses = fixture::simulate(
      fixture::scenario(write_experiment(
          dir,
          experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" database_type="m5.large" )"
                        R"(aggregation="peer"/>)") + R"(<functions memory_mb="1769"/>)",
          "", json_test_profile(dir))),
      "spirt");
  CHECK(peer_parses.failure.empty());
  std::string c5 = experiment(1, R"(<system name="spirt" strategy="spirt" database="instance" aggregation="peer"/>)");
  c5.replace(c5.find("t2.large"), 8, "c5.large");
  CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(write_experiment(dir, c5, "", json_test_profile(dir))), "spirt"),
                       doctest::Contains("scalar work on the peers' CPUs: instance type 'c5.large' in"), InputError);
  // A bad price in the profile's json_codec: its file, line and field.
  {
    const std::string path = json_test_profile(dir);
    std::string text = p2psim::read_text(path);
    const std::string bytes = R"(python_bytes_per_element="20")";
    REQUIRE(text.find(bytes) != std::string::npos);
    text.replace(text.find(bytes), bytes.size(), R"(python_bytes_per_element="-1")");
    std::ofstream(path) << text;
    const std::string where = path + fixture::line_tag(path, "<json_codec") +
                              " field 'kv_store/json_codec/@python_bytes_per_element': expected a number in [1, 1000]";
    CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, body, "", path)), doctest::Contains(where.c_str()),
                         InputError);
  }
  // Four averaging functions waiting at the barrier with places for two: refused, as it would never end; in either
  // format, as both run SPIRT's averaging Task. Averaged on the peers, there is no such function.
  for (const std::string format : {"json", "tensor"}) {
    const auto few_places = write_experiment(
        dir, experiment(4, R"(<system name="spirt" strategy="spirt" gradient_format=")" + format + R"("/>)"),
        R"(<override select="function_service/@concurrency_limit" value="2"/>)", json_test_profile(dir));
    CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(few_places), "spirt"),
                         doctest::Contains("field 'systems/system[@name='spirt']/@aggregation': \"database\" (SPIRT's "
                                           "averaging Task): 4 peers' averaging functions, each waiting at the barrier, "
                                           "cannot all run within the function service's concurrency limit of 2"),
                         InputError);
  }
  const auto on_peers = write_experiment(
      dir, experiment(4, R"(<system name="spirt" strategy="spirt" aggregation="peer"/>)") + R"(<functions memory_mb="1769"/>)",
      R"(<override select="function_service/@concurrency_limit" value="2"/>)", json_test_profile(dir));
  CHECK(fixture::simulate(fixture::scenario(on_peers), "spirt").failure.empty());
  // 24 MB of text against a 10 MB limit: the functions' RPUSH fails, the system cannot run.
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body, "", json_test_profile(dir, "10000000"))), "spirt");
  CHECK(r.failure.find("as JSON text is 23997640 bytes, above the database's largest value (10000000 bytes)") !=
        std::string::npos);
  CHECK(r.ledger.function_runs.empty());
}

TEST_CASE("spirt, 4 peers: the averaged gradients copied between the databases at once, by hand") {
  TempDir dir;
  auto s = fixture::scenario(
      write_experiment(dir, experiment(4, R"(<system name="spirt" strategy="spirt" gradient_format="tensor" database="instance"/>)") +
                                R"(<functions memory_mb="1769"/>)",
                       // Requests free, so that every peer leaves the barrier at once (rank 0 purges the queue).
                       R"(<override select="kv_store/@per_request_cpu_s" value="0"/>)"
                       R"(<override select="broker/@request_latency_s" value="0"/>)"));
  auto r = fixture::simulate(s, "spirt");
  const double entered = spirt_function_end(15000, 0) + 0.15;  // each peer's averaging Task
  // Each database sends its gradient to the three others and receives theirs: three flows per NIC direction,
  // plus 5 % of TCP acknowledgements for the three flows the other way (SimGrid's cross-traffic).
  const double copies = kGradient * 3.15 / kT2LargeNic;
  const double barrier = 5;
  const double update = average_s(kElements, 4) + average_s(kElements, 2);
  for (int peer = 0; peer < 4; ++peer) {
    CHECK(fixture::peer_phase_total(r, peer, Phase::Receive) == doctest::Approx(copies).epsilon(1e-9));
    CHECK(r.peer_end_s[peer] ==
          doctest::Approx(entered + kImage + kImport + average_s(kElements, 1) + barrier + copies + update).epsilon(1e-9));
  }
  CHECK(r.ledger.function_runs.size() == 4 + 4);  // each peer's gradient function and averaging function
  CHECK(r.ledger.instances.size() == 8);
  // With the database on the peer instance, there are only the four peers to pay for.
  auto on_peer = fixture::simulate(
      fixture::scenario(write_experiment(dir, experiment(4, R"(<system name="spirt" strategy="spirt" gradient_format="tensor"/>)") +
                                                  R"(<functions memory_mb="1769"/>)")),
      "spirt");
  CHECK(on_peer.failure.empty());
  CHECK(on_peer.ledger.instances.size() == 4);
}

TEST_CASE("lambdaml allreduce, 4 workers: the master merges through object storage, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(4, R"(<system name="lml" strategy="lambdaml" pattern="allreduce"/>)") + R"(<functions memory_mb="1769"/>)"));
  auto r = fixture::simulate(s, "lml");
  const double init = kImage + kImport;  // 1,769 MB: one vCPU
  const double load = kFirstByte + 15000.0 * 784 * 4 / kFunctionNet;
  const double compute = 1 + 1e-4 * 15000;  // one thread
  const double object = kFirstByte + kGradient / kFunctionNet;  // a gradient PUT or GET
  const double list_s = kFirstByte, per_key_s = 0.001;          // a LIST: a GET's first byte, then its keys
  const double sent = init + load + compute + object;            // every worker's gradient is in storage
  // The master's first LIST is answered after every PUT: it lists all four, GETs them, its own too, and deletes
  // them with one request (a PUT's first byte); it averages, PUTs the merged gradient, LISTs the merged bucket
  // (one key, none older to delete), and reads the merged gradient back as every worker does.
  const double merged_in_storage = (list_s + 4 * per_key_s) + 4 * object + kFirstByte + average_s(kElements, 4) + object;
  const double update = average_s(kElements, 2);
  // After its iteration the master LISTs the merged bucket (nothing older); its invocation's end clears both
  // buckets: a LIST of the empty one, a LIST of the merged one and a delete of its one key.
  const double clean_up = list_s + per_key_s;
  const double clear = list_s + (list_s + per_key_s) + kFirstByte;
  CHECK(r.peer_end_s[0] == doctest::Approx(sent + merged_in_storage + (list_s + per_key_s) + object + update +
                                           clean_up + clear).epsilon(1e-9));
  // The others try to GET the merged object from then on: each try before it is there is an empty answer (a first
  // byte), then LambdaML's 0.1 s sleep; the first try after the master's PUT finds it.
  const double try_s = kFirstByte + 0.1;
  const int tries = static_cast<int>(std::ceil(merged_in_storage / try_s));
  REQUIRE(tries > 1);
  for (int w = 1; w < 4; ++w)
    CHECK(r.peer_end_s[w] == doctest::Approx(sent + tries * try_s + object + update).epsilon(1e-9));
  REQUIRE(r.ledger.function_runs.size() == 4);
  // Each worker's one invocation lasts from its start to its end, its cold start included.
  std::vector<double> lasted, ends(r.peer_end_s.begin(), r.peer_end_s.end());
  for (const auto& run : r.ledger.function_runs) lasted.push_back(run.init_s + run.run_s);
  std::sort(lasted.begin(), lasted.end());
  std::sort(ends.begin(), ends.end());
  for (size_t i = 0; i < ends.size(); ++i) CHECK(lasted[i] == doctest::Approx(ends[i]).epsilon(1e-9));
  CHECK(r.ledger.instances.empty());  // no peer instance: functions only
  CHECK(r.ledger.broker_uptime_s == 0);
  // PUT-class: four gradients, the merged one and five LISTs (S3 bills a LIST as a PUT); deletes are free.
  CHECK(r.ledger.storage_puts == 4 + 1 + 5);
  CHECK(r.ledger.storage_gets == 4 + 4 + 4 + 3 * tries);  // loads, the master's, the merged four and empty tries
  // LambdaML's get_object_or_wait gives up after its time-out: a worker still without the merged gradient fails.
  auto impatient = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, experiment(4, R"(<system name="lml" strategy="lambdaml" pattern="allreduce" poll_timeout_s="0.05"/>)") +
                   R"(<functions memory_mb="1769"/>)")),
      "lml");
  CHECK(impatient.failure.find("gave up waiting 0.05 s for iteration 0's merged gradient") != std::string::npos);
  // Out of range: refused naming the experiment's line and the field.
  for (const std::string bad : {R"(poll_interval_s="0")", R"(poll_timeout_s="-1")", R"(poll_interval_s="61")"}) {
    CAPTURE(bad);
    const auto path = write_experiment(
        dir, experiment(4, R"(<system name="lml" strategy="lambdaml" pattern="allreduce" )" + bad + "/>") +
                 R"(<functions memory_mb="1769"/>)");
    const auto bad_scenario = fixture::scenario(path);
    const std::string field = bad.substr(0, bad.find('='));
    const std::string expected = path + fixture::line_tag(path, "<system ") +
                                 " field 'systems/system[@name='lml']/@" + field + "': expected a value in";
    CHECK_THROWS_WITH_AS(simulation::make_strategy(fixture::system(bad_scenario, "lml"), bad_scenario),
                         doctest::Contains(expected.c_str()), InputError);
  }
}

TEST_CASE("lambdaml scatter-reduce, 4 workers: each merges one chunk, by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(4, R"(<system name="lml" strategy="lambdaml" pattern="scatter_reduce"/>)") +
               R"(<functions memory_mb="1769"/>)"));
  auto r = fixture::simulate(s, "lml");
  const double init = kImage + kImport;
  const double load = kFirstByte + 15000.0 * 784 * 4 / kFunctionNet;
  const double chunk = kFirstByte + kGradient / 4 / kFunctionNet;
  const double list_s = kFirstByte, per_key_s = 0.001, delete_s = kFirstByte;
  // Every worker PUTs its three chunks for the others at the same pace, so a worker's first LIST, answered after
  // all of them, lists all 12 chunks and shows the three copies of its own; each is read, added and deleted. The
  // merged chunks are all PUT at once too: one LIST of the merged bucket (four keys) shows the three others'.
  const double exchange = 3 * chunk                                                 // PUT the chunks others own
                          + (list_s + 12 * per_key_s)                               // LIST: my three are there
                          + 3 * (chunk + average_s(kElements / 4, 2) + delete_s)  // GET, add and DELETE each
                          + chunk                                                   // PUT my merged chunk
                          + (list_s + 4 * per_key_s)                                // LIST the merged bucket
                          + 3 * chunk;                                              // GET the others' merged
  // Worker 0 then LISTs the merged bucket (nothing older to delete) and, its invocation ending, clears both
  // buckets: a LIST of the empty one, a LIST of the merged one's four chunks and one delete.
  const double clean_up = (list_s + 4 * per_key_s) + list_s + (list_s + 4 * per_key_s) + delete_s;
  for (int w = 0; w < 4; ++w)
    CHECK(r.peer_end_s[w] == doctest::Approx(init + load + 2.5 + exchange + average_s(kElements, 2) +
                                             (w == 0 ? clean_up : 0)).epsilon(1e-9));
  CHECK(r.ledger.storage_puts == 4 * 4 + 4 * 2 + 3);  // chunks, merged chunks and the LISTs (billed as PUTs)
  CHECK(r.ledger.storage_gets == 4 + 4 * 6);
}

TEST_CASE("lambdaml, one worker, two iterations: the merged bucket's older objects are deleted, both buckets cleared at the end") {
  // One worker makes every request in turn, so each LIST's keys are known: what it has written and not deleted.
  TempDir dir;
  auto run = [&](const std::string& pattern) {
    std::string body = experiment(1, R"(<system name="lml" strategy="lambdaml" pattern=")" + pattern + R"("/>)") +
                       R"(<functions memory_mb="1769"/>)";
    body.replace(body.find(R"(iterations="1")"), 14, R"(iterations="2")");
    return fixture::simulate(fixture::scenario(write_experiment(dir, body)), "lml");
  };
  const double init = kImage + kImport, load = kFirstByte + 60000.0 * 784 * 4 / kFunctionNet;
  const double compute = 1 + 1e-4 * 60000, update = average_s(kElements, 2);
  const double object = kFirstByte + kGradient / kFunctionNet, delete_s = kFirstByte;
  auto list = [](int keys) { return kFirstByte + keys * 0.001; };
  const double clear = list(0) + list(1) + delete_s;  // the empty bucket, then the merged one's last object
  SUBCASE("all-reduce") {
    auto r = run("allreduce");
    REQUIRE(r.failure.empty());
    // PUT its gradient; a LIST shows it; GET and delete it; average; PUT the merged one; LIST the merged bucket
    // (in the second iteration two keys: the first iteration's is deleted); read it back; update; LIST again.
    auto iteration = [&](int merged_keys) {
      return compute + object + list(1) + object + delete_s + average_s(kElements, 1) + object + list(merged_keys) +
             (merged_keys > 1 ? delete_s : 0) + object + update + list(1);
    };
    CHECK(r.peer_end_s[0] == doctest::Approx(init + load + iteration(1) + iteration(2) + clear).epsilon(1e-9));
    CHECK(r.ledger.storage_puts == 2 * 2 + 3 + 3 + 2);  // gradients and merged ones; LISTs (billed as PUTs)
    CHECK(r.ledger.storage_gets == 1 + 2 * 2);
  }
  SUBCASE("scatter-reduce") {
    auto r = run("scatter_reduce");
    REQUIRE(r.failure.empty());
    // Alone it owns the one chunk: no copies to wait for; it PUTs its merged chunk, updates, and LISTs the merged
    // bucket, which in the second iteration also holds the first's chunk: deleted.
    const double first = compute + object + update + list(1);
    const double second = compute + object + update + list(2) + delete_s;
    CHECK(r.peer_end_s[0] == doctest::Approx(init + load + first + second + clear).epsilon(1e-9));
    CHECK(r.ledger.storage_puts == 2 + 1 + 1 + 2);
    CHECK(r.ledger.storage_gets == 1);
  }
}

TEST_CASE("lambdaml: a worker near its timeout checkpoints, re-invokes itself warm and reloads, all billed") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="3"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.large"/>
    <functions memory_mb="1769"/>
    <systems><system name="lml" strategy="lambdaml"/></systems>)";
  auto plain = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "lml");
  CHECK(plain.ledger.function_runs.size() == 2);  // one invocation each
  // A 9 s timeout: an iteration takes about 4.7 s (a 4 s step and the exchange), so each needs its own invocation.
  auto short_lived = fixture::simulate(
      fixture::scenario(write_experiment(dir, body, R"(<override select="function_service/@max_timeout_s" value="9"/>)")),
      "lml");
  CHECK(short_lived.failure.empty());
  CHECK(short_lived.ledger.function_runs.size() == 2 * 3);
  int checkpoints = 0, cold = 0;
  for (const auto& p : short_lived.trace) checkpoints += p.phase == Phase::Checkpoint, cold += p.phase == Phase::ColdStart;
  CHECK(checkpoints == 2);  // worker 0 saves the model before each re-invocation (LambdaML's dl_s3.py)
  CHECK(cold == 2);  // the re-invocations find their containers warm
  for (const auto& run : short_lived.ledger.function_runs) CHECK(run.run_s < 9);
  CHECK(short_lived.iterations_done == std::vector<int>{3, 3});
  // Each re-invocation reloads the checkpoint and the partition; before each checkpoint worker 0 clears both
  // buckets (two LISTs, billed as PUTs) and PUTs the model. While it does, worker 1 may poll for the merged
  // gradient a few more times (empty GETs), so the GETs are at least the reloads.
  CHECK(short_lived.ledger.storage_puts == plain.ledger.storage_puts + 2 + 2 * 2);
  CHECK(short_lived.ledger.storage_gets >= plain.ledger.storage_gets + 4 + 4);
  CHECK(short_lived.peer_end_s[0] > plain.peer_end_s[0]);
}

TEST_CASE("timeouts: aggregators and LambdaML workers that cannot finish in time make the system infeasible") {
  TempDir dir;
  const std::string timeout = R"(<override select="function_service/@max_timeout_s" value="0.5"/>)";
  auto tree = fixture::simulate(
      fixture::scenario(write_experiment(dir, experiment(4, R"(<system name="tree" strategy="serverless_tree"/>)"), timeout)),
      "tree");
  CHECK(tree.failure.find("tree: an aggregator function (2 inputs of 4.8 MB) needs") != std::string::npos);
  // A worker whose one iteration cannot fit into an invocation: refused at once, or infeasible, never a loop.
  auto lml = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, experiment(4, R"(<system name="lml" strategy="lambdaml"/>)") + R"(<functions memory_mb="1769"/>)",
          R"(<override select="function_service/@max_timeout_s" value="3"/>)")),
      "lml");
  CHECK(lml.failure.find("lml: worker") != std::string::npos);
  CHECK(lml.failure.find("ran past the function timeout of 3 s") != std::string::npos);
  for (const auto& run : lml.ledger.function_runs) CHECK(run.run_s <= 3 + 1e-9);
  const auto limit = write_experiment(dir, experiment(4, R"(<system name="lml" strategy="lambdaml"/>)"),
                                      R"(<override select="function_service/@concurrency_limit" value="2"/>)");
  CHECK_THROWS_WITH_AS(check_systems(fixture::scenario(limit)),
                       doctest::Contains("4 workers cannot all run within the function service's concurrency limit"),
                       InputError);
}

TEST_CASE("spirt: when a peer's workflow fails, the others leave the barrier and the run ends") {
  TempDir dir;
  auto r = fixture::simulate(fixture::scenario(write_experiment(
                                 dir, experiment(4, R"(<system name="spirt" strategy="spirt" gradient_format="tensor"/>)") +
                                          R"(<functions memory_mb="1769"/><failures function_failure_probability="0.3"/>)")),
                             "spirt");
  CHECK(r.failure.find("spirt: a function invocation of peer") != std::string::npos);
  for (double end : r.peer_end_s) CHECK(end < 100);  // it used to poll the barrier for ever
  // Each averaging function that started waits at the barrier too: it ends with it, billed once (JSON here).
  auto json = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, experiment(4, R"(<system name="spirt" strategy="spirt"/>)") +
                   R"(<functions memory_mb="1769"/><failures function_failure_probability="0.3"/>)",
          "", json_test_profile(dir))),
      "spirt");
  CHECK(json.failure.find("spirt: a function invocation of peer") != std::string::npos);
  for (double end : json.peer_end_s) CHECK(end < 100);
  int averaging_started = 0;  // each traces one local average
  for (const auto& p : json.trace) averaging_started += p.phase == Phase::LocalAverage;
  int attempts = 0;  // every gradient function's attempt ends in its compute phase, a failure or running out of memory
  for (const auto& p : json.trace)
    attempts += p.invocation >= 0 && (p.phase == Phase::Compute || p.phase == Phase::FunctionFailure ||
                                      p.phase == Phase::OutOfMemory);
  CHECK(static_cast<int>(json.ledger.function_runs.size()) == attempts + averaging_started);
}

TEST_CASE("spirt: the barrier ends a count after the last peer's post, and a peer failing late frees those waiting") {
  // One retry a function, half of all attempts failing: among the first seeds, one where a peer's retry succeeds
  // (it reaches the barrier last) and one where a peer's retry fails after the others reached the barrier.
  TempDir dir;
  auto run = [&](int seed) {
    const auto path = write_experiment(
        dir, experiment(4, R"(<system name="spirt" strategy="spirt" gradient_format="tensor"/>)") +
                 R"(<functions memory_mb="1769"/><failures function_failure_probability="0.5"/>)",
        R"(<override select="workflow_service/@task_retry_attempts" value="1"/>)");
    std::string text = p2psim::read_text(path);
    text.replace(text.find(R"(seed="7")"), 8, "seed=\"" + std::to_string(seed) + "\"");
    std::ofstream(path) << text;
    return fixture::simulate(fixture::scenario(path), "spirt");
  };
  auto rows = [](const p2psim::RunOutput& r, p2psim::Phase phase) {
    std::vector<p2psim::PhaseRecord> found;
    for (const auto& p : r.trace)
      if (p.phase == phase && p.invocation < 0) found.push_back(p);
    return found;
  };
  bool late_success = false, late_failure = false;
  for (int seed = 1; seed <= 20 && !(late_success && late_failure); ++seed) {
    CAPTURE(seed);
    const auto r = run(seed);
    const auto barriers = rows(r, Phase::Barrier);
    const auto averages = rows(r, Phase::LocalAverage);
    if (r.failure.empty() && !late_success) {
      // The last peer to post: every other peer leaves the barrier when its post (1 ms), one count (1 ms), the
      // settle (5 s) and a count after it (1 ms) are done; rank 0 then purges (1 ms more).
      REQUIRE(barriers.size() == 4);
      const auto last = *std::max_element(barriers.begin(), barriers.end(),
                                          [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
      if (std::none_of(barriers.begin(), barriers.end(), [&](const auto& b) { return b.start_s < last.start_s; })) continue;
      late_success = true;
      for (const auto& b : barriers)
        CHECK(b.end_s == doctest::Approx(last.start_s + 0.001 + 0.001 + 5 + 0.001 + (b.peer == 0 ? 0.001 : 0)).epsilon(1e-12));
    } else if (!r.failure.empty() && !late_failure && averages.size() == 3) {
      // Three peers' averaging functions waited at the barrier for the fourth, whose retry failed: they leave it
      // as the run fails, each billed once.
      late_failure = true;
      int attempts = 0;
      for (const auto& p : r.trace)
        attempts += p.invocation >= 0 && (p.phase == Phase::Compute || p.phase == Phase::FunctionFailure ||
                                          p.phase == Phase::OutOfMemory);
      CHECK(static_cast<int>(r.ledger.function_runs.size()) == attempts + 3);
      for (double end : r.peer_end_s) CHECK(end < 60);
      // Each execution's states and its branch, the 3 averaging Tasks (the failed execution never entered its own)
      // and a transition a retry (every attempt beyond the four first ones).
      CHECK(r.ledger.workflow_transitions == 4 * (3 + 1) + 3 + (attempts - 4));
    }
  }
  CHECK(late_success);
  CHECK(late_failure);
}

TEST_CASE("a reducer larger than the function service allows makes the system infeasible, not an error") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(
      dir, experiment(4, R"(<system name="sharded" strategy="serverless_sharded" shards="1" reducer_buffers="3"/>)") +
               R"(<functions memory_mb="256"/>)",
      R"(<override select="function_service/@memory_max_mb" value="270"/>)"));  // needs 262 + 3 x 4.58 = 276 MB
  auto r = fixture::simulate(s, "sharded");
  CHECK(r.failure.find("sharded: out of memory: a reducer of 1/1 of the mnist_cnn gradient needs 276 MB") !=
        std::string::npos);
  CHECK(r.ledger.function_runs.empty());
}

TEST_CASE("systems of several strategies run side by side and each is compared with the baseline") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, experiment(4, R"(
      <system name="a2a" strategy="p2p_all_to_all"/>
      <system name="ring" strategy="ring_allreduce"/>)")));
  CHECK(s.experiment.baseline == "a2a");  // the first, when none is named
  // Same data, same compute: the designs differ only after the gradient.
  auto a2a = fixture::simulate(s, "a2a");
  auto ring = fixture::simulate(s, "ring");
  CHECK(phase_total(a2a, Phase::Compute) == doctest::Approx(phase_total(ring, Phase::Compute)).epsilon(1e-12));
  CHECK(a2a.ledger.broker_uptime_s > 0);
  CHECK(ring.ledger.broker_uptime_s == 0);
}

TEST_CASE("bad <systems> are named by file, line and field") {
  TempDir dir;
  auto error = [&](const std::string& systems, const std::string& extra = "") {
    const auto path = write_experiment(dir, experiment(4, systems) + extra);
    try {
      check_systems(fixture::scenario(path));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto gossip = error(R"(<system name="x" strategy="gossip"/>)");
  CHECK(gossip.find(fixture::line_tag(dir.path("experiment.xml"), "gossip") + " field 'systems/system[@name='x']/@strategy': unknown strategy 'gossip' (known: p2p_all_to_all, "
            "ring_allreduce, serverless_sharded, serverless_tree, parameter_server, spirt, lambdaml") != std::string::npos);
  CHECK(gossip.find(dir.path("experiment.xml")) != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce" shards="2"/>)").find(
            "field 'systems/system[@name='x']/@shards': unknown attribute for strategy 'ring_allreduce'") !=
        std::string::npos);
  CHECK(error(R"(<system name="x" strategy="serverless_sharded"/>)").find("@shards': required") != std::string::npos);
  // A misspelt required attribute is named with it (only reject_unread() named it, after the required one's error).
  CHECK(error(R"(<system name="x" strategy="serverless_sharded" shardz="4"/>)").find(
            "@shards': required: the number of shards (and reducer functions) M; 'shardz' is not an attribute of "
            "strategy 'serverless_sharded': a misspelt shards?") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="serverless_sharded" shards="0"/>)").find("expected 1..65536, got 0") !=
        std::string::npos);
  CHECK(error(R"(<system name="x" strategy="p2p_all_to_all" compute="gpu"/>)").find(
            "@compute': expected one of peer, functions, got 'gpu'") != std::string::npos);
  // What every design takes: how it moves objects, whether its functions fetch the model; SPIRT's aggregation.
  CHECK(error(R"(<system name="x" strategy="ring_allreduce" storage_streams="0"/>)").find(
            "field 'systems/system[@name='x']/@storage_streams': expected 1..64, got 0") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce" storage_part_mb="1"/>)").find(
            "@storage_part_mb': expected a value in [5, 5120], got 1") != std::string::npos);
  // The bounds are the profile's storage service's, not S3's in the code: a service of 1 MiB parts takes 1.
  const auto one_mib_parts = write_experiment(
      dir, experiment(4, R"(<system name="x" strategy="ring_allreduce" storage_part_mb="1"/>)"),
      R"(<override select="object_storage/@part_min_bytes" value="1048576"/>)");
  CHECK_NOTHROW(check_systems(fixture::scenario(one_mib_parts)));
  // boto3's default 8 MiB part is held to the service's parts too: one of 16 MiB parts at least needs it said.
  const auto sixteen_mib_parts = write_experiment(dir, experiment(4, R"(<system name="x" strategy="ring_allreduce"/>)"),
                                                  R"(<override select="object_storage/@part_min_bytes" value="16777216"/>)");
  try {
    check_systems(fixture::scenario(sixteen_mib_parts));
    FAIL("a default part below the service's least was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("@storage_part_mb': the default part of 8 MiB is outside the storage service's "
                                     "parts (16777216 to 5368709120 bytes") != std::string::npos);
  }
  CHECK(error(R"(<system name="x" strategy="p2p_all_to_all" compute="functions" storage_client="boto"/>)").find(
            "@storage_client': expected one of get_object, get_object_md5, transfer_manager, got 'boto'") !=
        std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce" storage_size_probe="range"/>)").find(
            "@storage_size_probe': expected one of head, first_part, got 'range'") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="p2p_all_to_all" compute="functions" model_fetch="payload"/>)").find(
            "@model_fetch': expected one of storage, none, got 'payload'") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="spirt" gradient_format="tensor" aggregation="gpu"/>)").find(
            "@aggregation': expected one of database, peer, got 'gpu'") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce"/><system name="x" strategy="ring_allreduce"/>)").find(
            "field 'system/@name': system 'x' is declared twice") != std::string::npos);
  CHECK(error(R"(<system name="a,b" strategy="ring_allreduce"/>)").find("expected 1-64 letters") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce"/>)", R"(<failures crash_peer="1" peer_timeout_s="5"/>)")
            .find("ring_allreduce does not model peer crashes") != std::string::npos);
  CHECK(error(R"(<system name="x" strategy="ring_allreduce"/>)",
              R"(<failures broker_outage_from_s="5" broker_outage_to_s="9"/>)")
            .find("this design runs no broker") != std::string::npos);
  const auto both = write_experiment(dir, experiment(4, R"(<system name="x" strategy="ring_allreduce"/>)") +
                                              R"(<architectures run="both"/>)");
  try {
    fixture::scenario(both);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("give <systems> or <architectures>, not both") != std::string::npos);
  }
  const auto no_base = write_experiment(
      dir, R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024"/>
    <peers count="4" instance_type="t2.large"/><systems baseline="nope"><system name="x" strategy="ring_allreduce"/></systems>)");
  try {
    fixture::scenario(no_base);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("field 'systems/@baseline': no system is named 'nope'") != std::string::npos);
  }
}

TEST_CASE("every design that asks for no function slot gives the same output whatever <functions> and the other systems say") {
  // A sweep simulates such a system once for scenarios that differ only in <functions> or in their other systems
  // (sim/app/run_memo.hpp). Every registered design, with its default parameters and, where it has the choice, with
  // its gradients on the peers.
  int checked = 0;
  for (const auto& strategy : simulation::strategy_names())
    for (const std::string compute : {"", " compute=\"peer\""}) {
      CAPTURE(strategy);
      CAPTURE(compute);
      auto scenario_with = [&](const TempDir& dir, const std::string& functions, const std::string& others) {
        return fixture::scenario(write_experiment(
            dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="3" iterations="2"/>
    <peers count="3" instance_type="t2.medium"/>
    <systems><system name="x" strategy=")" + strategy + "\"" + compute + "/>" + others + "</systems>\n    " +
                     functions));
      };
      TempDir dir_a, dir_b;
      std::optional<Scenario> a;
      try {
        a = scenario_with(dir_a, R"(<functions memory_mb="1024" minibatches_per_invocation="1"/>)", "");
        if (simulation::make_strategy(a->experiment.systems[0], *a)->needs().function_slots > 0) continue;
      } catch (const InputError&) {  // a design without the choice refuses `compute`
        continue;
      }
      const auto b = scenario_with(dir_b, R"(<functions memory_mb="10240" minibatches_per_invocation="3"
                                                          keep_alive_s="1" concurrency_limit="2"/>)",
                                   R"(<system name="other" strategy="serverless_sharded" shards="2"/>)");
      const auto bytes = [](const RunOutput& out) { return to_bytes(out); };
      const auto out_a = simulate_isolated(*a, a->experiment.systems[0]);
      CHECK(out_a.failure.empty());
      CHECK(bytes(out_a) == bytes(simulate_isolated(b, b.experiment.systems[0])));
      ++checked;
    }
  CHECK(checked >= 3);  // the all-to-all, the ring and the parameter server with gradients on the peers
}
