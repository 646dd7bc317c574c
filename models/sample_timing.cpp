#include "sample_timing.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace p2psim::models {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Usage own_usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return {static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
              static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6,
          static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) * 1e-6, u.ru_minflt,
          u.ru_majflt};
}

Usage minus(const Usage& a, const Usage& b) {
  return {a.cpu_s - b.cpu_s, a.system_cpu_s - b.system_cpu_s, a.minor_faults - b.minor_faults,
          a.major_faults - b.major_faults};
}

// CPU seconds every process on the machine has used (all CPUs), from /proc/stat's first line.
double machine_busy_s() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return static_cast<double>(user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

double time_once(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  return seconds_since(t0);
}

TimedSample time_after_window(const std::function<void()>& fn, double window_s, double typical_run_s, unsigned cpus) {
  TimedSample out;
  const auto window_start = Clock::now();
  const double busy0 = machine_busy_s();
  const Usage own0 = own_usage();
  // Fill the window so that it reaches window_s with the timed run, judged by the runs' own pace.
  for (double run_s = std::max(typical_run_s, 0.0); seconds_since(window_start) + run_s < window_s; ++out.untimed_runs)
    run_s = time_once(fn);
  const Usage before = own_usage();
  out.seconds = time_once(fn);
  const Usage after = own_usage();
  out.used = minus(after, before);
  out.window_s = seconds_since(window_start);
  const double foreign_s = std::max(0.0, (machine_busy_s() - busy0) - minus(after, own0).cpu_s);
  // The machine's busy time comes in scheduler ticks (10 ms), so a short window on a saturated machine can count
  // more than all of its CPUs; a share is at most all of them.
  out.foreign_cpu_share = std::min(1.0, foreign_s / (out.window_s * std::max(cpus, 1u)));
  return out;
}

double core_round_trip_ns(int cpu_a, int cpu_b, int rounds) {
  alignas(64) std::atomic<int> flag{0};
  std::atomic<bool> pinned_b{true};
  auto pin = [](int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
  };
  std::thread answer([&] {
    pinned_b = pin(cpu_b);
    // Odd values are the question, even ones the answer; a failed pin still answers, so the asker never hangs.
    for (int i = 0; i < rounds; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  double ns = -1;
  std::thread ask([&] {
    const bool pinned_a = pin(cpu_a);
    const auto t0 = Clock::now();
    for (int i = 0; i < rounds; ++i) {
      flag.store(2 * i + 1, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    if (pinned_a) ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / std::max(rounds, 1);
  });
  ask.join();
  answer.join();
  return pinned_b ? ns : -1;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  return out;
}

double widest_round_trip_ns(int threads) {
  const auto cpus = allowed_cpus();
  const int n = std::min<int>(threads, static_cast<int>(cpus.size()));
  if (n < 2) return 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  double widest = 0;
  for (int k = 1; k < n; ++k) widest = std::max(widest, core_round_trip_ns(cpus[0], cpus[static_cast<size_t>(k)], 20000));
  return widest;
}

double wait_for_shared_cache(int threads, double max_ns, double max_wait_s) {
  const auto start = Clock::now();
  double ns = widest_round_trip_ns(threads);
  while (ns > max_ns && seconds_since(start) < max_wait_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ns = widest_round_trip_ns(threads);
  }
  return ns;
}

}  // namespace p2psim::models
