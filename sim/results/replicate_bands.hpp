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

}  // namespace p2psim
