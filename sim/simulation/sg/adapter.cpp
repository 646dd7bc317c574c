#include "adapter.hpp"

#include "../../heap.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>  // the network model's factors
#include <xbt/log.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace p2psim::sg {
namespace s4u = simgrid::s4u;

double now() { return s4u::Engine::get_clock(); }
void sleep_for(double seconds) { s4u::this_actor::sleep_for(seconds); }
void sleep_until(double date_s) { s4u::this_actor::sleep_until(date_s); }

void transfer(Host* from, Host* to, double bytes) { s4u::Comm::sendto(from, to, static_cast<uint64_t>(bytes)); }

LoneRoute lone_route(double latency_s, double narrowest_bps) {
  // The model's own settings (LV08 sets its factors as defaults when it is created).
  const double latency_factor = simgrid::config::get_value<double>("network/latency-factor");
  const double bandwidth_factor = simgrid::config::get_value<double>("network/bandwidth-factor");
  const double tcp_gamma = simgrid::config::get_value<double>("network/TCP-gamma");
  double bound_bps = narrowest_bps;
  if (latency_s > 0 && tcp_gamma / (2.0 * latency_s) < bound_bps) bound_bps = tcp_gamma / (2.0 * latency_s);
  return {latency_s * latency_factor, bound_bps * bandwidth_factor};
}

double lone_transfer_end_s(const LoneRoute& route, double bytes, double start_s) {
  const double latency_paid_s = start_s + route.latency_paid_s;
  const double whole_bytes = static_cast<double>(static_cast<uint64_t>(bytes));  // as transfer() sends them
  return whole_bytes > 0 ? latency_paid_s + whole_bytes / route.rate_bps : latency_paid_s;
}

void transfer_sequence(Host* from, Host* to, double bytes_each, int count) {
  if (count > 1) {
    const double start = now();
    transfer(from, to, 0);
    sleep_for((count - 2) * (now() - start));
  }
  if (count > 0) transfer(from, to, count * bytes_each);
}

void transfer_all(const std::vector<Transfer>& transfers) {
  std::vector<s4u::CommPtr> comms;
  for (const auto& t : transfers) comms.push_back(s4u::Comm::sendto_async(t.from, t.to, static_cast<uint64_t>(t.bytes)));
  s4u::Comm::wait_all(comms);
}

bool try_transfer(Host* from, Host* to, double bytes) {
  try {
    s4u::Comm::sendto(from, to, static_cast<uint64_t>(bytes));
    return true;
  } catch (const simgrid::NetworkFailureException&) {
    return false;
  }
}

void compute(Host* host, double reference_seconds) {
  s4u::this_actor::exec_init(reference_seconds * kFlopsPerReferenceSecond)->set_host(host)->wait();
}

void set_throttled(Host* host, bool throttled) {
  const unsigned long pstate = throttled ? 1 : 0;  // get_pstate() is unsigned
  if (host->get_pstate() != pstate) host->set_pstate(pstate);
}

namespace {
bool abandoned = false;  // abandon_simulation() was called
}

void abandon_simulation() {
  abandoned = true;
  s4u::Actor::kill_all();  // all but this one
  s4u::this_actor::exit();
  std::abort();  // not reached: exit() unwinds this actor's stack
}

Actor::Actor(s4u::ActorPtr actor) : actor_(std::move(actor)) {}
Actor::~Actor() = default;
Actor::Actor(const Actor&) = default;
Actor& Actor::operator=(const Actor&) = default;
void Actor::kill() {
  if (actor_) actor_->kill();
}

namespace {
// An actor that ran a task and waits for the next one; woken without a task, it ends.
struct Worker {
  s4u::SemaphorePtr wake = s4u::Semaphore::create(0);
  std::function<void()> task;
};
std::vector<std::shared_ptr<Worker>> idle_workers;  // one engine per process, so one pool

// Once every actor but `ending` ones waits for a task, none will come: the idle workers end, so the simulation
// ends as it would without them (SimGrid would otherwise see actors waiting for ever, a deadlock).
void end_idle_workers_if_alone(size_t ending) {
  if (idle_workers.empty() || s4u::Engine::get_instance()->get_actor_count() > idle_workers.size() + ending) return;
  const auto idle = std::move(idle_workers);
  idle_workers.clear();
  for (const auto& worker : idle) worker->wake->release();
}
}  // namespace

Actor spawn(const std::string& name, Host* host, std::function<void()> body) {
  return Actor(s4u::Actor::create(name, host, [body = std::move(body)] {
    body();
    end_idle_workers_if_alone(1);
  }));
}

void run_task(const char* kind, Host* host, std::function<void()> task) {
  if (!idle_workers.empty()) {
    // Woken now, it runs when a new actor created now would: after the actors already due, before the caller.
    auto worker = std::move(idle_workers.back());
    idle_workers.pop_back();
    worker->task = std::move(task);
    worker->wake->release();
    return;
  }
  auto worker = std::make_shared<Worker>();
  worker->task = std::move(task);
  s4u::Actor::create(kind, host, [worker] {
    while (worker->task) {
      auto task = std::move(worker->task);
      worker->task = nullptr;
      task();
      task = nullptr;  // what it captured (e.g. an execution's shared state) is released before it waits
      idle_workers.push_back(worker);
      end_idle_workers_if_alone(0);
      worker->wake->acquire();
    }
  });
}

