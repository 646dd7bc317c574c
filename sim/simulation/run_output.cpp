#include "run_output.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace p2psim {
namespace {

// Plain records go as one binary value, their bytes as they are in memory: the output travels only from a
// simulation's process to its parent, on one machine. A 1,024-peer all-to-all's 21 M deliveries as JSON arrays
// took 2 GB and tens of seconds to build and parse.
static_assert(sizeof(PhaseRecord) == 4 * sizeof(int) + 2 * sizeof(double) && sizeof(Delivery) == 3 * sizeof(int),
              "no padding: the bytes sent are all defined, so equal outputs send equal bytes");

// A function run as bytes: its architecture an index into the output's list of them.
struct FunctionRunRecord {
  int memory_mb = 0, arch = 0;
  double init_s = 0, run_s = 0;
};
// An update as bytes: its gradients follow the previous updates' in one list.
struct UpdateRecord {
  int peer = 0, iteration = 0;
  double time_s = 0;
  long long function_runs = 0, workflow_transitions = 0, storage_gets = 0, storage_puts = 0;
  int whole_iteration = 0, gradients = 0;
};
static_assert(sizeof(FunctionRunRecord) == 2 * sizeof(int) + 2 * sizeof(double) &&
                  sizeof(UpdateRecord) == 4 * sizeof(int) + sizeof(double) + 4 * sizeof(long long) &&
                  sizeof(GradientVersion) == 2 * sizeof(int),
              "no padding either");

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
  // One record per invocation and per update, as bytes too: as JSON arrays they were most of the time a sweep
  // spent storing and reading back its memo's outputs (bench/README.md, "A ninth pass").
  std::vector<std::string> arches;
  std::vector<FunctionRunRecord> runs;
  runs.reserve(l.function_runs.size());
  for (const auto& f : l.function_runs) {
    auto arch = std::find(arches.begin(), arches.end(), f.arch);
    if (arch == arches.end()) arch = arches.insert(arches.end(), f.arch);
    runs.push_back({f.memory_mb, static_cast<int>(arch - arches.begin()), f.init_s, f.run_s});
  }
  nlohmann::json instances = nlohmann::json::array();
  for (const auto& i : l.instances) instances.push_back({i.type, i.uptime_s});
  j["transport"] = r.transport;
  j["ledger"] = {{"function_run_records", bytes_of(runs)},
                 {"function_arches", arches},
                 {"workflow_transitions", l.workflow_transitions},
                 {"storage_gets", l.storage_gets},
                 {"storage_puts", l.storage_puts},
                 {"instances", instances},
                 {"broker_uptime_s", l.broker_uptime_s},
                 {"surplus_credits", l.surplus_credits}};
  j["trace"] = bytes_of(r.trace);
  j["deliveries"] = bytes_of(r.deliveries);
  std::vector<UpdateRecord> updates;
  std::vector<GradientVersion> gradients;  // every update's, one after another
  updates.reserve(r.updates.size());
  for (const auto& u : r.updates) {
    updates.push_back({u.peer, u.iteration, u.time_s, u.usage.function_runs, u.usage.workflow_transitions,
                       u.usage.storage_gets, u.usage.storage_puts, u.whole_iteration ? 1 : 0,
                       static_cast<int>(u.gradients.size())});
    gradients.insert(gradients.end(), u.gradients.begin(), u.gradients.end());
  }
  j["update_records"] = bytes_of(updates);
  j["update_gradients"] = bytes_of(gradients);
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
  const auto arches = l.at("function_arches").get<std::vector<std::string>>();
  const auto runs = records_of<FunctionRunRecord>(l.at("function_run_records"));
  r.ledger.function_runs.reserve(runs.size());
  for (const auto& f : runs) r.ledger.function_runs.push_back({f.memory_mb, arches.at(f.arch), f.init_s, f.run_s});
  r.ledger.workflow_transitions = l.at("workflow_transitions");
  r.ledger.storage_gets = l.at("storage_gets");
  r.ledger.storage_puts = l.at("storage_puts");
  for (const auto& i : l.at("instances")) r.ledger.instances.push_back({i[0], i[1]});
  r.ledger.broker_uptime_s = l.at("broker_uptime_s");
  r.ledger.surplus_credits = l.at("surplus_credits");
  r.trace = records_of<PhaseRecord>(j.at("trace"));
  r.deliveries = records_of<Delivery>(j.at("deliveries"));
  const auto gradients = records_of<GradientVersion>(j.at("update_gradients"));
  size_t next_gradient = 0;
  for (const auto& u : records_of<UpdateRecord>(j.at("update_records"))) {
    if (u.gradients < 0 || next_gradient + static_cast<size_t>(u.gradients) > gradients.size())
      throw std::runtime_error("a run's output lists more gradients than it holds");
    const auto first = gradients.begin() + static_cast<std::ptrdiff_t>(next_gradient);
    next_gradient += static_cast<size_t>(u.gradients);
    r.updates.push_back({u.peer, u.iteration, u.time_s,
                         {u.function_runs, u.workflow_transitions, u.storage_gets, u.storage_puts},
                         u.whole_iteration != 0, {first, first + u.gradients}});
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
