#include "run_output.hpp"

#include <cstring>
#include <type_traits>

namespace p2psim {
namespace {

// Plain records go as one binary value, their bytes as they are in memory: the output travels only from a
// simulation's process to its parent, on one machine. A 1,024-peer all-to-all's 21 M deliveries as JSON arrays
// took 2 GB and tens of seconds to build and parse.
static_assert(sizeof(PhaseRecord) == 4 * sizeof(int) + 2 * sizeof(double) && sizeof(Delivery) == 3 * sizeof(int),
              "no padding: the bytes sent are all defined, so equal outputs send equal bytes");

template <class T>
nlohmann::json bytes_of(const std::vector<T>& records) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* first = reinterpret_cast<const std::uint8_t*>(records.data());
  return nlohmann::json::binary(std::vector<std::uint8_t>(first, first + records.size() * sizeof(T)));
}

template <class T>
std::vector<T> records_of(const nlohmann::json& j) {
  const auto& bytes = j.get_binary();
  std::vector<T> records(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(records.data(), bytes.data(), records.size() * sizeof(T));
  return records;
}

}  // namespace

const char* to_string(Phase p) {
  switch (p) {
    case Phase::DataFetch: return "data_fetch";
    case Phase::ColdStart: return "cold_start";
    case Phase::Orchestration: return "orchestration";
    case Phase::Compute: return "compute";
    case Phase::FunctionUpload: return "function_upload";
    case Phase::PollingWait: return "polling_wait";
    case Phase::Collect: return "collect";
    case Phase::LocalAverage: return "local_average";
    case Phase::Send: return "send";
    case Phase::Receive: return "receive";
    case Phase::AggregateUpdate: return "aggregate_update";
    case Phase::Barrier: return "barrier";
    case Phase::OutOfMemory: return "out_of_memory";
    case Phase::FunctionFailure: return "function_failure";
    case Phase::Down: return "down";
    case Phase::ReduceScatter: return "reduce_scatter";
    case Phase::AllGather: return "all_gather";
    case Phase::Reduce: return "reduce";
    case Phase::Checkpoint: return "checkpoint";
  }
  return "?";
}

nlohmann::json to_json(const RunOutput& r) {
  nlohmann::json j;
  const auto& l = r.ledger;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& f : l.function_runs) runs.push_back({f.memory_mb, f.arch, f.init_s, f.run_s});
  nlohmann::json instances = nlohmann::json::array();
  for (const auto& i : l.instances) instances.push_back({i.type, i.uptime_s});
  j["transport"] = r.transport;
  j["ledger"] = {{"function_runs", runs},
                 {"workflow_transitions", l.workflow_transitions},
                 {"storage_gets", l.storage_gets},
                 {"storage_puts", l.storage_puts},
                 {"instances", instances},
                 {"broker_uptime_s", l.broker_uptime_s},
                 {"surplus_credits", l.surplus_credits}};
  j["trace"] = bytes_of(r.trace);
  j["deliveries"] = bytes_of(r.deliveries);
  nlohmann::json updates = nlohmann::json::array();
  for (const auto& u : r.updates) {
    nlohmann::json gradients = nlohmann::json::array();
    for (const auto& g : u.gradients) gradients.push_back({g.producer, g.iteration});
    updates.push_back({u.peer, u.iteration, u.time_s,
                       {u.usage.function_runs, u.usage.workflow_transitions, u.usage.storage_gets,
                        u.usage.storage_puts},
                       u.whole_iteration, std::move(gradients)});
  }
  j["updates"] = std::move(updates);
  j["schedule_unsupported"] = r.schedule_unsupported;
  j["peer_end_s"] = r.peer_end_s;
  j["iterations_done"] = r.iterations_done;
  j["cold_starts"] = r.cold_starts;
  j["warm_starts"] = r.warm_starts;
  j["max_containers"] = r.max_containers;
  j["failure"] = r.failure;
  j["credits_exhausted_at_s"] = r.credits_exhausted_at_s;
  j["staleness"] = bytes_of(r.staleness);
  j["failure_detection_wait_s"] = r.failure_detection_wait_s;
  j["void_storage_link_bound"] = r.void_storage_link_bound;
  return j;
}

RunOutput run_output_from_json(const nlohmann::json& j) {
  RunOutput r;
  const auto& l = j.at("ledger");
  r.transport = j.at("transport");
  for (const auto& f : l.at("function_runs")) r.ledger.function_runs.push_back({f[0], f[1], f[2], f[3]});
  r.ledger.workflow_transitions = l.at("workflow_transitions");
  r.ledger.storage_gets = l.at("storage_gets");
  r.ledger.storage_puts = l.at("storage_puts");
  for (const auto& i : l.at("instances")) r.ledger.instances.push_back({i[0], i[1]});
  r.ledger.broker_uptime_s = l.at("broker_uptime_s");
  r.ledger.surplus_credits = l.at("surplus_credits");
  r.trace = records_of<PhaseRecord>(j.at("trace"));
  r.deliveries = records_of<Delivery>(j.at("deliveries"));
  for (const auto& u : j.at("updates")) {
    Update update{u[0], u[1], u[2], {u[3][0], u[3][1], u[3][2], u[3][3]}, u[4], {}};
    for (const auto& g : u[5]) update.gradients.push_back({g[0], g[1]});
    r.updates.push_back(std::move(update));
  }
  r.schedule_unsupported = j.at("schedule_unsupported");
  r.peer_end_s = j.at("peer_end_s").get<std::vector<double>>();
  r.iterations_done = j.at("iterations_done").get<std::vector<int>>();
  r.cold_starts = j.at("cold_starts");
  r.warm_starts = j.at("warm_starts");
  r.max_containers = j.at("max_containers");
  r.failure = j.at("failure");
  r.credits_exhausted_at_s = j.at("credits_exhausted_at_s").get<std::vector<double>>();
  r.staleness = records_of<int>(j.at("staleness"));
  r.failure_detection_wait_s = j.at("failure_detection_wait_s");
  r.void_storage_link_bound = j.at("void_storage_link_bound");
  return r;
}

}  // namespace p2psim
