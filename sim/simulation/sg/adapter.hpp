// The S4U adapter: with platform.cpp beside it, the only code that includes <simgrid/s4u.hpp>. Services and
// strategies see time, hosts, transfers, compute, synchronisation and actors through these few calls, so the
// simulation's vocabulary stays ours and a SimGrid upgrade touches one folder. (WRENCH wraps S4U the same
// way: https://github.com/wrench-project/wrench, src/wrench/simgrid_S4U_util.)
#pragma once
#include <simgrid/forward.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace p2psim::sg {

/// A simulated machine. Only its pointer travels outside the adapter.
using Host = simgrid::s4u::Host;
/// A link whose rate changes during a run (sg/platform.hpp keeps them). Only its pointer travels.
using Link = simgrid::s4u::Link;

/// Work is counted in reference seconds: seconds of the calibration CPU. A host of speed factor f does one
/// reference second in 1/f seconds (platform.cpp gives every host its speed).
constexpr double kFlopsPerReferenceSecond = 1e9;

/// SimGrid's time precision (sg_surf_precision, 1e-9 s): an action shorter than it still takes about that long,
/// so sleeps and work shorter than it are not simulated at all (a nanosecond is nothing a run can show).
constexpr double kTimePrecisionS = 1e-9;

double now();
/// Sleeps `seconds`; none at all below kTimePrecisionS.
void sleep_for(double seconds);
void sleep_until(double date_s);
/// Moves `bytes` from one host to another over the platform's route, sharing links with every other flow.
void transfer(Host* from, Host* to, double bytes);
/// A client's own route, crossed by its flows only: a NIC of `nic_bps` that its flows share, and a cap of
/// `flow_cap_bps` on each (the storage service's streams), `latency_s` in all. A NIC with a token bucket (a Lambda
/// function's: `sustained_bps` > 0) runs at `nic_bps` while its bucket (at most `burst_bytes`) holds credit, which
/// its flows spend on what they move beyond `sustained_bps`, then at `sustained_bps` (RouteBucket, bucket_phases);
/// an idle direction earns credit back at `refill_bps`, a transfer below the sustained rate at most at that too.
struct PrivateRoute {
  double latency_s = 0;
  double nic_bps = 0, flow_cap_bps = 0;
  double sustained_bps = 0, burst_bytes = 0, refill_bps = 0;
};
/// One client's token buckets on such a route, one per direction (0: to it, 1: from it), as its transfers leave
/// them: full when the client starts, refilled at `refill_bps` while a direction is idle, up to the bucket.
struct RouteBucket {
  double credits_bytes[2] = {0, 0};
  double idle_since_s[2] = {0, 0};
  RouteBucket(double burst_bytes, double now_s) : credits_bytes{burst_bytes, burst_bytes}, idle_since_s{now_s, now_s} {}
  /// The credit a transfer finds when its flows begin at `now_s`.
  double credits_at(bool upload, double now_s, const PrivateRoute& route) const;
  /// A transfer moved `bytes` from `begin_s` to `end_s`, emptying the bucket (`emptied`) or not.
  void moved(bool upload, double begin_s, double end_s, double bytes, bool emptied, const PrivateRoute& route);
};
/// One of several concurrent flows of one request: it starts `start_after_s` after the request (its requests'
/// first bytes and route latencies before it) and carries `bytes`.
struct Stream {
  double start_after_s = 0;
  double bytes = 0;
};
/// When each of `streams`, requested at `start_s` on `route` and alone on it, has arrived, computed as SimGrid's
/// CM02/LV08 model would simulate them (src/surf/network_cm02.cpp in SimGrid 3.32, comm_action_set_bounds,
/// comm_action_set_variable and the max-min sharing of the NIC): each flow pays the route's latency times the
/// latency factor, then moves at the bandwidth factor times the smaller of its bound (the narrowest link, the TCP
/// window's gamma / (2 x the route's latency)) and its fair share of the NIC among the flows moving then. For a
/// caller that knows its route is its own (a function slot's, Platform::function_slots_virtual) and computes
/// instead of simulating. The network model's settings: call after the Engine is made.
std::vector<double> private_flows_end_s(const PrivateRoute& route, const std::vector<Stream>& streams, double start_s);
/// SimGrid's network model as it runs (its CM02/LV08 settings, after the experiment's own): what a computed flow
/// needs to take the time SimGrid would give it. Call after the Engine is made.
struct NetworkFactors {
  double latency = 1, bandwidth = 1, tcp_gamma = 0;
  /// network/weight-S: a flow's sharing penalty is its route's latency plus weight_s / bandwidth per link.
  double weight_s = 0;
  double cross_traffic_share = 0;  // what a flow takes on its reverse route, as a share of its rate
};
NetworkFactors network_factors();
/// What a flow from `from` to `to` pays before its first byte moves: its route's latency times the latency factor.
double route_latency_paid_s(Host* from, Host* to);
/// The same for a route of `latency_s` (a PrivateRoute's).
double latency_paid_s(double latency_s);
/// A transfer on a route whose NIC has a token bucket holding `credits_bytes`, in two phases: its flows as they
/// start, up to what each moves before the bucket is empty (all moving at once at their burst rate, so the bucket
/// drains at the flows' rates summed less the sustained rate), then the rest of each, all starting together once
/// the first phase has ended, on the NIC at its sustained rate. `after` is empty when the bucket outlasts the transfer (or the route
/// has none, or its flows together move no faster than the sustained rate). Both the simulated and the computed
/// transfers split so, and so agree; the split is exact for flows that start together and move alike.
struct BucketPhases {
  std::vector<Stream> burst, after;
};
BucketPhases bucket_phases(const PrivateRoute& route, const std::vector<Stream>& streams, double credits_bytes);
/// `streams` from `from` to `to`, each starting its flow `start_after_s` after now; returns when all have arrived.
void transfer_streams(Host* from, Host* to, const std::vector<Stream>& streams);
/// Several transfers at once (sharing whatever links they share); returns when all have arrived.
struct Transfer {
  Host* from;
  Host* to;
  double bytes;
};
void transfer_all(const std::vector<Transfer>& transfers);
/// The same, over a route that may go down (a declared outage): false when a link went down mid-transfer.
bool try_transfer(Host* from, Host* to, double bytes);
/// Runs `reference_seconds` of work on `host`'s CPU, shared with whatever else computes there.
void compute(Host* host, double reference_seconds);
/// How long `host` takes for `reference_seconds` of work at its full or throttled speed, alone on it, as
/// compute() would take it (none below kTimePrecisionS).
double compute_s(Host* host, double reference_seconds, bool throttled);
/// A started actor, which another actor can kill (a crash: it stops wherever it is, its transfers cancelled).
class Actor {
 public:
  Actor() = default;
  explicit Actor(simgrid::s4u::ActorPtr actor);
  ~Actor();
  Actor(const Actor&);
  Actor& operator=(const Actor&);
  void kill();

