// Gradient function invocations computed rather than simulated. An invocation touches state that others share
// at three instants only: when it takes a container (warm pools, slots, the concurrency limit), when its key
// reaches the broker (the broker's CPU, first come first served, shared with the peers' messages) and when it
// ends (its container back to the pool, its execution's branch count). Between them it is alone: its slot's NIC
// carries nothing but its own transfers to and from storage (sg::Platform::function_routes_private), so each
// takes SimGrid's time for its flows alone on that route (sg::private_flows_end_s), and its work is already a sleep. So one task
// per system keeps those three kinds of event in a queue ordered by time, then by the order they were made,
// sleeps to the next and handles it: no actor, stack or SimGrid activity per invocation (docs/architecture.md,
// "Scale": the function invocations' actors were most of the paper grid's page faults).
#pragma once
#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "../context.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {

/// How one attempt of a gradient invocation ends, once its data arrived `fetched_after_s` after its start: out
/// of memory part-way, a crash at a uniform point, the function timeout, or success (Phase::Compute) after
/// `run_for_s` of computing (reference seconds at the function's CPU share, before its speed factor).
struct AttemptPlan {
  double run_for_s = 0;
  Phase ending = Phase::Compute;
  std::string error;  // why the attempt failed; empty when it succeeded
};
AttemptPlan plan_attempt(Context& c, int peer, std::int64_t instance, int iteration, int k, int attempt,
                         double fetched_after_s);
/// Single-threaded work of `reference_s` on a function's CPU: time-sliced below one vCPU, one vCPU's above.
double function_one_thread_s(const Scenario& s, double reference_s);
/// A gradient function's serialisation of its gradient, in wall seconds on its CPU share.
double function_serialize_s(const Scenario& s);
/// Its deserialisation of the model it fetched, likewise.
double function_deserialize_model_s(const Scenario& s);
/// Whether `container` must fetch peer `peer`'s current model (of its `instance` and `iteration`) before it
/// computes: the system's functions fetch one and the container does not hold this one yet. Marks it held.
bool must_fetch_model(Context& c, const FunctionService::Container& container, int peer, std::int64_t instance,
                      int iteration);
/// The stream of first-byte latencies of a gradient invocation's storage requests (one per attempt).
Random::Stream gradient_request_draws(const Context& c, int peer, std::int64_t instance, int iteration, int k,
                                      int attempt);

/// Whether invocations are computed when they can be (true unless a test asks for the simulated reference).
void set_computed_invocations(bool enabled);

/// True when the slots' routes are private and every function container of the design either is an aggregator
/// (aggregator.hpp: an actor, whose transfers alone are computed) or a gradient invocation that is alone between
/// its three shared instants: the broker has no outage, no peer rejoins beside its old functions, and the
/// platform has a slot for every container that can be alive, under the concurrency limit (nothing waits). The
/// platform's slots are then virtual (sg::PlatformSpec::function_slots_virtual): no host,
/// NIC or route each, which was most of building a serverless platform.
bool invocations_computable(const Scenario& s, const PlatformNeeds& needs, const sg::PlatformSpec& spec);

class ComputedInvocations {
 public:
  explicit ComputedInvocations(Context& c) : c_(c) {}
  /// The Parallel state of `exec` began at `fan_out_s`: its `branches` invocations start at the workflow's
  /// branch start dates, as function_invocation (gradient.cpp) would.
  void submit(int peer, std::int64_t instance, int iteration, int branches, double fan_out_s,
              const std::shared_ptr<Execution>& exec);

 private:
  struct Invocation {
    int peer = 0, iteration = 0, k = 0;
    std::int64_t instance = 0;
    std::shared_ptr<Execution> exec;
    int attempt = 0;
    FunctionService::Container container;
    StorageClient client;  // the attempt's: its container's route, its own latency draws
    double run_start_s = 0, upload_start_s = 0;
    bool died = false;
    std::string error;
  };
  enum class Kind { Start, AtBroker, End };
  struct Event {
    double at_s;
    std::uint64_t order;
    Kind kind;
    std::shared_ptr<Invocation> invocation;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.at_s != b.at_s ? a.at_s > b.at_s : a.order > b.order; }
  };

  void schedule(double at_s, Kind kind, std::shared_ptr<Invocation> invocation);
  void drive();  // the task: handles events in order until none is left
  void start(double now_s, const std::shared_ptr<Invocation>& inv);
  void at_broker(double now_s, const std::shared_ptr<Invocation>& inv);
  void end(double now_s, const std::shared_ptr<Invocation>& inv);

  Context& c_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::uint64_t next_order_ = 0;
  bool driving_ = false;          // the task runs (it ends when no event is left)
  double sleeping_until_s_ = -1;  // the task waits for this instant; an earlier event wakes it
  sg::Semaphore wake_{0};
};

}  // namespace p2psim::simulation
