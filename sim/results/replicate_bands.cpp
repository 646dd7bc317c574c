#include "replicate_bands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "../inputs/spread.hpp"

namespace p2psim {

const SystemReplicates* Replicates::of(const std::string& system) const {
  for (const auto& s : systems)
    if (s.name == system) return &s;
  return nullptr;
}

Band band_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  return {quantile(values, 0.1), quantile(values, 0.5), quantile(values, 0.9)};
}

std::string band_text(const Band& b, int significant) {
  const int magnitude = b.p50 > 0 ? static_cast<int>(std::floor(std::log10(b.p50))) : 0;
  if (magnitude < -3)
    return fmt::format("{:.{}e}/{:.{}e}/{:.{}e}", b.p10, significant - 1, b.p50, significant - 1, b.p90,
                       significant - 1);
  const int decimals = std::clamp(significant - 1 - magnitude, 0, 6);
  return fmt::format("{:.{}f}/{:.{}f}/{:.{}f}", b.p10, decimals, b.p50, decimals, b.p90, decimals);
}

}  // namespace p2psim