 private:
  simgrid::s4u::ActorPtr actor_;
};

/// Ends the simulation from inside an actor: every actor is killed, this one last (its stack unwinds from here),
/// and Engine::run() returns End::Abandoned. For a run whose result is already known to be void.
[[noreturn]] void abandon_simulation();

/// Switches a host between its full speed and its throttled speed (a burstable instance out of credits).
void set_throttled(Host* host, bool throttled);

/// Starts an actor running `body` on `host`.
Actor spawn(const std::string& name, Host* host, std::function<void()> body);
/// Starts a daemon actor running `body` on no particular host: it never keeps the simulation alive, and is killed
/// once every other actor has ended (e.g. a crash injected into a run).
void spawn_daemon(const std::string& name, std::function<void()> body);
/// Runs `task` as an actor of its own, as spawn does, but on an actor whose earlier task ended, when one is
/// idle (it then keeps its first host and name; what a task computes or sends names its hosts anyway). `kind`
/// names a new actor ("fn", "reducer"): a reused actor would not show a name formatted for each task. For the
/// many short tasks of a run, e.g. one per function invocation: creating an actor costs a stack, a guard page and
/// two mprotect calls (with memalign and makecontext, about a fifth of the paper grid's samples in a profile, when
/// every invocation had an actor of its own). A task cannot be killed: it has no handle.
void run_task(const char* kind, Host* host, std::function<void()> task);

