// SimGrid's own cost per transfer as the number of actors transferring at once grows, with none of p2psim's
// model: N clients, each on its own host behind its own link, fetch K objects one after another from one
// server. Two ways to make a host-to-host transfer:
//  - sendto: S4U's Comm::sendto, as p2psim's adapter does. SimGrid 3.32 detaches it, keeps it in one list of
//    every detached transfer in flight and, when it ends, removes it with std::list::remove: a walk over all
//    of them (src/kernel/activity/CommImpl.cpp, CommImpl::finish);
//  - courier: a mailbox transfer whose other end is a courier actor on the server, one per client, woken by a
//    semaphore. Nothing is detached, so no walk; but two actors and a semaphore per transfer.
// Both give the same simulated times (printed, for bench/engine_floor.py to compare). SimGrid runs one engine
// per process, so the script runs this once per configuration.
// Usage: engine_floor CLIENTS TRANSFERS_PER_CLIENT sendto|courier
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace s4u = simgrid::s4u;

namespace {

struct Courier {
  s4u::Mailbox* mailbox = nullptr;
  s4u::SemaphorePtr wake;
  uint64_t bytes = 0;
  bool done = false;
};

// Sizes from 1 to 2 MB, varied so that transfers do not all end at once.
uint64_t object_bytes(int client, int k) { return 1000000 + (k * 7919ULL + client * 104729ULL) % 1000000; }

}  // namespace

int main(int argc, char** argv) {
  s4u::Engine engine(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CLIENTS TRANSFERS_PER_CLIENT sendto|courier\n", argv[0]);
    return 2;
  }
  const int clients = std::atoi(argv[1]);
  const int transfers = std::atoi(argv[2]);
  const bool courier = std::string(argv[3]) == "courier";
  s4u::Engine::set_config("contexts/stack-size:64");  // as p2psim's adapter: thousands of actors
  // Routes as p2psim's platform makes them: an empty zone with one bypass route per pair (no hosts² table).
  // Speeds, bandwidths and the latency are synthetic, not a cloud's: only how the cost grows with N matters.
  auto* zone = s4u::create_empty_zone("bench");
  auto* server = zone->create_host("server", 1e9)->seal();
  std::vector<s4u::Host*> hosts;
  for (int i = 0; i < clients; ++i) {
    auto* host = zone->create_host("client-" + std::to_string(i), 1e9)->seal();
    auto* link = zone->create_link("link-" + std::to_string(i), 1e8)->set_latency(1e-4)->seal();
    zone->add_bypass_route(server->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(link)});
    zone->add_bypass_route(host->get_netpoint(), server->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(link)});
    hosts.push_back(host);
  }
  zone->seal();

  std::vector<Courier> couriers(courier ? clients : 0);
  for (int i = 0; i < clients; ++i) {
    if (courier) {
      couriers[i].mailbox = s4u::Mailbox::by_name("courier-" + std::to_string(i));
      couriers[i].wake = s4u::Semaphore::create(0);
      s4u::Actor::create("courier-" + std::to_string(i), server, [&c = couriers[i]] {
        static int payload;
        for (c.wake->acquire(); !c.done; c.wake->acquire()) c.mailbox->put(&payload, c.bytes);
      });
    }
    s4u::Actor::create("client-" + std::to_string(i), hosts[i], [i, transfers, courier, server, &couriers] {
      s4u::this_actor::sleep_for(i * 1e-3);  // staggered starts
      for (int k = 0; k < transfers; ++k) {
        if (courier) {
          couriers[i].bytes = object_bytes(i, k);
          couriers[i].wake->release();
          couriers[i].mailbox->get<int>();
        } else {
          s4u::Comm::sendto(server, s4u::this_actor::get_host(), object_bytes(i, k));
        }
      }
      if (courier) {
        couriers[i].done = true;
        couriers[i].wake->release();
      }
    });
  }
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("clients=%d transfers=%lld mode=%s run_wall_s=%.6f simulated_end_s=%.9f\n", clients,
              static_cast<long long>(clients) * transfers, courier ? "courier" : "sendto", wall_s,
              s4u::Engine::get_clock());
  return 0;
}
