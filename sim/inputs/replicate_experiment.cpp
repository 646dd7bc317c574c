#include "replicate_experiment.hpp"

#include <fmt/core.h>

#include "spread.hpp"

namespace p2psim {

Experiment replicate_experiment(const Experiment& e, const CloudProfile& nominal, int r) {
  Experiment x = e;
  x.seed = replicate_seed(e.seed, r);
  for (const auto& spread : nominal.spreads)
    x.overrides.push_back({spread.select, fmt::format("{:.17g}", spread.draw(e.seed, r)), spread.file, spread.line});
  return x;
}

}  // namespace p2psim
