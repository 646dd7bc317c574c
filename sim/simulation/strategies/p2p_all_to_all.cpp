// The paper's design (Barrak et al. 2023, https://github.com/AmineBarrak/PeerToPeerServerless): every peer
// computes its gradient (itself, or fanned out to functions), publishes it to the broker (inline, or as an
// object-storage key), collects every other peer's gradient, averages, updates, and optionally waits at a
// queue-count barrier. Asynchronous with a staleness bound; a peer that crashes stops wherever it is and is
// presumed dead by the others after a timeout; it may rejoin later.
#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <set>

#include "gradient.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class P2pAllToAll : public Strategy {
 public:
  P2pAllToAll(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    PlatformNeeds n = gradient_needs(s_, compute_);
    n.broker = true;  // the exchange goes through it too
    n.gradients_through_broker = inline_;
    return n;
  }
  // Per peer-iteration 6 phases of its own and, through storage, a deserialisation per other peer's gradient;
  // every delivery and its staleness recorded, and each gradient version averaged when the accuracy is replayed.
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    Footprint f = gradient_functions_footprint(s_, compute_);
    f.actors += P + 2;  // the crash daemon and its rejoin
    f.trace_rows += P + 6 * P * T + (inline_ ? 0 : P * (P - 1) * T) + (compute_ == GradientCompute::Functions ? 2 * P * T : 0);
    f.deliveries = P * (P - 1) * T + (s_.experiment.accuracy.enabled ? P * P * T : 0);
    f.max_peers = 1024;
    f.max_peers_why = "every peer exchanges with every other: P^2 flows an iteration, and a simulation's time grows "
                      "about as P^2.8 (256 peers x 2 iterations took 24 s, 2026-12-03)";
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return inline_ ? "inline" : "storage"; }
  std::string function_memory_timing() const override;

 private:
  void peer(Context& c, int peer);
  void run_iterations(Context& c, int peer, int first);
  void inject_crash(Context& c);
  void restart(Context& c, int peer, double down_since_s);
  void rejoin(Context& c, int peer);
  void send_gradient(Context& c, int peer, int iteration);
  void fetch_gradient(Context& c, int peer, int producer, int iteration);
  void receive_gradients(Context& c, int peer, int iteration);
  void aggregate_and_update(Context& c, int peer, int iteration);
  void barrier(Context& c, int peer, int iteration);
  std::vector<GradientVersion> averaged_gradients(int peer, int iteration);

  const Scenario& s_;
  GradientCompute compute_;
  bool inline_, barrier_;
  // The broker's queues: per producer, iterations published so far (in order).
  std::vector<int> progress_;
  sg::Signal published_;  // a peer published a gradient
  std::vector<std::vector<int>> next_to_fetch_;  // [consumer][producer]: first iteration not fetched yet
  std::vector<std::vector<GradientVersion>> unused_;  // [consumer]: fetched, not averaged yet (asynchronous)
  std::vector<std::vector<bool>> presumed_dead_;  // [consumer][producer]: gave up waiting for it
  std::vector<std::vector<bool>> arrived_;       // [iteration][peer]: reached that iteration's barrier
  std::vector<bool> down_;                       // per peer: crashed and not (yet) back
  std::vector<bool> gone_;                       // per peer: stopped for good (its workflow failed)
  std::vector<sg::Actor> actors_;                // per peer: its actor, for a crash to kill
  std::vector<int> iteration_;                   // per peer: the iteration it is in
  std::vector<bool> ended_;                      // per peer: finished (or stopped) its work
};

