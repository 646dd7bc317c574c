// Limits (docs/limits.md): what a run may ask for is checked before simulating, and a run that passes the
// simulated-time horizon stops with a clear reason instead of running for ever.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "util/atomic_file.hpp"
#include "util/read_text.hpp"

#include <fmt/core.h>

#include "inputs/limits.hpp"
#include "results/results.hpp"
#include "sim_fixture.hpp"
#include "simulation/footprint.hpp"
#include "simulation/simulate.hpp"

using namespace p2psim;

TEST_CASE("limits: a run still going after a simulated year stops, infeasible, with the reason") {
  TempDir dir;
  // One m5.large peer (not burstable), one 60,000-sample step per iteration: 0.6 x (1 + 1e-4 x 60,000) = 4.2 s
  // on 2 threads, 1,000 times slower for the straggler = 4,200 s; 8,000 iterations would take 3.36e7 s, past
  // the 3.1536e7 s horizon.
  const auto path = fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="8000"
            compute_variability="none"/>
  <peers count="1" instance_type="m5.large"/>
  <stragglers slowdown="1000"/>
  <systems><system name="peer" strategy="ring_allreduce"/></systems>)");
  const auto s = fixture::scenario(path);
  const auto r = summarise(s, fixture::system(s, "peer"), fixture::simulate(s, "peer"));
  CHECK_FALSE(r.feasible());
  CHECK(r.run.failure == "peer: still running after 31536000 simulated seconds (a year, p2psim's limit; "
                         "docs/limits.md)");
  // It got as far as the horizon allows, and no further: 31,536,000 / 4,200 s per step = 7,508 whole steps.
  REQUIRE(r.run.iterations_done.size() == 1);
  // It got as far as the horizon allows: about 31,536,000 / 4,200 = 7,508 steps, less a few for each
  // iteration's update (a few seconds each).
  CHECK(r.run.iterations_done[0] <= 31536000 / 4200);
  CHECK(r.run.iterations_done[0] >= 31536000 / 4210);
}

TEST_CASE("limits: a run that would not fit in this machine's memory is refused with an estimate") {
  TempDir dir;
  const auto path = fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1000000"/>
  <peers count="60" instance_type="t2.large"/>)");
  const auto huge = fixture::scenario(path);
  REQUIRE(limits::available_memory_bytes() > 0);
  std::vector<simulation::RunEstimate> estimates;
  for (const auto& system : huge.experiment.systems)
    estimates.push_back(simulation::estimate_run(huge, *simulation::make_strategy(system, huge)));
  // 60 x 1e6 iterations: 3.5e3 deliveries and hundreds of rows per iteration, about a terabyte whatever the host.
  CHECK(simulation::estimated_peak_bytes(estimates) > 5e11);
  try {
    check_systems(huge);
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find(path + fixture::line_tag(path, "<workload") + " field 'workload/@iterations': 60 peers x "
                    "1000000 iterations would need about") != std::string::npos);
    CHECK(what.find("docs/limits.md") != std::string::npos);
  }
}

