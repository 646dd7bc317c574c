#include "simulate.hpp"

#include <xbt/log.h>

#include "world.hpp"

namespace p2psim {

RunOutput simulate(const Scenario& s, Architecture a) {
  namespace sg4 = simgrid::s4u;
  using namespace simulation;
  int argc = 1;
  char name[] = "p2psim";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  sg4::Engine::set_config("network/model:" + s.profile.network_model);
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });

  const int peers = s.experiment.peers;
  // A container occupies a network slot while alive; at most min(limit, invocations in flight) are alive.
  const int slots = a == Architecture::Serverless
                        ? std::min<int>(s.profile.functions.concurrency_limit,
                                        peers * static_cast<int>(s.invocations.size()))
                        : 0;
  World w(s, a, slots);
  w.hosts = build_platform(s, slots);
  w.out.peer_end_s.assign(peers, 0);
  w.out.ledger.function_memory_mb = s.experiment.functions.memory_mb;
  w.out.ledger.function_price_per_gb_s_usd = s.function_price_per_gb_s_usd;
  w.out.ledger.instance_price_per_hour_usd = s.peer_type.price_per_hour_usd;
  for (int i = 0; i < peers; ++i)
    sg4::Actor::create("peer-" + std::to_string(i), w.hosts.peers[i],
                       a == Architecture::Instance ? instance_peer : serverless_peer, std::ref(w), i);
  engine.run();
  if (deadlock) throw std::runtime_error("the simulation deadlocked: some peer waits for a gradient that never comes");

  w.out.max_containers = w.pool.max_alive();
  for (const auto& c : w.credits) {
    w.out.credits_exhausted_at_s.push_back(c.exhausted_at_s());
    w.out.ledger.surplus_credits += c.surplus_credits();
  }
  w.out.ledger.peer_uptime_s = w.out.peer_end_s;
  w.out.ledger.broker_uptime_s = *std::max_element(w.out.peer_end_s.begin(), w.out.peer_end_s.end());
  return std::move(w.out);
}

}  // namespace p2psim
