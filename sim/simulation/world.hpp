// The state one simulated run shares between its actors. SimGrid runs one actor at a time, so plain
// members need no locking; simulated waiting uses SimGrid's own synchronisation objects.
#pragma once
#include <simgrid/s4u.hpp>

#include <deque>
#include <random>
#include <vector>

#include "../cpu_credits.hpp"
#include "../scenario.hpp"
#include "run_output.hpp"

namespace p2psim::simulation {

namespace sg4 = simgrid::s4u;

struct Hosts {
  std::vector<sg4::Host*> peers, function_slots;
  sg4::Host* broker = nullptr;
  sg4::Host* storage = nullptr;
};

/// Builds the platform (a full zone: per-peer NICs, per-peer S3 connection caps, the S3 aggregate link, the
/// broker's NIC and one network slot per function container) with SimGrid's C++ API.
Hosts build_platform(const Scenario& s, int function_slots);

/// Gradient messages as the broker holds them: one per producer and iteration, readable by every consumer.
struct Board {
  std::vector<int> progress;  // per producer: iterations published so far (in order)
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr changed = sg4::ConditionVariable::create();
};

/// A Lambda-like container pool: warm containers reused newest first within the keep-alive, reclaimed
/// after it, and a concurrency limit beyond which invocations queue.
class FunctionPool {
 public:
  FunctionPool(int concurrency_limit, double keep_alive_s, int slots);
  struct Lease {
    int slot;
    bool cold;
  };
  Lease acquire();   // blocks while `concurrency_limit` invocations run
  void release(int slot);
  void discard(int slot);  // the container died (e.g. out of memory): its slot is free, nothing stays warm
  int max_alive() const { return max_alive_; }

 private:
  struct Idle {
    int slot;
    double since_s;
  };
  sg4::SemaphorePtr running_;
  double keep_alive_s_;
  std::deque<Idle> idle_;  // oldest first
  std::vector<int> free_slots_;
  int alive_ = 0, max_alive_ = 0;
};

struct World {
  const Scenario& s;
  Architecture arch;
  Hosts hosts;
  RunOutput out;
  std::mt19937_64 rng;
  Board board;
  FunctionPool pool;
  sg4::MutexPtr broker_cpu = sg4::Mutex::create();
  std::vector<int> barrier_arrivals;  // peers that reached each iteration's barrier
  std::vector<CpuCredits> credits;    // per peer: its burstable CPU credits
  std::vector<std::vector<int>> next_to_fetch;  // [consumer][producer]: first iteration not fetched yet
  std::vector<std::vector<bool>> presumed_dead;  // [consumer][producer]: gave up waiting for it
  std::vector<bool> down;                        // per peer: crashed and not (yet) back

  World(const Scenario& scenario, Architecture a, int function_slots);

  int peers() const { return s.experiment.peers; }
  void trace(int peer, int iteration, Phase phase, double start_s, int invocation = -1) {
    out.trace.push_back({peer, iteration, invocation, phase, start_s, sg4::Engine::get_clock()});
  }
  /// Measured-spread noise for one training step (1 when the experiment asks for none), times a heavy-tail
  /// straggler factor when the experiment declares one.
  double step_noise();
  /// How many times slower this peer's own CPU is (the experiment's straggler slowdown; 1 by default).
  double slowdown(int peer) const {
    const auto& f = s.experiment.stragglers.slowdown;
    return static_cast<size_t>(peer) < f.size() ? f[peer] : 1.0;
  }
  /// A standard normal draw from our own generator: portable, unlike std::normal_distribution.
  double standard_normal();
  /// A uniform draw in [0, 1) from the exact 64-bit output of the generator.
  double uniform() { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
};

// Services, each a few simulated operations (services.cpp).
void storage_get(World& w, sg4::Host* to, double bytes);
void storage_put(World& w, sg4::Host* from, double bytes);
void wait_for_broker(World& w);      // returns at once unless the broker is in a declared outage
void broker_request(World& w);       // one request round trip (publish of a key, basic_get)
void broker_process_message(World& w);  // the broker's per-message CPU, one message at a time

// The peer actors (peers.cpp).
void instance_peer(World& w, int peer);
void serverless_peer(World& w, int peer);

}  // namespace p2psim::simulation