// Every design at two sizes: the trace rows its footprint estimates are never fewer than it writes, and at most
// twice as many (a 1-peer ring of 200,000 iterations was refused at 27 GB: 303 rows estimated per iteration,
// where it writes 4).
TEST_CASE("limits: each design's estimated trace rows bound the rows it writes, within 2x, at two sizes") {
  TempDir dir;
  const std::vector<std::string> systems{
      R"(<system name="x" strategy="p2p_all_to_all" compute="peer"/>)",
      R"(<system name="x" strategy="p2p_all_to_all" compute="functions"/>)",
      R"(<system name="x" strategy="ring_allreduce"/>)",
      R"(<system name="x" strategy="ring_allreduce" compute="functions"/>)",
      R"(<system name="x" strategy="parameter_server" servers="2"/>)",
      R"(<system name="x" strategy="serverless_sharded" shards="3"/>)",
      R"(<system name="x" strategy="serverless_tree"/>)",
      R"(<system name="x" strategy="spirt" database="peer" gradient_format="tensor"/>)",
      R"(<system name="x" strategy="spirt" database="instance" gradient_format="tensor"/>)",
      R"(<system name="x" strategy="spirt" database="instance" aggregation="peer" gradient_format="tensor"/>)",
      R"(<system name="x" strategy="spirt" database="peer"/>)",
      R"(<system name="x" strategy="spirt" database="instance" aggregation="peer"/>)",
      R"(<system name="x" strategy="lambdaml" pattern="scatter_reduce"/>)",
      R"(<system name="x" strategy="lambdaml" pattern="allreduce"/>)"};
  for (const auto& system : systems)
    for (const auto& [peers, iterations] : std::vector<std::pair<int, int>>{{4, 2}, {9, 3}}) {
      CAPTURE(system);
      CAPTURE(peers);
      const auto s = fixture::scenario(fixture::write_experiment(
          dir, fmt::format(R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="{}"/>
  <peers count="{}" instance_type="t2.large"/>
  <systems>{}</systems>)",
                           iterations, peers, system),
          "", fixture::json_test_profile(dir)));  // SPIRT's JSON priced
      const auto estimate = simulation::estimate_run(s, *simulation::make_strategy(fixture::system(s, "x"), s));
      const auto rows = static_cast<double>(fixture::simulate(s, "x").trace.size());
      CHECK(estimate.trace_rows >= rows);
      CHECK(estimate.trace_rows <= 2 * rows);
    }
}

TEST_CASE("a models file's row: parameters outside [1, 1e12], a model given twice, or gradient bytes that are not its "
          "float32 parameters, refused at its line") {
  TempDir dir;
  const std::string models = dir.path("models.csv");
  const auto path = fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="2" instance_type="t2.large"/>)");
  // The fixture's calibration element names the shipped models; point it at ours.
  std::string text = read_text(path);
  text.replace(text.find("hand_calibration.csv\""), 21, "hand_calibration.csv\" models=\"" + models + "\"");
  std::ofstream(path) << text;
  const std::string header = "model,num_classes,parameters,gradient_bytes,default_input_shape\n";
  for (const auto& [rows, message] : {
           std::pair{std::string("mnist_cnn,10,-5,0,1x28x28\n"),
                     ":2: field 'parameters': model mnist_cnn: expected 1 to 1000000000000 parameters, got -5"},
           std::pair{std::string("mnist_cnn,10,1000000000000000,0,1x28x28\n"),
                     ":2: field 'parameters': model mnist_cnn: expected 1 to 1000000000000 parameters, got "
                     "1000000000000000"},
           // The first of two rows was silently taken.
           std::pair{std::string("mnist_cnn,10,1000,4000,1x28x28\nmnist_cnn,10,9,36,1x28x28\n"),
                     ":3: field 'model': mnist_cnn with 10 classes is given twice (line 2 too)"},
           std::pair{std::string("mnist_cnn,10,1000,-5,1x28x28\n"),
                     ":2: field 'gradient_bytes': model mnist_cnn: '-5' bytes, where 1000 float32 parameters take 4000"}}) {
    CAPTURE(rows);
    std::ofstream(models) << header << rows;
    try {
      fixture::scenario(path);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(models + message) == 0, e.what());
    }
  }
}

TEST_CASE("a result file that cannot be written whole (a full disk) leaves no partial file behind") {
  TempDir dir;
  const std::string path = dir.path("result.json");
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child can write 1 KiB at most, as on a full disk: writes past it fail with EFBIG.
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit one_kib{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &one_kib);
    try {
      write_file_atomically(path, std::string(1 << 20, 'x'));
    } catch (const std::runtime_error&) {
      ::_exit(3);  // refused, as it should be
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(std::filesystem::is_empty(dir.root));  // nor its partial copy, whatever its name
}
