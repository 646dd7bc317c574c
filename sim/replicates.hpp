// Replicates of a run: the experiment simulated again N times, each time with every constant that carries a
// spread (spread.hpp) drawn from it and with a seed of its own for the run's random draws (steps, cold starts,
// storage latencies), so that a prediction comes with the band a real run could fall in. Deterministic: the
// same experiment and seed give the same replicates.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "scenario.hpp"

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

/// Replicate `r` of `e` (whose nominal profile is `nominal`): its constants with spreads drawn, as profile
/// overrides after the experiment's own, and its seed.
Experiment replicate_experiment(const Experiment& e, const CloudProfile& nominal, int r);

/// The bands of `quantities` over values per replicate (in replicate order).
Band band_of(const std::vector<double>& values);

/// Simulates `n` replicates of `e` (every system, each in its own process) and returns the bands.
Replicates run_replicates(const Experiment& e, const CloudProfile& nominal, int n);

}  // namespace p2psim
