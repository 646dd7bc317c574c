// What one run may ask for: bounds checked before anything is simulated, so that an input that would never
// finish, or exhaust the machine, gets a clear error with an estimate instead (docs/limits.md).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace p2psim {

struct Scenario;

namespace limits {

constexpr double kMaxSimulatedSeconds = 365.0 * 24 * 3600;  // a run stops, infeasible, past a simulated year
constexpr double kMaxSlowdown = 1000;                       // a straggler at most 1,000 times slower
constexpr long long kMaxParameters = 1'000'000'000'000;     // a 4 TB float32 gradient
// Memory per trace record (its row in the child and its bytes on the way to the parent, or the parent's row and
// its CSV line, whichever process peaks): the slope of peak RSS over trace rows, once neither side copies a
// whole result (2026-12-04): the all-to-all through functions of tests/test_hardening.cpp, 16 m5.large peers x
// 600, 1,200 and 2,400 iterations, 154 B each; a ring beside a sharded system, 16 peers x 10,000 and 20,000
// iterations, 106 B. (Before: 278 B on the paper's VGG-11, 2026-12-01, when the parent held two copies of the
// trace.csv text and of the child's reply.) Rounded up: an estimate that must stay above the peak, and within twice it.
constexpr double kBytesPerTraceRecord = 180;
// Memory per gradient delivery (and the staleness beside it): the all-to-all at 1,024 t2.large peers x 10
// iterations peaked at 813 MB with 10.5 M deliveries and 133 k trace rows: 68 B each once the base and the rows
// are taken off (2026-12-01), rounded up by half.
constexpr double kBytesPerDelivery = 100;
// Memory per route the platform declares (two per connection): spirt's platform at 2,000 peers, 8 M routes,
// 1.19 GB, about 150 B each (2026-12-03), rounded up by half.
constexpr double kBytesPerRoute = 225;
// Memory per actor (its host, links and state): a ring's child process at 8,000 peers 124 MB, at 32,000 peers
// 473 MB, about 14.5 KB per peer (2026-12-03), rounded up by half.
constexpr double kBytesPerActor = 22e3;
// The process, the profile and the calibration: 35.1-35.3 MB peak for a 2-peer VGG-11 ring of one iteration
// (3 runs, 2026-12-03), rounded up by a third.
constexpr double kBaseBytes = 48e6;
// Memory maps: a simulation process holds about 190 of its own and 2 per actor (its stack, split by the guard
// page): 2,191 maps at 1,000 ring peers, 64,190 at 32,000; 33,000 aborted at the default limit of 65,530
// (2026-12-03).
constexpr double kMapsOfProcess = 200;
constexpr double kMapsPerActor = 2;

/// The memory this machine can still give (MemAvailable), in bytes; 0 when unknown.
inline double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      double kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  return 0;
}

}  // namespace limits
}  // namespace p2psim
