// The simulated cloud as SimGrid hosts and links, built from plain values (the caller takes them from the
// cloud profile and the scenario): what exists, how fast it computes, and which routes connect it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "adapter.hpp"
#include "nic_credits.hpp"
#include "storage_link_watch.hpp"

namespace p2psim::sg {

/// When the peers alone can fill the storage service's aggregate link, they share it in slices of this many
/// peers, each with its share of the link, rather than all of them together: SimGrid's solver then re-solves
/// up to 32 peers' transfers per event, not every peer's. A choice of accuracy against speed, measured against
/// one shared link (docs/architecture.md, "Scale"; bench/README.md).
constexpr size_t kPeersPerStorageSlice = 32;

/// How function slots and servers reach storage when together they could fill its shared link.
enum class StorageSharing {
  Exact,       // through the shared link, which couples all their transfers in SimGrid's solver
  Optimistic,  // through private paths, watched: exact while the link cannot bind, void once it could
};

struct PlatformSpec {
  double one_way_latency_s = 0;
  double storage_aggregate_bps = 0;
  double storage_stream_bps = 0;  // what one TCP stream between an instance and storage carries at most
  /// What one flow between two instances carries at most (EC2's single-flow limit); 0: no limit of its own.
  double single_flow_bps = 0;
  bool cross_traffic = true;  // SimGrid's network/crosstraffic: a flow's ACKs on the way back
  double broker_nic_bps = 0;
  std::vector<std::pair<double, double>> broker_outages;  // [from, to) windows in which the broker's NIC is down
  struct Machine {
    std::string name;
    double speed_factor = 1;  // reference seconds done per second
    double nic_bps = 0;       // each way, at the start (an "up to" type's burst rate; NicCredits lowers it)
    double throttled_speed_factor = 0;  // > 0: a second, slower speed (burstable credits run out)
    double nic_baseline_bps = 0;  // below nic_bps: an "up to" NIC, back to this once its credits run out ...
    double nic_credit_bytes = 0;  // ... which it holds at launch (sg/nic_credits.hpp)
    /// > 0: what its storage client's CPU moves at most, all its storage streams together (a link on its route to
    /// storage alone); 0: its NIC and streams bind first.
    double storage_client_bps = 0;
  };
  std::vector<Machine> peers;  // each reaches storage, the broker and the servers
  /// Storage streams a peer keeps open at once, at most (its design's transfers): bounds what peers can draw.
  int peer_storage_streams = 1;
  bool peer_to_peer = false;   // a route between every two peers (ring, tree and parameter-server designs)
  bool peer_ring = false;      // a route from each peer to the next only, the last to the first (ring all-reduce)
  bool functions_reach_peers = false;  // a route from every function slot to every peer (a database on a peer)
  std::vector<Machine> servers;  // parameter servers, databases: reach storage, the broker, every peer, function
                                 // slot and other server
  int function_slots = 0;        // network slots of function containers: reach storage and the servers
  double function_speed_factor = 1;
  /// A container's network, the fastest any of the design's functions may have: its NIC (all its streams)
  /// and one stream. Each container sets its slot's own when it starts (set_function_slot_network).
  double function_nic_bps = 0, function_stream_bps = 0;
  /// Storage streams a container keeps open at once, at most (its design's transfers): with the two rates above,
  /// what a container can draw from storage (function_storage_bps).
  int function_storage_streams = 1;
  StorageSharing storage_sharing = StorageSharing::Exact;
  /// The function slots get no hosts: every function transfer is computed as a lone flow on a slot's route
  /// (strategies/computed_invocations.hpp). Only where function_routes_private(spec) holds.
  bool function_slots_virtual = false;
};

/// Instance-to-instance flows are each capped at the single-flow limit where a NIC could exceed it (a flow-cap
/// link on each instance's routes): that limit, or 0 when no NIC could.
double instance_flow_cap_bps(const PlatformSpec& spec);

/// What one function container can draw from storage at most: its NIC, or its streams at their cap.
double function_storage_bps(const PlatformSpec& spec);

/// Whether the function slots and servers, with the peers, could fill the storage service's link: only then
/// is the link in anybody's route, and only then does StorageSharing matter.
bool storage_link_may_bind(const PlatformSpec& spec);

/// Whether each function slot's route to storage is its own (its NIC and its stream cap), crossed by nothing
/// else: the storage link never binds, or the platform is optimistic (the link's watch voids the run once it
/// could), and function slots reach neither peers nor servers. A slot's transfers are then alone on their route
/// (one container per slot) and take sg::lone_flows_end_s on it.
bool function_routes_private(const PlatformSpec& spec);

/// The peers' slices of the storage service's link when the peers alone can fill it (build_platform): per slice,
/// its bandwidth each way; slice k holds peers k x kPeersPerStorageSlice onwards. Empty when the peers' routes to
/// storage are their own (their NIC and stream cap), crossed by no other peer's flows.
std::vector<double> peer_storage_slices_bps(const PlatformSpec& spec);

struct Platform {
  PlatformSpec spec;  // what it was built from
  std::vector<Host*> peers, servers, function_slots;
  Host* storage = nullptr;
  Host* broker = nullptr;
  StorageLinkWatch storage_watch;  // watching, only in an optimistic platform whose storage link may bind
  /// The "up to" NICs' credits (peers'), followed as the run goes (Engine::run's time advances). Shared: the
  /// adapter's transfers report to it (set_nic_credits) while this platform runs.
  std::shared_ptr<NicCredits> nic_credits = std::make_shared<NicCredits>();
  /// PlatformSpec::function_slots_virtual: `function_slots` holds null hosts (their count is the slots').
  bool function_slots_virtual = false;
  double one_way_latency_s = 0;
  /// Each slot's NIC and stream cap (empty when the slots are virtual), and the peers' NICs: their rates
  /// change during a run (a container's memory size, an "up to" instance's network credits).
  std::vector<Link*> function_nics, function_streams, peer_nics;
};

/// Builds one zone, routed by a map of its routes: per-machine NICs (split duplex), the storage streams' cap,
/// the storage service's aggregate link and the broker's NIC. Call once, after the Engine exists.
Platform build_platform(const PlatformSpec& spec);

/// A function container of a given memory size takes slot `slot`: its NIC carries `nic_bps` each way, one of
/// its streams at most `stream_bps` (already the smaller of the function's and the storage service's). No-op on
/// virtual slots, whose transfers are computed with these rates.
void set_function_slot_network(const Platform& platform, int slot, double nic_bps, double stream_bps);

}  // namespace p2psim::sg
