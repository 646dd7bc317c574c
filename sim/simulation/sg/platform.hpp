// The simulated cloud as SimGrid hosts and links, built from plain values (the caller takes them from the
// cloud profile and the scenario): what exists, how fast it computes, and which routes connect it.
#pragma once
#include <string>
#include <vector>

#include "adapter.hpp"
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
  double storage_aggregate_bps = 0, storage_per_connection_bps = 0;
  double broker_nic_bps = 0;
  std::vector<std::pair<double, double>> broker_outages;  // [from, to) windows in which the broker's NIC is down
  struct Machine {
    std::string name;
    double speed_factor = 1;  // reference seconds done per second
    double nic_bps = 0;
    double throttled_speed_factor = 0;  // > 0: a second, slower speed (burstable credits run out)
  };
  std::vector<Machine> peers;  // each reaches storage (one connection at a time), the broker and the servers
  bool peer_to_peer = false;   // a route between every two peers (ring, tree and parameter-server designs)
  bool peer_ring = false;      // a route from each peer to the next only, the last to the first (ring all-reduce)
  bool functions_reach_peers = false;  // a route from every function slot to every peer (a database on a peer)
  std::vector<Machine> servers;  // parameter servers, databases: reach storage, the broker, every peer, function
                                 // slot and other server
  int function_slots = 0;        // network slots of function containers: reach storage and the servers
  double function_speed_factor = 1, function_nic_bps = 0;
  StorageSharing storage_sharing = StorageSharing::Exact;
  /// The function slots get no hosts: every function transfer is computed as a lone flow on a slot's route
  /// (strategies/computed_invocations.hpp). Only where function_routes_private(spec) holds.
  bool function_slots_virtual = false;
};

/// Whether the function slots and servers, with the peers, could fill the storage service's link: only then
/// is the link in anybody's route, and only then does StorageSharing matter.
bool storage_link_may_bind(const PlatformSpec& spec);

/// Whether each function slot's route to storage is its NIC alone, crossed by nothing else: the storage link
/// never binds, or the platform is optimistic (the link's watch voids the run once it could), and function
/// slots reach neither peers nor servers. A slot's transfer is then alone on its route (one container per
/// slot) and takes sg::lone_transfer_end_s on Platform::function_route.
bool function_routes_private(const PlatformSpec& spec);

struct Platform {
  std::vector<Host*> peers, servers, function_slots;
  Host* storage = nullptr;
  Host* broker = nullptr;
  StorageLinkWatch storage_watch;  // watching, only in an optimistic platform whose storage link may bind
  /// PlatformSpec::function_slots_virtual: `function_slots` holds null hosts (their count is the slots'). Where
  /// function_routes_private(spec) holds, every slot's route to storage is `function_route`.
  bool function_slots_virtual = false;
  LoneRoute function_route;
};

/// Builds one zone, routed by a map of its routes: per-machine NICs (split duplex), per-peer storage connection
/// caps, the storage service's aggregate link and the broker's NIC. Call once, after the Engine exists.
Platform build_platform(const PlatformSpec& spec);

}  // namespace p2psim::sg
