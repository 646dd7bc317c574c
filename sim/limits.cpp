#include "limits.hpp"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "scenario.hpp"

namespace p2psim::limits {

// Systems run one at a time: the largest one counts.
double estimated_trace_records(const Scenario& s) {
  // Per peer and iteration: its own phases (about 8) and each function's (about 5).
  const double invocations = static_cast<double>(s.invocations.size());
  return static_cast<double>(s.experiment.peers) * s.experiment.workload.iterations * (8 + 5 * invocations);
}

double estimated_deliveries(const Scenario& s) {
  // The all-to-all records one delivery from every peer to every other, every iteration.
  for (const auto& system : s.experiment.systems)
    if (system.strategy == "p2p_all_to_all") {
      const double peers = s.experiment.peers;
      return peers * peers * s.experiment.workload.iterations;
    }
  return 0;
}

double estimated_peak_bytes(const Scenario& s) {
  return kBaseBytes + estimated_trace_records(s) * kBytesPerTraceRecord + estimated_deliveries(s) * kBytesPerDelivery;
}

double available_memory_bytes() {
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

void check_fits_in_memory(const Scenario& s) {
  const double need = estimated_peak_bytes(s), have = available_memory_bytes();
  if (have <= 0 || need <= 0.8 * have) return;
  throw s.experiment.error(
      "workload", "iterations",
      fmt::format("{} peers x {} iterations would need about {:.1f} GB ({:.3g} trace records at about {:.0f} B "
                  "each, {:.3g} gradient deliveries at about {:.0f} B), more than 80 % of the {:.1f} GB this machine "
                  "has available: fewer peers or iterations, or a larger machine (docs/limits.md)",
                  s.experiment.peers, s.experiment.workload.iterations, need / 1e9, estimated_trace_records(s),
                  kBytesPerTraceRecord, estimated_deliveries(s), kBytesPerDelivery, have / 1e9));
}

}  // namespace p2psim::limits
