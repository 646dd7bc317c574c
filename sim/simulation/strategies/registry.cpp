// The one place strategies are registered: a new design adds its factory's declaration and one table row.
#include <fmt/core.h>

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

namespace {
// How a <system> moves objects, where it says (else as the design does by default): read here for every design,
// and kept from the design's own parameters. The bounds are the storage service's (the profile's part and object
// sizes) and a sane thread count.
TransferConfig read_transfers(const SystemSpec& system, const Scenario& s, TransferConfig t) {
  StrategyParams params(system);
  constexpr double kMiB = 1024.0 * 1024.0;
  t.max_streams = static_cast<int>(params.integer("storage_streams", 1, 64, t.max_streams));
  const auto& storage = s.profile.storage;
  t.part_bytes =
      params.number("storage_part_mb", storage.part_min_bytes / kMiB, storage.part_max_bytes / kMiB, t.part_bytes / kMiB) *
      kMiB;
  t.threshold_bytes = params.number("storage_threshold_mb", storage.part_min_bytes / kMiB,
                                    storage.object_max_bytes / kMiB, t.threshold_bytes / kMiB) *
                      kMiB;
  // The defaults (boto3's 8 MiB) are checked too: a service whose parts cannot be 8 MiB needs the system to say.
  if (t.part_bytes < storage.part_min_bytes || t.part_bytes > storage.part_max_bytes)
    throw params.error("storage_part_mb",
                       fmt::format("the default part of {} MiB is outside the storage service's parts ({} to {} "
                                   "bytes, the profile's object_storage/@part_min_bytes and @part_max_bytes): set "
                                   "storage_part_mb", t.part_bytes / kMiB, storage.part_min_bytes, storage.part_max_bytes));
  t.prefixes = static_cast<int>(params.integer("storage_prefixes", 1, 1000000, t.prefixes));
  t.size_from_first_part =
      params.choice("storage_size_probe", {"head", "first_part"}, t.size_from_first_part ? "first_part" : "head") ==
      "first_part";
  std::vector<std::string> clients;
  for (const auto& [name, cost] : s.profile.functions.storage_client_s_per_byte_on_reference_cpu) clients.push_back(name);
  t.client = params.choice("storage_client", clients, t.client_or_default());
  return t;
}
}  // namespace

std::unique_ptr<Strategy> make_strategy(const SystemSpec& system, const Scenario& s) {
  SystemSpec own = system;  // the design's own parameters
  for (const char* shared : {"storage_streams", "storage_part_mb", "storage_threshold_mb", "storage_prefixes", "storage_client",
                             "storage_size_probe", "model_fetch"})
    own.params.erase(shared);
  for (const auto& [name, factory] : kStrategies)
    if (name == system.strategy) {
      auto strategy = factory(own, s);
      strategy->transfers_ = read_transfers(system, s, strategy->default_transfers());
      StrategyParams shared(system);
      strategy->functions_fetch_model_ = shared.choice("model_fetch", {"storage", "none"}, "storage") == "storage";
      return strategy;
    }
  std::string known;
  for (const auto& name : strategy_names()) known += (known.empty() ? "" : ", ") + name;
  throw StrategyParams(system).error("strategy", "unknown strategy '" + system.strategy + "' (known: " + known + ")");
}

}  // namespace p2psim::simulation
