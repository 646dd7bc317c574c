#include "run_output.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace p2psim {
namespace {

// The output as bytes, for one build on one machine: a simulation's process sending it to its parent, a sweep's
// memo storing it. Plain records go as their bytes in memory, read straight into their vectors: a 1,024-peer
// all-to-all's 21 M deliveries as JSON arrays took 2 GB and tens of seconds, and the paper grid's function runs
// and updates as CBOR arrays were 9 % of its CPU (bench/README.md, "A ninth pass").
constexpr std::string_view kMagic = "p2psim run output 5\n";  // another layout: another string, never misread

static_assert(sizeof(PhaseRecord) == 4 * sizeof(int) + 2 * sizeof(double) && sizeof(Delivery) == 3 * sizeof(int),
              "no padding: the bytes sent are all defined, so equal outputs send equal bytes");

// A function run as bytes: its architecture an index into the output's list of them.
struct FunctionRunRecord {
  int memory_mb = 0, arch = 0;
  double init_s = 0, billed_init_s = 0, run_s = 0;
};
// An update as bytes: its gradients follow the previous updates' in one list.
struct UpdateRecord {
  int peer = 0, iteration = 0;
  double time_s = 0;
  long long function_runs = 0, workflow_transitions = 0, storage_gets = 0, storage_puts = 0;
  int whole_iteration = 0, gradients = 0;
};
struct InstanceRecord {
  int type = 0, unused = 0;  // type: an index into the output's list of strings
  double uptime_s = 0;
};
static_assert(sizeof(FunctionRunRecord) == 2 * sizeof(int) + 3 * sizeof(double) &&
                  sizeof(UpdateRecord) == 4 * sizeof(int) + sizeof(double) + 4 * sizeof(long long) &&
                  sizeof(InstanceRecord) == 2 * sizeof(int) + sizeof(double) &&
                  sizeof(GradientVersion) == 2 * sizeof(int),
              "no padding either");

class Writer {
 public:
  explicit Writer(size_t reserve) { bytes_.reserve(reserve); }
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <class T>
  void records(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    value<std::uint64_t>(v.size());
    bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void text(const std::string& s) {
    value<std::uint64_t>(s.size());
    bytes_ += s;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  template <class T>
  T value() {
    T v;
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  template <class T>
  std::vector<T> records() {
    const auto n = value<std::uint64_t>();
    if (n > rest_.size() / sizeof(T)) throw std::runtime_error("a run's output is cut short");
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), take(n * sizeof(T)).data(), n * sizeof(T));
    return v;
  }
  std::string text() {
    const auto n = value<std::uint64_t>();
    return std::string(take(n));
  }
  std::string_view take(size_t n) {
    if (n > rest_.size()) throw std::runtime_error("a run's output is cut short");
    const auto taken = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return taken;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// Strings by index, in the order first seen.
int index_of(std::vector<std::string>& strings, const std::string& s) {
  auto it = std::find(strings.begin(), strings.end(), s);
  if (it == strings.end()) it = strings.insert(strings.end(), s);
  return static_cast<int>(it - strings.begin());
}

}  // namespace

const char* to_string(Phase p) {
  static const auto names = [] {  // by the enum's value
    std::array<const char*, kPhaseCount> by_value{};
    for (const auto& info : kPhases) by_value[static_cast<size_t>(info.phase)] = info.name;
    return by_value;
  }();
  return names[static_cast<size_t>(p)];
}

std::string to_bytes(const RunOutput& r) {
  const auto& l = r.ledger;
  std::vector<std::string> strings;
  std::vector<FunctionRunRecord> runs;
  runs.reserve(l.function_runs.size());
  for (const auto& f : l.function_runs) runs.push_back({f.memory_mb, index_of(strings, f.arch), f.init_s, f.billed_init_s, f.run_s});
  std::vector<InstanceRecord> instances;
  for (const auto& i : l.instances) instances.push_back({index_of(strings, i.type), 0, i.uptime_s});
  std::vector<UpdateRecord> updates;
  std::vector<GradientVersion> gradients;  // every update's, one after another
  updates.reserve(r.updates.size());
  for (const auto& u : r.updates) {
    updates.push_back({u.peer, u.iteration, u.time_s, u.usage.function_runs, u.usage.workflow_transitions,
                       u.usage.storage_gets, u.usage.storage_puts, u.whole_iteration ? 1 : 0,
                       static_cast<int>(u.gradients.size())});
    gradients.insert(gradients.end(), u.gradients.begin(), u.gradients.end());
  }
  Writer w(kMagic.size() + 1024 + r.trace.size() * sizeof(PhaseRecord) + r.deliveries.size() * sizeof(Delivery) +
           runs.size() * sizeof(FunctionRunRecord) + updates.size() * sizeof(UpdateRecord) +
           gradients.size() * sizeof(GradientVersion));
  w.text(std::string(kMagic));
  w.value<std::uint64_t>(strings.size());
  for (const auto& s : strings) w.text(s);
  w.records(runs);
  w.value(l.workflow_transitions);
  w.value(l.storage_gets);
  w.value(l.storage_puts);
  w.value(l.function_storage_requests);
  w.value(l.storage_throttled_requests);
  w.value(l.storage_throttle_wait_s);
  w.records(instances);
  w.value(l.broker_uptime_s);
  w.value(l.surplus_credits);
  w.text(r.transport);
  w.value(r.mechanisms);
  w.records(r.trace);
  w.records(r.deliveries);
  w.records(updates);
  w.records(gradients);
  w.text(r.schedule_unsupported);
  w.records(r.peer_end_s);
  w.records(r.iterations_done);
  w.value(r.participation);
  w.value(r.cold_starts);
  w.value(r.warm_starts);
  w.value(r.max_containers);
  w.text(r.failure);
  w.value(r.failure_detection_wait_s);
  w.records(r.staleness);
  w.records(r.credits_exhausted_at_s);
  w.value<char>(r.participants_computed ? 1 : 0);
  w.value<char>(r.void_storage_link_bound ? 1 : 0);
  return w.take();
}

RunOutput run_output_from_bytes(std::string_view bytes) {
  Reader in(bytes);
  if (in.text() != kMagic) throw std::runtime_error("not a run's output of this build");
  const auto string_count = in.value<std::uint64_t>();
  if (string_count > bytes.size()) throw std::runtime_error("a run's output is cut short");
  std::vector<std::string> strings(string_count);
  for (auto& s : strings) s = in.text();
  auto string_at = [&](int k) -> const std::string& {
    if (k < 0 || static_cast<size_t>(k) >= strings.size()) throw std::runtime_error("a run's output names no such string");
    return strings[static_cast<size_t>(k)];
  };
  RunOutput r;
  auto& l = r.ledger;
  const auto runs = in.records<FunctionRunRecord>();
  l.function_runs.reserve(runs.size());
  for (const auto& f : runs) l.function_runs.push_back({f.memory_mb, string_at(f.arch), f.init_s, f.billed_init_s, f.run_s});
  l.workflow_transitions = in.value<long long>();
  l.storage_gets = in.value<long long>();
  l.storage_puts = in.value<long long>();
  l.function_storage_requests = in.value<long long>();
  l.storage_throttled_requests = in.value<long long>();
  l.storage_throttle_wait_s = in.value<double>();
  for (const auto& i : in.records<InstanceRecord>()) l.instances.push_back({string_at(i.type), i.uptime_s});
  l.broker_uptime_s = in.value<double>();
  l.surplus_credits = in.value<double>();
  r.transport = in.text();
  r.mechanisms = in.value<MechanismSet>();
  r.trace = in.records<PhaseRecord>();
  r.deliveries = in.records<Delivery>();
  const auto updates = in.records<UpdateRecord>();
  const auto gradients = in.records<GradientVersion>();
  size_t next_gradient = 0;
  r.updates.reserve(updates.size());
  for (const auto& u : updates) {
    if (u.gradients < 0 || next_gradient + static_cast<size_t>(u.gradients) > gradients.size())
      throw std::runtime_error("a run's output lists more gradients than it holds");
    const auto first = gradients.begin() + static_cast<std::ptrdiff_t>(next_gradient);
    next_gradient += static_cast<size_t>(u.gradients);
    r.updates.push_back({u.peer, u.iteration, u.time_s,
                         {u.function_runs, u.workflow_transitions, u.storage_gets, u.storage_puts},
                         u.whole_iteration != 0, {first, first + u.gradients}});
  }
  r.schedule_unsupported = in.text();
  r.peer_end_s = in.records<double>();
  r.iterations_done = in.records<int>();
  r.participation = in.value<double>();
  r.cold_starts = in.value<long long>();
  r.warm_starts = in.value<long long>();
  r.max_containers = in.value<int>();
  r.failure = in.text();
  r.failure_detection_wait_s = in.value<double>();
  r.staleness = in.records<int>();
  r.credits_exhausted_at_s = in.records<double>();
  r.participants_computed = in.value<char>() != 0;
  r.void_storage_link_bound = in.value<char>() != 0;
  if (!in.done()) throw std::runtime_error("a run's output has bytes after its end");
  return r;
}

}  // namespace p2psim