P2pAllToAll::P2pAllToAll(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  const auto& x = s.experiment.exchange;
  compute_ = read_gradient_compute(params, s, "peer");
  const bool on_peer = compute_ == GradientCompute::Peer;
  // Defaults per compute mode, the paper's: its instance script sends through the broker (inline while the
  // broker takes the message: auto) and waits at a barrier; its serverless script sends through storage without
  // one; asynchronous training has none. A system's transport and barrier say otherwise, as an old experiment's
  // <exchange instance_transport|serverless_transport> and <barrier instance|serverless> still do.
  const std::vector<std::string> transports{"inline", "storage", "auto"};
  const Transport default_transport = on_peer ? x.instance_transport.value_or(Transport::Auto)
                                              : x.serverless_transport.value_or(Transport::Storage);
  const std::string t = params.choice("transport", transports, transports[static_cast<int>(default_transport)]);
  inline_ = s.sends_inline(t == "inline" ? Transport::Inline : t == "storage" ? Transport::Storage : Transport::Auto);
  const auto& old_barrier = on_peer ? s.experiment.barrier.instance : s.experiment.barrier.serverless;
  barrier_ = params.boolean("barrier", old_barrier.value_or(on_peer && !s.experiment.asynchronous));
  params.reject_unread();
  if (inline_ && s.exchange_bytes > s.profile.broker.max_message_bytes) {
    const auto message = fmt::format(
        "a {}-byte {} gradient sent inline exceeds the broker's maximum message size of {} bytes (RabbitMQ would "
        "refuse it); use storage or auto",
        static_cast<long long>(s.exchange_bytes), s.experiment.workload.model, s.profile.broker.max_message_bytes);
    if (params.has("transport")) throw params.error("transport", message);
    throw s.experiment.error("exchange", on_peer ? "instance_transport" : "serverless_transport", message);
  }
  if (s.experiment.asynchronous && barrier_)
    throw params.error("barrier", "asynchronous training has no barrier: set barrier=\"false\"");
  const int n = s.experiment.peers;
  progress_.assign(n, 0);
  next_to_fetch_.assign(n, std::vector<int>(n, 0));
  unused_.assign(n, {});
  presumed_dead_.assign(n, std::vector<bool>(n, false));
  arrived_.assign(static_cast<size_t>(s.experiment.workload.iterations), std::vector<bool>(n, false));
  down_.assign(n, false);
  gone_.assign(n, false);
  iteration_.assign(n, 0);
  ended_.assign(n, false);
}

void P2pAllToAll::launch(Context& c) {
  for (int i = 0; i < c.peers(); ++i)
    actors_.push_back(sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); }));
  // The crash comes from outside the peer, as a daemon: a crash scheduled after training has ended never happens,
  // instead of keeping the simulation running until its time.
  if (s_.experiment.crash_peer >= 0) sg::spawn_daemon("crash", [this, &c] { inject_crash(c); });
}

/// Publishes the peer's gradient for `iteration`: inline through the broker, or as an object whose key goes
/// through the broker.
void P2pAllToAll::send_gradient(Context& c, int peer, int iteration) {
  const double start = sg::now();
  peer_cpu(c, peer, s_.encode_s);
  // Into bytes: torch.save to storage (the serverless script), numpy's tobytes inline (the instance one).
  serialize(c, peer, iteration, s_.exchange_bytes);
  if (inline_) {
    c.broker.receive_inline(c.hosts.peers[peer], s_.exchange_bytes);
  } else {
    c.storage.put(c.storage_client(peer), s_.exchange_bytes);
    c.broker.request();
  }
  c.broker.process_message();
  progress_[peer] = iteration + 1;  // published in order
  for (auto& row : presumed_dead_) row[peer] = false;  // alive after all
  published_.notify_all();
  c.trace(peer, iteration, Phase::Send, start);
}

