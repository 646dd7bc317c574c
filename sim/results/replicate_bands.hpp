// What replicates of a run say (app/replicates.hpp runs them): per system, the 10th, 50th and 90th percentiles of
// its time and cost over the replicates in which it could train.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace p2psim {

/// At most this many replicates per run (docs/limits.md): each is a whole simulation of every system.
constexpr int kMaxReplicates = 1000;

/// The 10th, 50th and 90th percentiles of a quantity over the replicates.
struct Band {
  double p10 = 0, p50 = 0, p90 = 0;
};

/// What the replicates say of one system: its bands over the replicates in which it could train.
struct SystemReplicates {
  std::string name;
  int feasible = 0;                    // replicates in which it finished (the bands are over these)
  std::map<std::string, Band> bands;   // total_s, total_usd, gradient_s_per_iteration, iteration_s
};

struct Replicates {
  int n = 0;
  std::uint64_t seed = 0;
  std::vector<SystemReplicates> systems;  // in the experiment's order
  /// The system's bands; nullptr when it has none.
  const SystemReplicates* of(const std::string& system) const;
};

/// The bands of `quantities` over values per replicate (in replicate order).
Band band_of(const std::vector<double>& values);

/// "p10/p50/p90" with the decimals that give the median `significant` digits, the same for all three
/// (0.1770/0.1799/0.1801, not 0.177/0.18/0.18); under a thousandth in scientific notation (1.234e-04/...), its digits
/// rather than its zeros.
std::string band_text(const Band& b, int significant);

}  // namespace p2psim
