#include "spread.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace p2psim {
namespace {

// The standard normal quantile at 0.9: how many standard deviations a 10-90 band's half spans.
constexpr double kZ90 = 1.2815515655446004;

std::uint64_t hash_words(std::initializer_list<std::uint64_t> words, std::uint64_t seed) {
  std::uint64_t buffer[4];
  std::size_t n = 0;
  for (auto w : words) buffer[n++] = w;
  return XXH3_64bits_withSeed(buffer, n * sizeof buffer[0], seed);
}

double unit_open(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)

}  // namespace

double replicate_deviate(std::uint64_t seed, int replicate, const std::string& name) {
  const std::uint64_t key = XXH3_64bits_withSeed(name.data(), name.size(), seed);
  const std::uint64_t r = static_cast<std::uint64_t>(replicate);
  // Box-Muller on two draws of the constant's own stream.
  const double u1 = unit_open(hash_words({r, 1}, key)), u2 = unit_open(hash_words({r, 2}, key));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::uint64_t replicate_seed(std::uint64_t seed, int replicate) {
  return hash_words({0x7265706c69636174ULL /* "replicat" */, static_cast<std::uint64_t>(replicate)}, seed);
}

double Spread::at(double z) const {
  double v = nominal;
  if (kind == Kind::Band) {
    const double p = z < 0 ? p10 : p90;  // each side of the nominal value its own width
    if (p10 > 0 && nominal > 0)
      v = nominal * std::exp(z * std::log(p / nominal) / (z < 0 ? -kZ90 : kZ90));
    else
      v = nominal + z * (p - nominal) / (z < 0 ? -kZ90 : kZ90);
  } else if (sd > 0) {
    if (nominal > 0 && min >= 0) {  // lognormal with this mean and sd
      const double s2 = std::log1p((sd / nominal) * (sd / nominal));
      v = nominal * std::exp(-s2 / 2 + std::sqrt(s2) * z);
    } else {
      v = nominal + sd * z;
    }
  }
  return std::clamp(v, min, max);
}

double Spread::draw(std::uint64_t seed, int replicate) const {
  return at(replicate_deviate(seed, replicate, drawn_with.empty() ? select : drawn_with));
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw std::logic_error("quantile of no values");
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}

}  // namespace p2psim