/// Transfers producer's message for `iteration` to `peer` (the gradient itself, or the key then the object).
void P2pAllToAll::fetch_gradient(Context& c, int peer, int producer, int iteration) {
  if (inline_) {
    c.broker.process_message();
    c.broker.deliver_inline(c.hosts.peers[peer], s_.exchange_bytes);
  } else {
    c.storage.get(c.storage_client(peer), s_.exchange_bytes);
    // torch.load (inline, np.frombuffer copies nothing), in the consumer's iteration
    deserialize(c, peer, iteration_[peer], s_.exchange_bytes);
  }
  peer_cpu(c, peer, s_.decode_s);
  c.out.deliveries.push_back({peer, producer, iteration});
  if (s_.experiment.asynchronous && s_.experiment.accuracy.enabled) unused_[peer].push_back({producer, iteration});
}

/// What the peer's update of `iteration` averaged, its own gradient first. Synchronous: every other peer's
/// gradient of this iteration that it holds (a peer presumed dead is missing). Asynchronous: every gradient
/// fetched since its last update, whatever iteration each is of, as the paper's peers average what their
/// queues held.
std::vector<GradientVersion> P2pAllToAll::averaged_gradients(int peer, int iteration) {
  std::vector<GradientVersion> gradients{{peer, iteration}};
  if (s_.experiment.asynchronous) {
    gradients.insert(gradients.end(), unused_[peer].begin(), unused_[peer].end());
    unused_[peer].clear();
  } else {
    for (int j = 0; j < static_cast<int>(next_to_fetch_[peer].size()); ++j)
      if (j != peer && next_to_fetch_[peer][j] > iteration) gradients.push_back({j, iteration});
  }
  return gradients;
}

/// Collects the other peers' gradients for `iteration`. Every gradient already published is fetched (in
/// order per producer); the peer goes on once it holds every gradient up to iteration - k, k being the
/// staleness bound: 0 when synchronous (all of this iteration's), so a peer is never more than k iterations
/// ahead of the slowest. Polling as the paper's code does (one basic_get per message and queue per round,
/// then a sleep), or pushed by the broker as soon as published.
void P2pAllToAll::receive_gradients(Context& c, int peer, int iteration) {
  const double start = sg::now();
  const int n = c.peers();
  const int k = s_.experiment.staleness_bound;
  auto& next = next_to_fetch_[peer];  // per producer: the first iteration not fetched yet
  double last_progress_s = start;     // when the last gradient arrived: waiting after it is for the dead only
  auto fetch_next = [&](int j) {
    c.out.staleness.push_back(std::max(0, iteration - next[j]));
    fetch_gradient(c, peer, j, next[j]++);
    last_progress_s = sg::now();
  };
  auto& dead = presumed_dead_[peer];
  auto caught_up = [&] {
    for (int j = 0; j < n; ++j)
      if (j != peer && !dead[j] && next[j] < iteration + 1 - k) return false;
    return true;
  };
  // After waiting peer_timeout_s, whoever is still missing is presumed dead and left out (until it publishes).
  const double timeout_s = s_.experiment.peer_timeout_s;
  const double timeout_at = timeout_s > 0 ? start + timeout_s : std::numeric_limits<double>::infinity();
  auto give_up = [&] {
    for (int j = 0; j < n; ++j)
      if (j != peer && !dead[j] && next[j] < iteration + 1 - k) dead[j] = true;
    c.out.failure_detection_wait_s += sg::now() - last_progress_s;
  };
  if (s_.experiment.exchange.consume == Consume::Poll) {
    for (;;) {
      for (int j = 0; j < n; ++j) {
        if (j == peer) continue;
        c.broker.request();  // basic_get on j's queue
        while (next[j] < progress_[j]) {
          fetch_next(j);
          c.broker.request();  // the next basic_get on the same queue
        }
      }
      if (caught_up()) break;
      if (sg::now() >= timeout_at) {
        give_up();
        break;
      }
      sg::sleep_for(s_.experiment.exchange.poll_interval_s);
    }
  } else {
    while (!caught_up()) {
      int ready = -1;
      auto something_new = [&] {
        for (int j = 0; j < n && ready < 0; ++j)
          if (j != peer && next[j] < progress_[j]) ready = j;
        return ready >= 0;
      };
      if (timeout_s > 0)
        published_.wait_for(something_new, timeout_at);
      else
        published_.wait_for(something_new);
      if (ready < 0) {
        give_up();
        break;
      }
      fetch_next(ready);
    }
  }
  c.trace(peer, iteration, Phase::Receive, start);
}

