// One system of a scenario: its strategy, the platform it needs, the services, the engine; then the usage the
// services metered, as records (no prices here: they are applied after the run).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "../inputs/limits.hpp"
#include "../util/isolate.hpp"
#include "context.hpp"
#include "footprint.hpp"
#include "mechanisms_used.hpp"
#include "simulate.hpp"
#include "strategies/computed_invocations.hpp"
#include "strategies/params.hpp"
#include "strategies/strategy.hpp"

namespace p2psim {
namespace {

// Long runs say how far they are, on stderr, every few seconds of wall time (the first after 5 s): simulated
// time and the share of peer-iterations done, so a user can tell slow from stuck and interrupt knowingly.
std::function<void(double)> progress_reporter(const SystemSpec& system, const simulation::Context& c) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto next = start + std::chrono::seconds(5);
  long long calls = 0;
  return [&system, &c, start, next, calls](double now_s) mutable {
    if (++calls % 1024 != 0) return;  // the clock is read once per 1,024 advances
    const auto t = Clock::now();
    if (t < next) return;
    next = t + std::chrono::seconds(10);
    long long done = 0;
    for (int n : c.out.iterations_done) done += n;
    const double planned = static_cast<double>(c.s.experiment.peers) * c.s.experiment.workload.iterations;
    std::fprintf(stderr, "p2psim: simulating %s: %.0f simulated s, %.1f %% of peer-iterations done, %.0f s elapsed\n",
                 system.name.c_str(), now_s, 100.0 * static_cast<double>(done) / planned,
                 std::chrono::duration<double>(t - start).count());
  };
}

}  // namespace

SystemEstimates estimate_systems(const Scenario& s, bool exact_participants) {
  SystemEstimates out;
  for (const auto& system : s.experiment.systems) {
    const auto strategy = simulation::make_strategy(system, s);
    if (!strategy->needs().broker && !s.experiment.broker_outages.empty())
      throw simulation::StrategyParams(system).error(
          "strategy", "this design runs no broker, so the broker outages declared in <failures> would not apply to it");
    out.systems.push_back(&system);
    out.estimates.push_back(simulation::estimate_run(s, *strategy, exact_participants));
    out.footprints.push_back(strategy->footprint(exact_participants));
    out.needs.push_back(strategy->needs());
  }
  return out;
}

void check_systems(const Scenario& s, bool exact_participants) {
  const SystemEstimates e = estimate_systems(s, exact_participants);
  simulation::check_footprints(s, e.systems, e.estimates, e.footprints);
}

void prepare_simulations() { sg::start_simgrid(); }

namespace {

sg::PlatformSpec platform_spec(const Scenario& s, const simulation::PlatformNeeds& needs,
                               const simulation::TransferConfig& transfers) {
  sg::PlatformSpec spec;
  const auto& p = s.profile;
  spec.one_way_latency_s = p.one_way_latency_s;
  spec.storage_aggregate_bps = p.storage.aggregate_bandwidth_bps;
  spec.storage_stream_bps = p.storage.stream_bandwidth_bps;
  // One flow between two instances: capped lower outside a cluster placement group than inside one.
  spec.single_flow_bps = s.experiment.cluster_placement && p.single_flow_placement_group_bps > 0
                             ? p.single_flow_placement_group_bps
                             : p.single_flow_bps;
  spec.cross_traffic = p.network_model.cross_traffic.value_or(true);  // SimGrid's default: on
  spec.peer_storage_streams = spec.function_storage_streams = transfers.max_streams;
  spec.broker_nic_bps = p.broker.nic_bandwidth_bps;
  for (const auto& w : s.experiment.broker_outages) spec.broker_outages.emplace_back(w.from_s, w.to_s);
  for (int i = 0; i < s.experiment.peers; ++i) {
    const auto& t = s.peer_type(i);
    const double speed = simulation::peer_speed_factor(s, i);
    const CpuCredits credits(t);  // a standard-mode burstable instance slows to its baseline share
    spec.peers.push_back({"peer-" + std::to_string(i), speed, t.nic_start_bps(),
                          credits.throttles() ? speed * credits.baseline_share() : 0, t.nic_bandwidth_bps,
                          t.nic_bursts() ? t.nic_credit_s * t.nic_bandwidth_bps : 0,
                          simulation::instance_client_bps(s, t, speed, transfers)});
  }
  spec.peer_to_peer = needs.peer_to_peer;
  spec.peer_ring = needs.peer_ring;
  spec.functions_reach_peers = needs.functions_reach_peers;
  for (const auto& server : needs.servers) {
    const auto& type = p.instance_types.at(server.instance_type);
    // An "up to" type bursts as a peer of its type does (AWS's instance tables, the profile's N1), from a full bucket.
    const double speed = s.instance_speed_factor(type);
    spec.servers.push_back({server.name, speed, type.nic_start_bps(), 0, type.nic_bandwidth_bps,
                            type.nic_bursts() ? type.nic_credit_s * type.nic_bandwidth_bps : 0,
                            simulation::instance_client_bps(s, type, speed, transfers)});
  }
  spec.function_slots = needs.function_slots;
  spec.function_speed_factor = s.function_speed_factor;
  // The fastest network any of the design's functions may have (their slots are shared between functions).
  std::vector<int> sizes = needs.function_memory_mb;
  if (sizes.empty()) sizes.push_back(s.experiment.functions.memory_mb);
  for (int mb : sizes) {
    const auto route = simulation::function_storage_route(
        p.functions, p.one_way_latency_s, mb,
        simulation::function_client_rate(s, transfers));
    spec.function_nic_bps = std::max(spec.function_nic_bps, route.nic_bps);
    spec.function_stream_bps = std::max(spec.function_stream_bps, route.flow_cap_bps);
  }
  return spec;
}

}  // namespace

