// The one place strategies are registered: a new design adds its factory's declaration and one table row.
#include <utility>

#include "params.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {

std::unique_ptr<Strategy> make_p2p_all_to_all(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_ring_allreduce(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_serverless_sharded(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_serverless_tree(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_parameter_server(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_spirt(const SystemSpec&, const Scenario&);
std::unique_ptr<Strategy> make_lambdaml(const SystemSpec&, const Scenario&);

namespace {
const std::vector<std::pair<std::string, StrategyFactory>> kStrategies = {
    {"p2p_all_to_all", make_p2p_all_to_all},
    {"ring_allreduce", make_ring_allreduce},
    {"serverless_sharded", make_serverless_sharded},
    {"serverless_tree", make_serverless_tree},
    {"parameter_server", make_parameter_server},
    {"spirt", make_spirt},
    {"lambdaml", make_lambdaml},
};
}  // namespace

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : kStrategies) names.push_back(name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const SystemSpec& system, const Scenario& s) {
  for (const auto& [name, factory] : kStrategies)
    if (name == system.strategy) return factory(system, s);
  std::string known;
  for (const auto& name : strategy_names()) known += (known.empty() ? "" : ", ") + name;
  throw StrategyParams(system).error("strategy", "unknown strategy '" + system.strategy + "' (known: " + known + ")");
}

}  // namespace p2psim::simulation
