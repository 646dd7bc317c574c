#include "replicate_bands.hpp"

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

}  // namespace p2psim