sg::PlatformSpec platform_spec(const Scenario& s, const SystemSpec& system) {
  const auto strategy = simulation::make_strategy(system, s);
  return platform_spec(s, strategy->needs(), strategy->transfers());
}

bool simulation_may_be_void(const Scenario& s, const SystemSpec& system, sg::StorageSharing storage_sharing) {
  return storage_sharing == sg::StorageSharing::Optimistic && sg::storage_link_may_bind(platform_spec(s, system));
}

RunOutput simulate_isolated(const Scenario& s, const SystemSpec& system, sg::StorageSharing storage_sharing,
                            bool exact_participants) {
  prepare_simulations();  // once here, not in every child
  // Bytes through the pipe (run_output.hpp): doubles travel as their 8 bytes, neither printed nor parsed.
  auto in_child = [&](sg::StorageSharing sharing) {
    return run_output_from_bytes(
        run_isolated([&] { return to_bytes(simulate(s, system, sharing, exact_participants)); }));
  };
  RunOutput out = in_child(storage_sharing);
  if (out.void_storage_link_bound) out = in_child(sg::StorageSharing::Exact);
  return out;
}

RunOutput simulate(const Scenario& s, const SystemSpec& system, sg::StorageSharing storage_sharing,
                   bool exact_participants) {
  using namespace simulation;
  const auto& model = s.profile.network_model;
  // First: what uses SimGrid is destroyed before it.
  sg::Engine engine({model.name, model.bandwidth_factor, model.latency_factor, model.tcp_gamma_bytes, model.cross_traffic});
  auto strategy = make_strategy(system, s);
  const PlatformNeeds needs = strategy->needs();
  sg::PlatformSpec spec = platform_spec(s, needs, strategy->transfers());
  spec.storage_sharing = storage_sharing;
  spec.function_slots_virtual = invocations_computable(s, needs, spec);

  Context c(s, system, sg::build_platform(spec), strategy->transfers(), strategy->functions_fetch_model());
  c.out.transport = strategy->transport();
  c.exact_participants = exact_participants;
  strategy->launch(c);
  const auto end = engine.run(limits::kMaxSimulatedSeconds, progress_reporter(system, c));
  const double stop_s = sg::now();
  // Computed transfers the watch was not told of yet (those after the last actor's last look) count too.
  const bool within_storage_link = end != sg::Engine::End::Abandoned && c.pending.settle(stop_s, c.out);
  if (!within_storage_link) {
    if (!c.hosts.storage_watch.exceeded()) throw std::logic_error("a simulation was abandoned for no known reason");
    RunOutput void_output;
    void_output.void_storage_link_bound = true;
    return void_output;
  }
  const bool deadlocked = end == sg::Engine::End::Deadlocked;
  if (end == sg::Engine::End::PastHorizon && c.out.failure.empty())
    c.out.failure = fmt::format("{}: still running after {:.0f} simulated seconds (a year, p2psim's limit; "
                                "docs/limits.md)", system.name, limits::kMaxSimulatedSeconds);
  // A system that failed (e.g. a peer out of memory) can leave the others waiting for it for ever: that is
  // the failure already recorded. Anything else left waiting is a bug in a strategy.
  if (deadlocked && c.out.failure.empty())
    throw std::runtime_error("the simulation of system '" + system.name +
                             "' deadlocked: some participant waits for a message that never comes");

  c.out.cold_starts = c.functions.cold_starts();
  c.out.warm_starts = c.functions.warm_starts();
  c.out.max_containers = c.functions.max_alive();
  for (const auto& credits : c.credits) {
    c.out.credits_exhausted_at_s.push_back(credits.exhausted_at_s());
    c.out.ledger.surplus_credits += credits.surplus_credits();
  }
  // Peers left waiting for a failed one ran until the simulation stopped.
  for (int i = 0; i < s.experiment.peers; ++i)
    if (c.out.peer_end_s[i] == 0 && c.out.iterations_done[i] < s.experiment.workload.iterations)
      c.out.peer_end_s[i] = stop_s;
  // (A design that could not even be deployed started no instance.)
  if (needs.peers_are_instances && stop_s > 0)
    for (int i = 0; i < s.experiment.peers; ++i)
      c.out.ledger.instances.push_back({s.peer_type(i).name, c.out.peer_end_s[i] - c.peer_started_s[i]});
  // Shared infrastructure runs as long as the last peer.
  const double end_s = *std::max_element(c.out.peer_end_s.begin(), c.out.peer_end_s.end());
  if (stop_s > 0)
    for (const auto& server : needs.servers) c.out.ledger.instances.push_back({server.instance_type, end_s});
  if (c.broker.used() && !needs.broker)
    throw std::logic_error("strategy '" + system.strategy + "' uses the broker but does not declare it");
  if (needs.broker) c.out.ledger.broker_uptime_s = end_s;
  c.out.mechanisms = simulation::mechanisms_used(needs, c.out);
  return std::move(c.out);
}

}  // namespace p2psim