Semaphore::Semaphore(int capacity) : impl_(s4u::Semaphore::create(capacity)) {}
void Semaphore::acquire() { impl_->acquire(); }
bool Semaphore::acquire_until(double deadline_s) {
  return !impl_->acquire_timeout(std::max(0.0, deadline_s - s4u::Engine::get_clock()));  // true on timeout
}
void Semaphore::release() { impl_->release(); }

Barrier::Barrier(int count) : impl_(s4u::Barrier::create(static_cast<unsigned>(count))) {}
void Barrier::wait() { impl_->wait(); }

void Signal::wait_for(const std::function<bool()>& ready) {
  while (!ready()) {
    auto semaphore = std::make_shared<Semaphore>(0);  // creating it may let other actors run: test again
    if (ready()) return;
    waiters_.push_back(semaphore);
    semaphore->acquire();
  }
}

bool Signal::wait_for(const std::function<bool()>& ready, double deadline_s) {
  while (!ready()) {
    auto semaphore = std::make_shared<Semaphore>(0);
    if (ready()) return true;
    if (s4u::Engine::get_clock() >= deadline_s) return false;
    waiters_.push_back(semaphore);
    if (!semaphore->acquire_until(deadline_s)) return ready();
  }
  return true;
}

void Signal::notify_all() {
  // Taken out first: releasing may let other actors run, and they may start waiting again meanwhile.
  const auto waiting = std::move(waiters_);
  waiters_.clear();
  for (const auto& semaphore : waiting) semaphore->release();  // a timed-out waiter's release goes unused
}

namespace {
int payload = 0;  // messages carry only their size
}

Channel::Channel(const std::string& name) : mailbox_(s4u::Mailbox::by_name(name)) {}
Channel::Pending::Pending(s4u::CommPtr comm) : comm_(std::move(comm)) {}
Channel::Pending::~Pending() = default;
Channel::Pending::Pending(Pending&&) noexcept = default;
void Channel::Pending::wait() { comm_->wait(); }
Channel::Pending Channel::send_async(double bytes) {
  return Pending(mailbox_->put_async(&payload, static_cast<uint64_t>(bytes)));
}
void Channel::receive() { mailbox_->get<int>(); }

namespace {
// The process's SimGrid engine, set up as every simulation wants it: made by the first start_simgrid() or
// Engine, never destroyed before exit.
s4u::Engine& process_engine() {
  static s4u::Engine& engine = []() -> s4u::Engine& {
    static int argc = 1;
    static char name[] = "p2psim";
    static char* argv[] = {name, nullptr};
    static s4u::Engine made(&argc, argv);
    xbt_log_control_set("root.thresh:critical");
    // Actors' stacks (SimGrid's default is 8 MiB each, reserved up front): ours are shallow, and thousands of
    // peers with their function tasks ran out of address space ("Failed to allocate stack") at 3,750 peers.
    // Every test passes with 16 KiB; 64 KiB leaves four times that, and took 5 % less CPU than 256 KiB over 60
    // of the paper grid's heaviest scenarios (bench/README.md, "A sixth pass"). An overflow hits the guard page.
    s4u::Engine::set_config("contexts/stack-size:64");
    return made;
  }();
  return engine;
}
}  // namespace

void start_simgrid() {
  // SimGrid installs its own Ctrl-C handler (print the actors, exit 1); a process that only forks the
  // simulations keeps the one it had.
  struct sigaction caller{};
  ::sigaction(SIGINT, nullptr, &caller);
  process_engine();
  ::sigaction(SIGINT, &caller, nullptr);
}

namespace {
bool engine_used = false;  // SimGrid 3.32 cannot run a second simulation in one process
}

struct Engine::Impl {
  s4u::Engine& engine = process_engine();
  bool deadlock = false;
  bool only_idle_workers_left = false;  // SimGrid saw a deadlock, but of idle task workers only
};

Engine::Engine(const std::string& network_model) {
  if (engine_used) throw std::logic_error("a second simulation in one process: run each in its own (isolate.hpp)");
  engine_used = true;
  impl_ = std::make_unique<Impl>();
  keep_freed_memory_in_heap();  // actors' stacks: reused from the heap, not mapped and unmapped one by one
  s4u::Engine::set_config("network/model:" + network_model);
  // Idle task workers left after a killed actor are no deadlock (end_idle_workers_if_alone could not run).
  s4u::Engine::on_deadlock_cb([this] {
    impl_->only_idle_workers_left = impl_->engine.get_actor_count() <= idle_workers.size();
    impl_->deadlock = !impl_->only_idle_workers_left;
  });
}

Engine::~Engine() = default;

Engine::End Engine::run(double horizon_s, const std::function<void(double now_s)>& on_advance) {
  s4u::Engine::on_time_advance_cb([on_advance](double) { on_advance(s4u::Engine::get_clock()); });
  impl_->engine.run_until(horizon_s);
  const size_t left = impl_->engine.get_actor_count();
  const bool finished = left == idle_workers.size() || impl_->only_idle_workers_left;
  idle_workers.clear();
  if (abandoned) return End::Abandoned;
  if (impl_->deadlock) return End::Deadlocked;
  if (left > 0) {
    s4u::Actor::kill_all();
    impl_->engine.run();
  }
  return finished ? End::Finished : End::PastHorizon;
}

}  // namespace p2psim::sg
