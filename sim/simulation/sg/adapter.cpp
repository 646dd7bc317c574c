#include "adapter.hpp"

#include "../../util/heap.hpp"
#include "nic_credits.hpp"
#include "storage_link_watch.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>  // the network model's factors
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace p2psim::sg {
namespace s4u = simgrid::s4u;

namespace {
NicCredits* nic_credits = nullptr;  // the platform's, when a NIC bursts
}  // namespace

// Every transfer is in flight while one of these lives (also when its actor is killed): an "up to" NIC's buckets
// are followed while it has a transfer in flight (its latency paid too, when the NIC carries nothing yet), and
// until they are full and idle again.
class TransferInFlight {
 public:
  TransferInFlight(Host* from, Host* to) : from_(from), to_(to) {
    if (nic_credits) flight_ = nic_credits->touched(from, to);
  }
  ~TransferInFlight() {
    if (nic_credits) nic_credits->released(from_, to_, flight_);
  }
  TransferInFlight(const TransferInFlight&) = delete;
  TransferInFlight& operator=(const TransferInFlight&) = delete;

 private:
  Host* from_;
  Host* to_;
  NicCredits::Flight flight_;
};

void set_nic_credits(NicCredits* credits) { nic_credits = credits; }

double now() { return s4u::Engine::get_clock(); }
void sleep_for(double seconds) {
  if (seconds >= kTimePrecisionS) s4u::this_actor::sleep_for(seconds);
}
void sleep_until(double date_s) { s4u::this_actor::sleep_until(date_s); }

void transfer(Host* from, Host* to, double bytes) {
  const TransferInFlight flight(from, to);
  s4u::Comm::sendto(from, to, static_cast<uint64_t>(bytes));
}

// The network model's own settings (LV08 sets its factors as defaults when it is created).
namespace {

NetworkFactors read_network_factors() {
  NetworkFactors f;
  f.latency = simgrid::config::get_value<double>("network/latency-factor");
  f.bandwidth = simgrid::config::get_value<double>("network/bandwidth-factor");
  f.tcp_gamma = simgrid::config::get_value<double>("network/TCP-gamma");
  f.weight_s = simgrid::config::get_value<double>("network/weight-S");
  f.cross_traffic_share = cross_traffic_share(simgrid::config::get_value<bool>("network/crosstraffic"));
  return f;
}

// Read once per engine (its configuration is fixed once its platform exists), forgotten when the next starts: a
// read is five lookups by name, and computed transfers asked twice per transfer, 8 % of a 10,000-participant run.
std::optional<NetworkFactors> engine_network_factors;

}  // namespace

NetworkFactors network_factors() {
  if (!engine_network_factors) engine_network_factors = read_network_factors();
  return *engine_network_factors;
}

namespace {
// A flow's bound on a private route: the narrowest link of its route, and the TCP window over the route's latency.
double private_flow_bound_bps(const PrivateRoute& route, const NetworkFactors& f) {
  double bound_bps = std::min(route.nic_bps, route.flow_cap_bps);
  if (route.latency_s > 0) bound_bps = std::min(bound_bps, f.tcp_gamma / (2.0 * route.latency_s));
  return bound_bps;
}
}  // namespace

double RouteBucket::credits_at(bool upload, double now_s, const PrivateRoute& route) const {
  const int d = upload ? 1 : 0;
  return std::min(route.burst_bytes, credits_bytes[d] + route.refill_bps * std::max(0.0, now_s - idle_since_s[d]));
}

void RouteBucket::moved(bool upload, double begin_s, double end_s, double bytes, bool emptied, const PrivateRoute& route) {
  const int d = upload ? 1 : 0;
  const double before = credits_at(upload, begin_s, route);
  // What it moved beyond the sustained rate over its time, spent; less than that, earned back, at most at the
  // refill rate (no faster than idle). Settled once over the transfer's span: serial parts on one stream, fast
  // parts between idle first bytes, spend while they move and earn only in the gaps, which this nets and so
  // overstates what they leave (no shipped design reads so; a multi-stream transfer's flows overlap the gaps).
  const double beyond = bytes - route.sustained_bps * (end_s - begin_s);
  const double earned = std::min(-beyond, route.refill_bps * (end_s - begin_s));
  credits_bytes[d] = emptied ? 0 : std::clamp(beyond > 0 ? before - beyond : before + earned, 0.0, route.burst_bytes);
  idle_since_s[d] = end_s;
}

BucketPhases bucket_phases(const PrivateRoute& route, const std::vector<Stream>& streams, double credits_bytes) {
  BucketPhases phases{streams, {}};
  if (route.sustained_bps <= 0 || streams.empty()) return phases;
  const NetworkFactors f = network_factors();
  const double n = static_cast<double>(streams.size());
  const double flow_bps = f.bandwidth * std::min(private_flow_bound_bps(route, f), route.nic_bps / n);
  const double drain_bps = n * flow_bps - route.sustained_bps;
  if (drain_bps <= 0) return phases;
  // Whole bytes, as transfer() sends them.
  const double burst_each = std::floor(flow_bps * credits_bytes / drain_bps);
  for (auto& s : phases.burst) {
    const double bytes = std::floor(s.bytes);
    if (bytes <= burst_each) continue;
    s.bytes = burst_each;
    phases.after.push_back({0, bytes - burst_each});
  }
  return phases;
}

std::vector<double> private_flows_end_s(const PrivateRoute& route, const std::vector<Stream>& streams, double start_s) {
  const NetworkFactors f = network_factors();
  const double bound_bps = private_flow_bound_bps(route, f);
  struct Flow {
    double begins_s, remaining;  // whole bytes, as transfer() sends them
    size_t index;
  };
  std::vector<Flow> waiting;
  for (size_t i = 0; i < streams.size(); ++i)
    waiting.push_back({start_s + streams[i].start_after_s + route.latency_s * f.latency,
                       static_cast<double>(static_cast<uint64_t>(streams[i].bytes)), i});
  std::sort(waiting.begin(), waiting.end(), [](const Flow& a, const Flow& b) {
    return a.begins_s != b.begins_s ? a.begins_s < b.begins_s : a.index < b.index;
  });
  std::vector<double> ends(streams.size(), 0);
  std::vector<Flow> moving;
  size_t next = 0;
  double now = waiting.empty() ? start_s : waiting.front().begins_s;
  while (next < waiting.size() || !moving.empty()) {
    while (next < waiting.size() && waiting[next].begins_s <= now) {  // flows whose bytes start moving now
      if (waiting[next].remaining > 0) moving.push_back(waiting[next]);
      else ends[waiting[next].index] = waiting[next].begins_s;
      ++next;
    }
    if (moving.empty()) {
      now = waiting[next].begins_s;
      continue;
    }
    // Max-min on the NIC among the moving flows, all with the same bound and penalty: an equal share each.
    const double rate = f.bandwidth * std::min(bound_bps, route.nic_bps / static_cast<double>(moving.size()));
    double first_done_s = now + std::min_element(moving.begin(), moving.end(), [](const Flow& a, const Flow& b) {
                                  return a.remaining < b.remaining;
                                })->remaining / rate;
    const double until = next < waiting.size() ? std::min(first_done_s, waiting[next].begins_s) : first_done_s;
    for (auto& flow : moving) flow.remaining -= rate * (until - now);
    now = until;
    // Done within SimGrid's precision of a transfer (sg_surf_precision 1e-9 of a byte's worth): ended now.
    for (auto it = moving.begin(); it != moving.end();)
      if (it->remaining <= 1e-9 * rate) {
        ends[it->index] = now;
        it = moving.erase(it);
      } else {
        ++it;
      }
  }
  return ends;
}

double route_latency_paid_s(Host* from, Host* to) {
  std::vector<s4u::Link*> links;
  double latency_s = 0;
  from->route_to(to, links, &latency_s);
  return latency_paid_s(latency_s);
}

double latency_paid_s(double latency_s) { return latency_s * network_factors().latency; }

void transfer_streams(Host* from, Host* to, const std::vector<Stream>& streams) {
  if (streams.size() == 1) {  // the common case: one request, one flow
    sleep_for(streams.front().start_after_s);
    transfer(from, to, streams.front().bytes);
    return;
  }
  std::vector<size_t> order(streams.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return streams[a].start_after_s < streams[b].start_after_s; });
  const double start = now();
  std::vector<s4u::CommPtr> comms;
  std::vector<std::unique_ptr<TransferInFlight>> flights;
  for (size_t i : order) {
    sleep_until(start + streams[i].start_after_s);
    flights.push_back(std::make_unique<TransferInFlight>(from, to));
    comms.push_back(s4u::Comm::sendto_async(from, to, static_cast<uint64_t>(streams[i].bytes)));
  }
  s4u::Comm::wait_all(comms);
}

