// Limits (docs/limits.md): what a run may ask for is checked before simulating, and a run that passes the
// simulated-time horizon stops with a clear reason instead of running for ever.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "atomic_file.hpp"

#include "limits.hpp"
#include "results.hpp"
#include "sim_fixture.hpp"

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
  const auto small = fixture::scenario(fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="10"/>
  <peers count="4" instance_type="t2.large"/>)"));
  // 4 peers x 10 iterations x (8 own phases + 5 x 1 function's), and 4 x 4 deliveries per iteration.
  CHECK(limits::estimated_trace_records(small) == doctest::Approx(4 * 10 * (8 + 5)));
  CHECK(limits::estimated_deliveries(small) == doctest::Approx(4 * 4 * 10));
  CHECK(limits::estimated_peak_bytes(small) ==
        doctest::Approx(limits::kBaseBytes + 4 * 10 * 13 * limits::kBytesPerTraceRecord + 160 * limits::kBytesPerDelivery));
  CHECK_NOTHROW(limits::check_fits_in_memory(small));
  // A design that records no deliveries: no term in the peers (a 512-peer sharded run was refused at first).
  const auto ring = fixture::scenario(fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="10"/>
  <peers count="4" instance_type="t2.large"/>
  <systems><system name="ring" strategy="ring_allreduce"/></systems>)"));
  CHECK(limits::estimated_trace_records(ring) == doctest::Approx(4 * 10 * (8 + 5)));
  CHECK(limits::estimated_deliveries(ring) == 0);

  const auto path = fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1000000"/>
  <peers count="60" instance_type="t2.large"/>)");
  const auto huge = fixture::scenario(path);
  REQUIRE(limits::available_memory_bytes() > 0);
  CHECK(limits::estimated_peak_bytes(huge) > 5e11);  // 60 x 1e6 x 13 records and 3,600 deliveries per iteration: 0.7 TB
  try {
    limits::check_fits_in_memory(huge);
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find(path + fixture::line_tag(path, "<workload") + " field 'workload/@iterations': 60 peers x "
                    "1000000 iterations would need about") != std::string::npos);
    CHECK(what.find("docs/limits.md") != std::string::npos);
  }
}

TEST_CASE("limits: a model's parameter count outside [1, 1e12] is refused naming the models file") {
  TempDir dir;
  for (const char* count : {"-5", "1000000000000000"}) {
    const std::string models = dir.path("models.csv");
    std::ofstream(models) << "model,num_classes,parameters,gradient_bytes,default_input_shape\n"
                          << "mnist_cnn,10," << count << ",0,1x28x28\n";
    const auto path = fixture::write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="2" instance_type="t2.large"/>)");
    // The fixture's calibration element names the shipped models; point it at ours.
    std::string text;
    {
      std::ifstream in(path);
      text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text.replace(text.find("hand_calibration.csv\""), 21, "hand_calibration.csv\" models=\"" + models + "\"");
    std::ofstream(path) << text;
    try {
      fixture::scenario(path);
      FAIL("accepted " << count);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK_MESSAGE(what.find(models + ": field 'parameters': model mnist_cnn: expected 1 to 1000000000000 "
                              "parameters, got " + std::string(count)) == 0, what);
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
