// The S4U adapter: with platform.cpp beside it, the only code that includes <simgrid/s4u.hpp>. Services and
// strategies see time, hosts, transfers, compute, synchronisation and actors through these few calls, so the
// simulation's vocabulary stays ours and a SimGrid upgrade touches one folder. (WRENCH wraps S4U the same
// way: https://github.com/wrench-project/wrench, src/wrench/simgrid_S4U_util.)
#pragma once
#include <simgrid/forward.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace p2psim::sg {

/// A simulated machine. Only its pointer travels outside the adapter.
using Host = simgrid::s4u::Host;

/// Work is counted in reference seconds: seconds of the calibration CPU. A host of speed factor f does one
/// reference second in 1/f seconds (platform.cpp gives every host its speed).
constexpr double kFlopsPerReferenceSecond = 1e9;

double now();
void sleep_for(double seconds);
void sleep_until(double date_s);
/// Moves `bytes` from one host to another over the platform's route, sharing links with every other flow.
void transfer(Host* from, Host* to, double bytes);
/// `count` transfers of `bytes_each`, one after another, as one flow: the latencies of all `count` (one measured
/// on an empty transfer, the others repeated: a route's latency does not depend on its load), then all the
/// bytes. The same time as the `count` transfers while the flow's bandwidth share stays the same; when it
/// changes meanwhile, the bytes see the share of the end of the sequence, not of each transfer's own moment.
void transfer_sequence(Host* from, Host* to, double bytes_each, int count);
/// A route as a lone flow on it sees it under SimGrid's CM02/LV08 model (src/surf/network_cm02.cpp,
/// comm_action_set_bounds and comm_action_set_variable, in SimGrid 3.32): the latency it pays (the links'
/// latencies times the latency factor) and its rate (the bandwidth factor times the smaller of the narrowest
/// link and the TCP window's bound, gamma / (2 x the links' latency)).
struct LoneRoute {
  double latency_paid_s = 0;
  double rate_bps = 0;
};
/// The route of links whose latencies sum to `latency_s` and whose narrowest carries `narrowest_bps`, with the
/// network model's factors (its settings: call after the Engine is made).
LoneRoute lone_route(double latency_s, double narrowest_bps);
/// When a transfer of `bytes` started at `start_s` ends on `route` if no other flow shares any of its links
/// meanwhile, added in the order SimGrid adds it: the latency, then the bytes at the rate. For a caller that knows
/// its route is its own (a function slot's NIC, Platform::function_slots_virtual) and computes instead of
/// simulating.
double lone_transfer_end_s(const LoneRoute& route, double bytes, double start_s);
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

 private:
  int value_ = 0;
  Signal changed_;
};

/// A rendez-vous channel between actors (an S4U mailbox): a message of `bytes` travels from the sender's host
/// to the receiver's once both are there.
class Channel {
 public:
  explicit Channel(const std::string& name);
  /// Starts sending; the returned handle's wait() returns once the receiver has it.
  class Pending {
   public:
    explicit Pending(simgrid::s4u::CommPtr comm);
    ~Pending();
    Pending(Pending&&) noexcept;
    void wait();

   private:
    simgrid::s4u::CommPtr comm_;
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

/// One simulation: SimGrid allows a single engine per process, run once (see isolate.hpp).
class Engine {
 public:
  explicit Engine(const std::string& network_model);
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
