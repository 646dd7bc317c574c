#include "replicates.hpp"

#include "../inputs/replicate_experiment.hpp"
#include "../results/results.hpp"
#include "../simulation/simulate.hpp"

namespace p2psim {

Replicates run_replicates(const Experiment& e, const CloudProfile& nominal, int n, const app::RunOptions& o) {
  Replicates out;
  out.n = n;
  out.seed = e.seed;
  std::map<std::string, std::map<std::string, std::vector<double>>> values;  // system -> quantity -> per replicate
  for (int r = 0; r < n; ++r) {
    const Experiment x = replicate_experiment(e, nominal, r);
    const Scenario s = resolve_scenario(x);
    for (const auto& system : x.systems) {
      const SystemResult result = summarise(s, system, simulate_isolated(s, system, o.storage_sharing, o.exact_participants));
      if (!result.feasible()) continue;
      auto& v = values[system.name];
      v["total_s"].push_back(result.total_s);
      v["total_usd"].push_back(result.cost.total_usd());
      v["gradient_s_per_iteration"].push_back(result.gradient_s);
      v["iteration_s"].push_back(result.iteration_s);
    }
  }
  for (const auto& system : e.systems) {
    SystemReplicates sr;
    sr.name = system.name;
    const auto it = values.find(system.name);
    if (it != values.end()) {
      sr.feasible = static_cast<int>(it->second.at("total_s").size());
      for (const auto& [quantity, v] : it->second) sr.bands[quantity] = band_of(v);
    }
    out.systems.push_back(std::move(sr));
  }
  return out;
}

}  // namespace p2psim