/// Equal-weight mean of the gradients held (its own and every peer's not presumed dead), then the SGD step
/// (costed as one more two-gradient pass).
void P2pAllToAll::aggregate_and_update(Context& c, int peer, int iteration) {
  const double start = sg::now();
  const double e = static_cast<double>(s_.parameters);
  const int held = static_cast<int>(std::count(presumed_dead_[peer].begin(), presumed_dead_[peer].end(), false));
  peer_cpu(c, peer, s_.average_seconds(e, held) + s_.average_seconds(e, 2));
  c.trace(peer, iteration, Phase::AggregateUpdate, start);
}

/// The instance script's barrier: publish to a sync queue, wait, poll its count until it holds every live
/// peer, settle, purge.
void P2pAllToAll::barrier(Context& c, int peer, int iteration) {
  const auto& b = s_.experiment.barrier;
  const double start = sg::now();
  c.broker.request();
  arrived_[iteration][peer] = true;
  sg::sleep_for(b.initial_wait_s);
  // Complete once every peer that is up has arrived (a crashed or stopped peer is not waited for).
  auto complete = [&] {
    for (int j = 0; j < c.peers(); ++j)
      if (!arrived_[iteration][j] && !down_[j] && !gone_[j]) return false;
    return true;
  };
  for (;;) {
    c.broker.request();  // queue_declare(passive) -> message_count
    if (complete()) break;
    sg::sleep_for(b.poll_interval_s);
  }
  sg::sleep_for(b.settle_s);
  c.trace(peer, iteration, Phase::Barrier, start);
}

/// The declared crash: at crash_at_s the peer stops wherever it is (its transfers cancelled, its functions left
/// to finish on their own); its instance is gone. When it rejoins, after rejoin_after_s, it reloads its shard
/// and catches up at the others' furthest iteration. The others presume it dead after their timeout and leave
/// it out until it publishes again.
void P2pAllToAll::inject_crash(Context& c) {
  const auto& e = s_.experiment;
  const int peer = e.crash_peer;
  sg::sleep_until(e.crash_at_s);
  if (ended_[peer]) return;  // it had finished before
  actors_[peer].kill();
  down_[peer] = true;
  c.out.peer_end_s[peer] = sg::now();
  const double start = sg::now();
  if (e.rejoin_after_s <= 0) {
    c.trace(peer, iteration_[peer], Phase::Down, start);
    return;
  }
  // Its instance is gone: billed until now. It comes back as a new instance, with a new credit balance; the wait
  // for it is an actor of its own, not the daemon: a peer down and due back keeps the simulation running.
  c.out.ledger.instances.push_back({s_.peer_type(peer).name, sg::now() - c.peer_started_s[peer]});
  sg::spawn("rejoin", c.hosts.storage, [this, &c, peer, start] { restart(c, peer, start); });
}

void P2pAllToAll::restart(Context& c, int peer, double down_since_s) {
  const auto& e = s_.experiment;
  sg::sleep_until(e.crash_at_s + e.rejoin_after_s);
  c.trace(peer, iteration_[peer], Phase::Down, down_since_s);
  c.peer_started_s[peer] = sg::now();
  c.renew_storage_client(peer);
  c.credits[peer] = CpuCredits(s_.peer_type(peer));
  down_[peer] = false;
  actors_[peer] = sg::spawn("peer-" + std::to_string(peer) + "-rejoined", c.hosts.peers[peer],
                            [this, &c, peer] { rejoin(c, peer); });
}

