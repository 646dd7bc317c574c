// A Lambda-like function service: containers per function (warm ones reused newest first within the
// keep-alive, reclaimed after it), one account-wide concurrency limit beyond which invocations queue, cold
// starts (image + runtime import, slower below one vCPU), and every invocation metered at its own memory size.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../inputs/cloud_profile.hpp"
#include "../../records/ledger.hpp"
#include "../random.hpp"
#include "../sg/platform.hpp"

namespace p2psim::simulation {

/// A function of `memory_mb`'s route to storage: its network (interpolated between the measured sizes) and its
/// client's CPU share (`client` on it: FunctionServiceParams::client_rate) bound all its streams together, and each
/// stream is also capped at one vCPU (FunctionServiceParams::storage_rates); `one_way_latency_s` in all.
sg::PrivateRoute function_storage_route(const p2psim::FunctionServiceParams& params, double one_way_latency_s,
                                        int memory_mb, const p2psim::StorageClientRate& client);

class FunctionService {
 public:
  /// The platform's function slots are the containers' network slots, hosts of `speed_factor` (a container's
  /// CPU share); their storage clients move what `client` says on it (the design's way of reading). A cold start
  /// imports the runtime at `import_speed_factor` (the CPU's scalar speed).
  FunctionService(const p2psim::FunctionServiceParams& params, const sg::Platform& platform, double speed_factor,
                  double import_speed_factor, const p2psim::StorageClientRate& client, Ledger& ledger,
                  const Random& random);

  struct Container {
    std::string function;
    int memory_mb = 0;
    sg::Host* host = nullptr;  // the container's network slot
    int slot = 0;
    bool cold = false;
    double init_s = 0;  // the cold start it went through, the platform's start and INIT (0 when warm) ...
    double init_started_s = 0;  // ... from then
    double billed_init_s = 0;  // of init_s, INIT: the runtime's import, what the provider bills
    sg::PrivateRoute route;  // its slot's route to storage at its memory size (its NIC, one stream's cap)
    std::shared_ptr<sg::RouteBucket> bucket;  // its network's token buckets, where the route has them
  };
  /// Starts an invocation of `function` (one warm pool per function): blocks while the concurrency limit is
  /// reached, then takes a warm container or cold-starts one (sleeping through its INIT). `invocation` names it
  /// (e.g. {peer, iteration, branch}; `instance`: its caller's, Context::instance_of): a cold start's image time
  /// is drawn from that name's stream, so invocations named alike draw alike (a workflow fan-out's branches).
  Container start(const std::string& function, int memory_mb, std::initializer_list<std::int64_t> invocation,
                  std::int64_t instance = 0);
  /// The same at `now_s` without blocking or sleeping, for an invocation computed rather than simulated: the
  /// caller counts the INIT (`init_s`) itself. Throws std::logic_error when the invocation would have to wait
  /// (the concurrency limit reached, no slot free): the caller must know that it cannot.
  Container take_now(const std::string& function, int memory_mb, std::initializer_list<std::int64_t> invocation,
                     std::int64_t instance, double now_s);
  /// The invocation ended after `run_s` of handler time: metered, and the container stays warm — or, when it
  /// died (out of memory, crash, timeout), it is gone.
  void finish(const Container& c, double run_s, const std::string& arch, bool died);
  /// finish() at `now_s` (a computed invocation's clock).
  void finish_at(const Container& c, double run_s, const std::string& arch, bool died, double now_s);
  /// Runs `reference_s` of work on the container's CPU. A container has its slot to itself (one container per
  /// slot), so nothing shares that CPU: the work takes reference_s / speed factor, as sg::compute on the slot
  /// would (to rounding: 1e-12 relative, tested), slept rather than computed: one actor switch to SimGrid's
  /// kernel and a solver variable fewer per step, for the thousands of steps a sweep's functions take.
  void compute(const Container& c, double reference_s) const;
  /// How long compute() takes (nothing below SimGrid's precision, as sg::sleep_for).
  double compute_s(double reference_s) const { return compute_s(reference_s, speed_factor_); }
  /// The same on a CPU of `speed_factor` (the import's: the scalar speed).
  static double compute_s(double reference_s, double speed_factor) {
    const double s = reference_s / speed_factor;
    return s < sg::kTimePrecisionS ? 0.0 : s;
  }

  double vcpus(int memory_mb) const { return params_.vcpus(memory_mb); }
  /// A container of `memory_mb`'s route to storage: its NIC (all its streams) and one stream's cap.
  sg::PrivateRoute route(int memory_mb) const;
  const p2psim::FunctionServiceParams& params() const { return params_; }
  int max_alive() const { return max_alive_; }
  long long cold_starts() const { return cold_starts_; }
  long long warm_starts() const { return warm_starts_; }

 private:
  void reclaim_expired(double now_s);
  bool take_warm(Container& c);
  void take_slot(Container& c, int slot);  // the container's slot, its network set to its memory size
  bool free_a_slot();  // true when a slot is free, freeing the oldest idle container of another function if needed
  void cold_start(Container& c, double now_s, std::initializer_list<std::int64_t> invocation, std::int64_t instance);
  struct Idle {
    int slot;
    double since_s;
    std::shared_ptr<sg::RouteBucket> bucket;  // the container's network buckets, refilling while it idles
  };
  const p2psim::FunctionServiceParams& params_;
  const sg::Platform& platform_;
  double speed_factor_, import_speed_factor_;
  p2psim::StorageClientRate client_;
  Ledger& ledger_;
  const Random& random_;
  // Invocations between start() and finish(), at most the concurrency limit; beyond it, invocations queue and a
  // finishing one hands its place to the oldest (first come, first served, as a semaphore would).
  int running_ = 0;
  std::deque<std::shared_ptr<sg::Semaphore>> queued_;
  sg::Signal slot_freed_;  // a container ended: its slot is free or idle
  std::map<std::string, std::deque<Idle>> idle_;  // per function, oldest first
  std::vector<int> free_slots_;
  int alive_ = 0, max_alive_ = 0;
  long long cold_starts_ = 0, warm_starts_ = 0;
};

}  // namespace p2psim::simulation
