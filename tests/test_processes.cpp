// No process outlives its parent: `p2psim run` with <accuracy> and `p2psim sweep`, ended by SIGTERM or
// SIGKILL, leave no simulation, worker or replay running; a sweep's folder can be resumed at once; a sweep runs
// at most -j heavy processes, replays included. Each case starts the real binary as a user's shell would.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "process_table.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace {

using namespace std::chrono_literals;

// 4 peers of 64 Fashion-MNIST images each, three replayable systems and enough iterations that their replays
// run for seconds: long enough to be caught running.
std::string experiment(int iterations, const std::string& sweep = "") {
  return R"(<?xml version="1.0"?>
<experiment name="procs" seed="3">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/platforms/aws_us_east_1.xml"/>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/calibration/kernels" models=")" P2PSIM_SOURCE_DIR R"(/calibration/models.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="fashion_mnist" train_samples="256" batch_size="32"
            iterations=")" + std::to_string(iterations) + R"("/>
  <peers count="4" instance_type="t2.medium"/>
  <systems>
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
    <system name="ring" strategy="ring_allreduce"/>
  </systems>
  <accuracy target="0.99" eval_every="1000"/>
  )" + sweep + "\n</experiment>\n";
}

// Starts `p2psim ARGS...` with the cache in `cache` (and temporary files in `tmp`, when given), output to
// `log`; returns its pid.
pid_t start(const std::vector<std::string>& args, const std::string& cache, const std::string& log,
            const std::string& tmp = "") {
  std::fflush(nullptr);  // or the child's freopen writes this process's buffered output a second time
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("P2PSIM_CACHE_DIR", cache.c_str(), 1);
    if (!tmp.empty()) ::setenv("TMPDIR", tmp.c_str(), 1);
    // As a terminal starts a command: SIGINT and SIGTERM at their defaults and not blocked, whatever the test
    // runner left (a CI job in the background starts its children with SIGINT ignored or blocked).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &stops, nullptr);
    std::freopen(log.c_str(), "w", stdout);
    std::freopen(log.c_str(), "a", stderr);
    std::vector<char*> argv{const_cast<char*>(P2PSIM_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(P2PSIM_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits up to `limit` for `done()`.
template <class F>
bool within(std::chrono::milliseconds limit, F done) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

}  // namespace

TEST_CASE("run with <accuracy>: its replays die with it, whether SIGTERM or SIGKILL ends it") {
  for (int sig : {SIGTERM, SIGKILL}) {
    CAPTURE(sig);
    TempDir dir;
    std::ofstream(dir.path("acc.xml")) << experiment(400);
    const pid_t run = start({"run", dir.path("acc.xml"), "-q", "--out", dir.path("out")}, dir.path("cache"),
                            dir.path("log"));
    const std::string schedule = dir.path("out/schedule.json");
    REQUIRE(within(60s, [&] { return !processes_with(schedule).empty(); }));  // a replay is running
    ::kill(run, sig);
    ::waitpid(run, nullptr, 0);
    CHECK(within(3s, [&] { return processes_with(schedule).empty(); }));
  }
}

TEST_CASE("run with <accuracy>, no --out: SIGINT or SIGTERM removes its temporary folder, and ends it as the signal would") {
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    TempDir dir;
    std::filesystem::create_directories(dir.path("tmp"));
    std::ofstream(dir.path("acc.xml")) << experiment(400);
    const pid_t run = start({"run", dir.path("acc.xml"), "-q"}, dir.path("cache"), dir.path("log"), dir.path("tmp"));
    REQUIRE(within(60s, [&] { return !processes_with(dir.path("tmp/p2psim-replay-")).empty(); }));  // replaying
    ::kill(run, sig);
    int status = 0;
    ::waitpid(run, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(std::filesystem::is_empty(dir.path("tmp")));  // the folder went (it stayed before)
    CHECK(within(3s, [&] { return processes_with(dir.path("tmp")).empty(); }));
  }
}

TEST_CASE("calibrate: SIGINT or SIGTERM removes its partial samples, and ends it as the signal would") {
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    TempDir dir;
    const std::string csv = dir.path("steps.csv");
    // Many samples of one model: seconds of timing, long enough to be caught with its partial file written.
    const pid_t calibrate = start({"calibrate", "-m", "mnist_cnn", "--batch-sizes", "1,2,4,8,16,32,64,128", "--threads",
                                   "1", "--no-tensor-ops", "--repeats", "50", "--min-repeats", "50", "-o", csv},
                                  dir.path("cache"), dir.path("log"));
    const std::string partial = csv + "." + std::to_string(calibrate) + ".partial";
    REQUIRE(within(60s, [&] { return std::filesystem::exists(partial); }));
    ::kill(calibrate, sig);
    int status = 0;
    ::waitpid(calibrate, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK_FALSE(std::filesystem::exists(partial));
    CHECK_FALSE(std::filesystem::exists(csv));
  }
}

TEST_CASE("sweep: SIGKILL of the sweep ends its workers and their replays, and the folder resumes at once") {
  TempDir dir;
  std::ofstream(dir.path("sweep.xml"))
      << experiment(400, R"(<sweep><axis select="peers/@instance_type" values="t2.medium t2.large"/></sweep>)");
  const std::string out = dir.path("out");
  const pid_t sweep = start({"sweep", dir.path("sweep.xml"), "-j", "2", "--out", out}, dir.path("cache"), dir.path("log"));
  REQUIRE(within(60s, [&] { return !processes_with(out + "/runs/.").empty(); }));  // a replay of a scenario
  ::kill(sweep, SIGKILL);
  ::waitpid(sweep, nullptr, 0);
  // Workers are forks of the sweep (same command line), replays name the scenario's folder: none is left.
  CHECK(within(3s, [&] { return processes_with(out).empty(); }));
  // The lock died with them: a resume starts instead of being refused.
  const pid_t resume = start({"sweep", dir.path("sweep.xml"), "-j", "2", "--out", out}, dir.path("cache"),
                             dir.path("log2"));
  std::this_thread::sleep_for(1s);
  ::kill(resume, SIGTERM);
  int status = 0;
  ::waitpid(resume, &status, 0);
  std::ifstream log(dir.path("log2"));
  const std::string text(std::istreambuf_iterator<char>(log), {});
  CHECK(text.find("another sweep is running") == std::string::npos);
  CHECK(within(3s, [&] { return processes_with(out).empty(); }));  // and SIGTERM ends everything too
}

TEST_CASE("sweep -j 1: one heavy process at a time, replays included") {
  TempDir dir;
  std::ofstream(dir.path("sweep.xml"))
      << experiment(12, R"(<sweep><axis select="peers/@instance_type" values="t2.medium t2.large"/></sweep>)");
  const std::string out = dir.path("out");
  const pid_t sweep = start({"sweep", dir.path("sweep.xml"), "-j", "1", "--out", out}, dir.path("cache"), dir.path("log"));
  size_t most = 0;
  int status = -1;
  while (::waitpid(sweep, &status, WNOHANG) == 0) {
    size_t replays = 0;
    for (pid_t p : processes_with(out + "/runs/."))
      if (cmdline_of(p).find("replay") != std::string::npos) ++replays;
    most = std::max(most, replays);
    std::this_thread::sleep_for(10ms);
  }
  std::ifstream log(dir.path("log"));
  INFO(std::string(std::istreambuf_iterator<char>(log), {}));  // the sweep's output, should a check fail
  CAPTURE(status);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(most == 1);  // seen running, never two at once
}
