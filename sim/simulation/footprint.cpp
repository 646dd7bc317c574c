#include "footprint.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>

#include "../inputs/limits.hpp"
#include "strategies/params.hpp"

namespace p2psim::simulation {
namespace {

// The most memory maps a process may hold (Linux's vm.max_map_count); 0 when unknown.
double max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  double n = 0;
  in >> n;
  return n;
}

}  // namespace

RunEstimate estimate_run(const Scenario& s, const Strategy& strategy, bool exact_participants) {
  const Footprint f = strategy.footprint(exact_participants);
  const PlatformNeeds n = strategy.needs();
  const double peers = s.experiment.peers, slots = n.function_slots, servers = static_cast<double>(n.servers.size());
  // Routes the platform declares (sg/platform.cpp): each participant to storage and the broker, the peers'
  // mesh or ring, function slots to every peer, servers to each other and to everyone; each route both ways.
  const double connections = peers * 2 + slots + (n.peer_to_peer ? peers * (peers - 1) : n.peer_ring ? peers : 0) +
                             (n.functions_reach_peers ? slots * peers : 0) + servers * (1 + servers + peers + slots);
  RunEstimate e;
  e.actors = f.actors;
  e.trace_rows = f.trace_rows;
  e.deliveries = f.deliveries;
  e.routes = 2 * connections;
  e.child_bytes = e.actors * limits::kBytesPerActor + e.routes * limits::kBytesPerRoute +
                  e.deliveries * limits::kBytesPerDelivery;
  return e;
}

double estimated_peak_bytes(const std::vector<RunEstimate>& systems) {
  double rows = 0, largest_child = 0;
  for (const auto& e : systems) {
    rows += e.trace_rows;
    largest_child = std::max(largest_child, e.child_bytes);
  }
  return limits::kBaseBytes + rows * limits::kBytesPerTraceRecord + largest_child;
}

void check_footprints(const Scenario& s, const std::vector<const SystemSpec*>& systems,
                      const std::vector<RunEstimate>& estimates, const std::vector<Footprint>& footprints) {
  const double maps = max_map_count();
  for (size_t i = 0; i < systems.size(); ++i) {
    const auto& f = footprints[i];
    const StrategyParams params(*systems[i]);
    if (f.max_peers > 0 && s.experiment.peers > f.max_peers) {
      const std::string why = fmt::format("{} is simulated with up to {} peers, not {}: {} (docs/limits.md)",
                                          systems[i]->strategy, f.max_peers, s.experiment.peers, f.max_peers_why);
      // A system the file does not declare (the paper's two, by default) has no line: the peers' count has one (with
      // <group>s, their total, at <peers>).
      const auto& groups = s.experiment.peer_groups;
      if (systems[i]->line == 0)
        throw InputError(s.experiment.path, s.experiment.peers_line,
                         groups.size() == 1 ? "peers/@count" : "peers/group/@count (their total)",
                         "system '" + systems[i]->name + "': " + why);
      throw params.error("strategy", why);
    }
    // Each actor's stack is a mapping and its guard page splits it in two; the process itself holds about 200.
    const double actor_limit = (maps - limits::kMapsOfProcess) / limits::kMapsPerActor;
    if (maps > 0 && estimates[i].actors > actor_limit)
      throw params.error("strategy", fmt::format("{:.0f} actors (peers and the design's own) need about {:.0f} memory "
                                                 "maps, more than this machine's vm.max_map_count ({:.0f}) allows: at "
                                                 "most {:.0f} actors; fewer peers, or raise it (sysctl "
                                                 "vm.max_map_count) (docs/limits.md)",
                                                 estimates[i].actors, estimates[i].actors * limits::kMapsPerActor +
                                                 limits::kMapsOfProcess, maps, actor_limit));
  }
  const double need = estimated_peak_bytes(estimates), have = limits::available_memory_bytes();
  if (have <= 0 || need <= 0.8 * have) return;
  double rows = 0, deliveries = 0;
  for (const auto& e : estimates) {
    rows += e.trace_rows;
    deliveries = std::max(deliveries, e.deliveries);
  }
  throw s.experiment.error(
      "workload", "iterations",
      fmt::format("{} peers x {} iterations would need about {:.1f} GB ({:.3g} trace records at about {:.0f} B each, "
                  "{:.3g} per-gradient records at about {:.0f} B, and the largest system's actors and routes), more "
                  "than 80 % of the {:.1f} GB this machine has available: fewer peers or iterations, or a larger "
                  "machine (docs/limits.md)",
                  s.experiment.peers, s.experiment.workload.iterations, need / 1e9, rows,
                  limits::kBytesPerTraceRecord, deliveries, limits::kBytesPerDelivery, have / 1e9));
}

}  // namespace p2psim::simulation
