// Timing one run of a kernel on a shared machine, with what it used and what other processes took meanwhile.
// No LibTorch here: `p2psim calibrate` passes its kernels in as functions.
#pragma once
#include <functional>
#include <vector>

namespace p2psim::models {

/// This process's CPU seconds (user + system, all threads) and page faults.
struct Usage {
  double cpu_s = 0, system_cpu_s = 0;
  long long minor_faults = 0, major_faults = 0;
};

struct TimedSample {
  double seconds = 0;            // wall time of the timed run
  double foreign_cpu_share = 0;  // share of all CPUs other processes used during the window that ended with it
  double window_s = 0;           // length of that window: the untimed runs before the sample, and the sample
  int untimed_runs = 0;          // runs of the window before the timed one
  Usage used;                    // what this process used during the timed run alone
  double core_round_trip_ns = 0;  // multi-thread samples: the widest round trip between their CPUs, 0 otherwise
};

/// Wall time of one call of `fn`, steady clock.
double time_once(const std::function<void()>& fn);

/// Times one run of `fn` at the end of a window of at least `window_s`: untimed runs fill the window first
/// (none when one run already lasts that long). Other processes' CPU use is judged over the whole window,
/// because /proc/stat counts 10 ms ticks and cannot judge a sub-millisecond run by itself: a short step's
/// sample thus comes from a stretch of time in which nothing else ran, instead of being taken unjudged.
/// `typical_run_s` (a run's time measured before) sizes the window; `cpus` is the machine's logical CPUs.
TimedSample time_after_window(const std::function<void()>& fn, double window_s, double typical_run_s, unsigned cpus);

/// Nanoseconds for a cache line to go from CPU `cpu_a` to `cpu_b` and back: two threads pinned to them hand an
/// atomic flag to each other `rounds` times. Two vCPUs that share a last-level cache answer in tens of ns; vCPUs a
/// host has placed on different chiplets or sockets, in hundreds (calibration/README.md: 70-82 ns and about
/// 360 ns on the calibration VM, whose host moves its two vCPUs between the two from minute to minute). -1 when
/// a thread cannot be pinned.
double core_round_trip_ns(int cpu_a, int cpu_b, int rounds);

/// The CPUs this process may run on (its affinity mask), ascending.
std::vector<int> allowed_cpus();

/// Before and after a sample of `threads` threads: the widest round trip between the first allowed CPU and each
/// of the next threads - 1 (the CPUs such a sample runs on when the machine has no more than it needs), after
/// 10 ms of sleep, so that the kernel's thread pool has stopped spinning and does not share a probed CPU. 0
/// with fewer than 2 threads or CPUs.
double widest_round_trip_ns(int threads);

/// Probes widest_round_trip_ns(threads) every half second until it is at most `max_ns` or `max_wait_s` have
/// passed; returns the last probe. A VM's host keeps its vCPUs apart for minutes at a time, longer than a few
/// immediate attempts at a sample span.
double wait_for_shared_cache(int threads, double max_ns, double max_wait_s);

}  // namespace p2psim::models