void P2pAllToAll::rejoin(Context& c, int peer) {
  if (compute_ == GradientCompute::Peer) load_shard(c, peer, iteration_[peer]);
  int first = iteration_[peer];
  for (int j = 0; j < c.peers(); ++j)
    if (j != peer) first = std::max(first, progress_[j]);
  first = std::min(first, static_cast<int>(s_.experiment.workload.iterations) - 1);
  // It skips the iterations it missed: nobody waits for its gradients or barrier arrivals of those, and it
  // does not fetch the others' gradients of those either.
  progress_[peer] = std::max(progress_[peer], first);
  for (auto& row : next_to_fetch_) row[peer] = std::max(row[peer], first);
  for (auto& next : next_to_fetch_[peer]) next = std::max(next, first);
  for (int t = iteration_[peer]; t < first; ++t) arrived_[t][peer] = true;
  published_.notify_all();
  run_iterations(c, peer, first);
}

void P2pAllToAll::peer(Context& c, int peer) {
  if (start_peer(c, peer, compute_))
    run_iterations(c, peer, 0);
  else
    ended_[peer] = true;  // its first minibatch died: this system cannot train
}

void P2pAllToAll::run_iterations(Context& c, int peer, int first) {
  for (int it = first; it < s_.experiment.workload.iterations; ++it) {
    iteration_[peer] = it;
    if (!compute_gradient(c, peer, it, compute_)) {  // it exits: the others stop waiting for it
      gone_[peer] = true;
      for (auto& row : presumed_dead_) row[peer] = true;
      published_.notify_all();
      break;
    }
    send_gradient(c, peer, it);
    receive_gradients(c, peer, it);
    aggregate_and_update(c, peer, it);
    if (barrier_) barrier(c, peer, it);
    c.complete_iteration(peer, it, s_.experiment.accuracy.enabled ? averaged_gradients(peer, it)
                                                                  : std::vector<GradientVersion>{});
  }
  c.out.peer_end_s[peer] = sg::now();
  ended_[peer] = true;
}

// Its functions read the memory size only through their CPU (speed, share below one vCPU, encoding), their
// storage rates and each minibatch size's step time: two sizes that give the same list simulate the same.
std::string P2pAllToAll::function_memory_timing() const {
  const Scenario& s = s_;
  std::set<long long> sizes;
  for (size_t g = 0; g < s.peer_groups.size(); ++g)
    for (size_t k = 0; k < s.peer_groups[g].invocations.size(); ++k) {
      if (!s.invocation_fits(static_cast<int>(g), k)) return "";
      sizes.insert(s.peer_groups[g].invocations[k].begin(), s.peer_groups[g].invocations[k].end());
    }
  // Its storage rates too, which follow the memory size (its CPU share). One stream per object (the design's
  // get_object / put_object) moves at the smaller of the two; several streams can draw on all its network.
  const auto rates =
      s.profile.functions.storage_rates(s.experiment.functions.memory_mb, function_client_rate(s, transfers()));
  // The network's token bucket too: under a scaled quota its sustained rate follows the memory size.
  const std::string storage =
      (transfers().max_streams == 1 ? fmt::format("{:a}", std::min(rates.all_streams_bps, rates.stream_bps))
                                    : fmt::format("{:a} {:a}", rates.all_streams_bps, rates.stream_bps)) +
      fmt::format(" bucket {:a} {:a} {:a}", rates.sustained_bps, rates.burst_bytes, rates.refill_bps);
  std::string timing = fmt::format("speed {:a} share {:a} encode {:a} storage {} steps", s.function_speed_factor,
                                   std::min(1.0, s.function_vcpus), s.function_encode_s, storage);
  for (long long b : sizes) timing += fmt::format(" {}:{:a}", b, s.reference_step_s(StepTarget::Function, b));
  return timing;
}

}  // namespace

std::unique_ptr<Strategy> make_p2p_all_to_all(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<P2pAllToAll>(system, s);
}

}  // namespace p2psim::simulation