class Semaphore {
 public:
  explicit Semaphore(int capacity);
  void acquire();
  /// Returns false when `deadline_s` passed first.
  bool acquire_until(double deadline_s);
  void release();

 private:
  simgrid::s4u::SemaphorePtr impl_;
};

/// Actors that wait until `count` of them have arrived, then all go on (an S4U barrier, reusable round after
/// round): one wake-up per actor, where a Counter would wake every waiter at each arrival.
class Barrier {
 public:
  explicit Barrier(int count);
  void wait();

 private:
  simgrid::s4u::BarrierPtr impl_;
};

/// Actors waiting until a condition on shared state holds, woken by notify_all() after each change. No mutex:
/// SimGrid runs one actor at a time and switches only at simulation calls, so the condition is tested again
/// after every call that may switch, right before the waiter blocks. (Each waiter sleeps on a semaphore of
/// its own: SimGrid 3.32's condition variables crashed, in ConditionVariableImpl::broadcast, once three or
/// more actors contended for the mutex.)
class Signal {
 public:
  void wait_for(const std::function<bool()>& ready);
  /// Returns false when `deadline_s` passed before `ready()` held.
  bool wait_for(const std::function<bool()>& ready, double deadline_s);
  void notify_all();

 private:
  std::vector<std::shared_ptr<Semaphore>> waiters_;
};

/// A count that actors wait on until it reaches a target (objects in storage, reducers done, ...).
class Counter {
 public:
  void add(int n = 1) {
    value_ += n;
    changed_.notify_all();
  }
  void wait_for(int target) {
    changed_.wait_for([this, target] { return value_ >= target; });
  }
  int value() const { return value_; }

 private:
  int value_ = 0;
  Signal changed_;
};

class TransferInFlight;  // adapter.cpp: a transfer in flight, as the NICs' credits count it

/// A rendez-vous channel between actors (an S4U mailbox): a message of `bytes` travels from the sender's host
/// to the receiver's once both are there.
class Channel {
 public:
  explicit Channel(const std::string& name);
  /// Starts sending; the returned handle's wait() returns once the receiver has it.
  class Pending {
   public:
    Pending(simgrid::s4u::CommPtr comm, std::unique_ptr<TransferInFlight> flight);
    ~Pending();
    Pending(Pending&&) noexcept;
    void wait();

   private:
    simgrid::s4u::CommPtr comm_;
    std::unique_ptr<TransferInFlight> flight_;  // the sender's side, until it arrives
  };
  Pending send_async(double bytes);
  void receive();

 private:
  simgrid::s4u::Mailbox* mailbox_;
};

/// Starts SimGrid in this process, unless it already runs. A simulation in a process forked after this call
/// skips SimGrid's own start-up (its configuration, logging and context set-up: a tenth of a small scenario's
/// CPU), as does each copy a sweep forks. Nothing is simulated here: each process still runs one simulation.
void start_simgrid();

/// SimGrid's network model and its TCP factors; a factor left empty keeps the model's own.
struct NetworkSettings {
  std::string model = "LV08";
  std::optional<double> bandwidth_factor = std::nullopt, latency_factor = std::nullopt, tcp_gamma_bytes = std::nullopt;
  std::optional<bool> cross_traffic = std::nullopt;
};

/// One simulation: SimGrid allows a single engine per process, run once (see isolate.hpp).
class Engine {
 public:
  explicit Engine(const NetworkSettings& network);
  ~Engine();
  enum class End { Finished, Deadlocked, PastHorizon, Abandoned };
  /// Runs every actor to the end (Finished), until actors are left blocked for ever (Deadlocked), until the
  /// clock reaches `horizon_s` (< 0: no horizon) (PastHorizon: what still runs is killed), or until an actor
  /// abandons the simulation (Abandoned). `on_advance` sees the clock move.
  End run(double horizon_s, const std::function<void(double now_s)>& on_advance);
  /// Runs every actor to the end; false when some were left blocked for ever or the run was abandoned.
  bool run() { return run(-1, [](double) {}) == End::Finished; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace p2psim::sg