void transfer_all(const std::vector<Transfer>& transfers) {
  std::vector<s4u::CommPtr> comms;
  std::vector<std::unique_ptr<TransferInFlight>> flights;
  for (const auto& t : transfers) {
    flights.push_back(std::make_unique<TransferInFlight>(t.from, t.to));
    comms.push_back(s4u::Comm::sendto_async(t.from, t.to, static_cast<uint64_t>(t.bytes)));
  }
  s4u::Comm::wait_all(comms);
}

bool try_transfer(Host* from, Host* to, double bytes) {
  const TransferInFlight flight(from, to);
  try {
    s4u::Comm::sendto(from, to, static_cast<uint64_t>(bytes));
    return true;
  } catch (const simgrid::NetworkFailureException&) {
    return false;
  }
}

void compute(Host* host, double reference_seconds) {
  if (reference_seconds / host->get_speed() * kFlopsPerReferenceSecond < kTimePrecisionS) return;
  s4u::this_actor::exec_init(reference_seconds * kFlopsPerReferenceSecond)->set_host(host)->wait();
}

double compute_s(Host* host, double reference_seconds, bool throttled) {
  const double flops = reference_seconds * kFlopsPerReferenceSecond;
  const double seconds = flops / host->get_pstate_speed(throttled ? 1 : 0);
  return seconds < kTimePrecisionS ? 0 : seconds;
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
size_t daemons = 0;  // spawn_daemon's actors: alive until the others end

// Once every actor but `ending` ones waits for a task, none will come: the idle workers end, so the simulation
// ends as it would without them (SimGrid would otherwise see actors waiting for ever, a deadlock).
void end_idle_workers_if_alone(size_t ending) {
  if (idle_workers.empty() || s4u::Engine::get_instance()->get_actor_count() > idle_workers.size() + ending + daemons)
    return;
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

void spawn_daemon(const std::string& name, std::function<void()> body) {
  ++daemons;
  auto* host = s4u::Engine::get_instance()->get_all_hosts().front();
  s4u::Actor::create(name, host, std::move(body))->daemonize();
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
Channel::Pending::Pending(s4u::CommPtr comm, std::unique_ptr<TransferInFlight> flight)
    : comm_(std::move(comm)), flight_(std::move(flight)) {}
Channel::Pending::~Pending() = default;
Channel::Pending::Pending(Pending&&) noexcept = default;
void Channel::Pending::wait() {
  comm_->wait();
  flight_.reset();
}
// A message's other end is unknown here (a mailbox): its host counts as both ends.
Channel::Pending Channel::send_async(double bytes) {
  Host* self = s4u::this_actor::get_host();
  auto flight = std::make_unique<TransferInFlight>(self, self);
  return Pending(mailbox_->put_async(&payload, static_cast<uint64_t>(bytes)), std::move(flight));
}
void Channel::receive() {
  Host* self = s4u::this_actor::get_host();
  const TransferInFlight flight(self, self);
  mailbox_->get<int>();
}

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

Engine::Engine(const NetworkSettings& network) {
  if (engine_used) throw std::logic_error("a second simulation in one process: run each in its own (isolate.hpp)");
  engine_used = true;
  engine_network_factors.reset();
  impl_ = std::make_unique<Impl>();
  keep_freed_memory_in_heap();  // actors' stacks: reused from the heap, not mapped and unmapped one by one
  s4u::Engine::set_config("network/model:" + network.model);
  // Set before the platform exists: the model then takes them instead of its defaults.
  if (network.bandwidth_factor) s4u::Engine::set_config("network/bandwidth-factor", *network.bandwidth_factor);
  if (network.latency_factor) s4u::Engine::set_config("network/latency-factor", *network.latency_factor);
  if (network.tcp_gamma_bytes) s4u::Engine::set_config("network/TCP-gamma", *network.tcp_gamma_bytes);
  if (network.cross_traffic) s4u::Engine::set_config("network/crosstraffic", *network.cross_traffic);
  // Idle task workers left after a killed actor are no deadlock (end_idle_workers_if_alone could not run).
  s4u::Engine::on_deadlock_cb([this] {
    impl_->only_idle_workers_left = impl_->engine.get_actor_count() <= idle_workers.size() + daemons;
    impl_->deadlock = !impl_->only_idle_workers_left;
  });
}

Engine::~Engine() = default;

Engine::End Engine::run(double horizon_s, const std::function<void(double now_s)>& on_advance) {
  s4u::Engine::on_time_advance_cb([on_advance](double) {
    const double now_s = s4u::Engine::get_clock();
    if (nic_credits) nic_credits->advance(now_s);  // the NICs' use since the last event, before anything acts on it
    on_advance(now_s);
  });
  impl_->engine.run_until(horizon_s);
  const size_t left = impl_->engine.get_actor_count();
  const bool finished = left <= idle_workers.size() + daemons || impl_->only_idle_workers_left;
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
