// How `p2psim calibrate` takes one sample: the last run of a window whose contention is judged.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "sample_timing.hpp"

using p2psim::models::time_after_window;

namespace {
// A run that sleeps: it takes at least `ms` of wall time and almost no CPU. It records how long each call took,
// as the run itself saw it, so that a test can check the window's rule on the pace the machine really gave.
struct SleepingRun {
  int calls = 0;
  std::chrono::milliseconds ms;
  std::vector<double> took_s;
  void operator()() {
    ++calls;
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(ms);
    took_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
};
}  // namespace

TEST_CASE("calibrate sample: a run as long as the window is timed alone") {
  SleepingRun run{0, std::chrono::milliseconds(5), {}};
  const auto s = time_after_window(std::ref(run), 0.005, 0.005, 2);
  CHECK(run.calls == 1);
  CHECK(s.untimed_runs == 0);
  CHECK(s.seconds >= 0.005);
  CHECK(s.window_s >= s.seconds);
}

TEST_CASE("calibrate sample: shorter runs fill the window first, and only the last is the sample") {
  SleepingRun run{0, std::chrono::milliseconds(2), {}};
  const double window_s = 0.03;
  const auto s = time_after_window(std::ref(run), window_s, 0.002, 2);
  REQUIRE(s.untimed_runs >= 1);  // a 2 ms run cannot fill a 30 ms window alone
  REQUIRE(run.calls == s.untimed_runs + 1);
  // The rule, on whatever pace this machine gave (a loaded machine sleeps longer): another untimed run was started
  // only while the time so far plus the last run's stayed below the window. The run's own times are at most what
  // the window saw, so every run but the last untimed one must meet it on them too.
  double sum_s = 0;
  for (int k = 0; k + 1 < s.untimed_runs; ++k) {
    sum_s += run.took_s[k];
    CHECK(sum_s + run.took_s[k] < window_s);
  }
  // And it stopped only once the time so far plus its last run reached the window; that run is inside the time so
  // far, so the untimed part of the window is at least half of it.
  CHECK(s.window_s - s.seconds >= window_s / 2);
  CHECK(s.seconds >= 0.002);
  CHECK(s.seconds < s.window_s);
  CHECK(s.window_s >= 0.002 * run.calls);
  // Sleeping takes no CPU worth a tick: the sample's own CPU time is far below its wall time.
  CHECK(s.used.cpu_s < s.seconds);
  CHECK(s.foreign_cpu_share >= 0);
  CHECK(s.foreign_cpu_share <= 1);
}

TEST_CASE("calibrate sample: a cache line's round trip between two CPUs, and which CPUs a sample is probed on") {
  const auto cpus = p2psim::models::allowed_cpus();
  REQUIRE_FALSE(cpus.empty());
  CHECK(std::is_sorted(cpus.begin(), cpus.end()));
  // One thread, or one CPU: nothing to probe.
  CHECK(p2psim::models::widest_round_trip_ns(1) == 0);
  if (cpus.size() < 2) return;  // CI has 2 cores
  // Two CPUs answer within tens to hundreds of ns, never 0, and a second probe agrees within an order of magnitude
  // (the host may move a VM's vCPUs between two probes, 70-82 against about 360 ns on the calibration VM).
  const double a = p2psim::models::core_round_trip_ns(cpus[0], cpus[1], 2000);
  const double b = p2psim::models::widest_round_trip_ns(2);
  CHECK(a > 1);
  CHECK(a < 1e5);
  CHECK(b > 1);
  CHECK(b < 1e5);
  // Asked for more threads than CPUs, the probe covers the CPUs there are (no hang, a value).
  CHECK(p2psim::models::widest_round_trip_ns(64) > 1);
}

TEST_CASE("calibrate sample: waiting for a shared cache returns at once when the CPUs share one, or at the limit") {
  if (p2psim::models::allowed_cpus().size() < 2) return;
  // Any limit is met: the first probe answers. No wait allowed: one probe, whatever it finds.
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(p2psim::models::wait_for_shared_cache(2, 1e9, 60) > 1);
  CHECK(p2psim::models::wait_for_shared_cache(2, 0.001, 0) > 0.001);  // no pair of CPUs answers in a picosecond
  // An impossible limit with a 1 s wait: probes every 0.5 s until the wait is over, then returns the last.
  CHECK(p2psim::models::wait_for_shared_cache(2, 0.001, 1.0) > 0.001);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took_s >= 1.0);
  CHECK(took_s < 10.0);
}
