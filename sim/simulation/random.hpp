// The run's one random stream, seeded by the experiment. Draws are built from the generator's exact 64-bit
// output, so they are the same on every platform (unlike std::*_distribution).
#pragma once
#include <cmath>
#include <random>

namespace p2psim::simulation {

class Random {
 public:
  explicit Random(unsigned long long seed) : engine_(seed) {}
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Standard normal, by Box-Muller.
  double standard_normal() {
    const double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace p2psim::simulation
