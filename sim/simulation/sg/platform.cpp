#include "platform.hpp"

#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <stdexcept>
#include <sstream>

namespace p2psim::sg {
namespace {

namespace s4u = simgrid::s4u;
using Dir = s4u::LinkInRoute::Direction;

s4u::SplitDuplexLink* nic(s4u::NetZone* zone, const std::string& name, double bandwidth_bps, double latency_s,
                          const std::vector<std::pair<double, double>>& outages = {}) {
  auto* link = zone->create_split_duplex_link(name, bandwidth_bps);
  link->set_latency(latency_s);
  if (!outages.empty()) {  // SimGrid state profile: "date value" lines, 0 = down, 1 = up
    std::ostringstream profile;
    profile.precision(17);
    for (const auto& [from, to] : outages) profile << from << " 0\n" << to << " 1\n";
    // On each direction's own link: SimGrid 3.32 does not pass a split-duplex link's profile events on.
    link->get_link_up()->set_state_profile(
        simgrid::kernel::profile::ProfileBuilder::from_string(name + "_up_outages", profile.str(), -1));
    link->get_link_down()->set_state_profile(
        simgrid::kernel::profile::ProfileBuilder::from_string(name + "_down_outages", profile.str(), -1));
  }
  link->seal();
  return link;
}

// Which end of a route a split-duplex NIC belongs to; shared links (no direction) are Middle.
enum class End { A, Middle, B };

// Routes a -> b and b -> a through `path` (listed from a to b): a's NIC sends UP, b's NIC receives DOWN.
// They are SimGrid's bypass routes of a zone without routing of its own: a map from (source, destination) to
// links, an entry per route. Our routes are sparse (a function slot reaches storage, not every host), and a
// full zone's table is hosts² (7.4 MB allocated and zeroed for the ~960 hosts of the paper grid's largest
// scenarios: a fifth of a sweep's page faults). Same links, same order, same latency sums: identical results.
void connect(s4u::NetZone* zone, Host* a, Host* b, const std::vector<std::pair<s4u::Link*, End>>& path) {
  std::vector<s4u::LinkInRoute> there, back;
  for (const auto& [link, end] : path)
    there.emplace_back(link, end == End::A ? Dir::UP : end == End::B ? Dir::DOWN : Dir::NONE);
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    back.emplace_back(it->first, it->second == End::B ? Dir::UP : it->second == End::A ? Dir::DOWN : Dir::NONE);
  zone->add_bypass_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, there);
  zone->add_bypass_route(b->get_netpoint(), a->get_netpoint(), nullptr, nullptr, back);
}

// One core: a training step's time already accounts for its threads, so two steps on one host share it.
// A throttled speed is the host's second power state (sg::set_throttled switches to it).
Host* host(s4u::NetZone* zone, const std::string& name, double speed_factor, double throttled_speed_factor = 0) {
  std::vector<double> speeds{speed_factor * kFlopsPerReferenceSecond};
  if (throttled_speed_factor > 0) speeds.push_back(throttled_speed_factor * kFlopsPerReferenceSecond);
  return zone->create_host(name, speeds)->seal();
}

// A machine's storage client's CPU: one link its storage streams share, on its route to storage alone (its transfers
// to peers and servers do not pay it), with no latency of its own; none where its CPU does not bind (0).
s4u::SplitDuplexLink* storage_client(s4u::NetZone* zone, const PlatformSpec::Machine& m) {
  return m.storage_client_bps > 0 ? nic(zone, m.name + "_s3_client", m.storage_client_bps, 0) : nullptr;
}

// What a machine can draw from storage at most: its NIC, as many streams as it keeps open, or its client's CPU.
double machine_storage_bps(const PlatformSpec& p, const PlatformSpec::Machine& m) {
  const double bps = std::min(m.nic_bps, p.peer_storage_streams * p.storage_stream_bps);
  return m.storage_client_bps > 0 ? std::min(bps, m.storage_client_bps) : bps;
}

// What the peers can draw from storage at most.
double peers_storage_bps(const PlatformSpec& p) {
  double bps = 0;
  for (const auto& m : p.peers) bps += machine_storage_bps(p, m);
  return bps;
}

// A link that caps each flow crossing it at `bandwidth_bps` without sharing it (SimGrid's FATPIPE), split duplex
// so that a flow's ACKs on the way back (cross-traffic) land on the other direction's constraint, not on its own.
// One per client: a link every client crossed would couple all their flows in the solver's updates.
s4u::SplitDuplexLink* flow_cap(s4u::NetZone* zone, const std::string& name, double bandwidth_bps, double latency_s) {
  auto* link = zone->create_split_duplex_link(name, bandwidth_bps);
  link->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE);
  link->set_latency(latency_s);
  link->seal();
  return link;
}

}  // namespace

double instance_flow_cap_bps(const PlatformSpec& p) {
  double fastest_nic_bps = p.broker_nic_bps;
  for (const auto& m : p.peers) fastest_nic_bps = std::max(fastest_nic_bps, m.nic_bps);
  for (const auto& m : p.servers) fastest_nic_bps = std::max(fastest_nic_bps, m.nic_bps);
  return p.single_flow_bps > 0 && p.single_flow_bps < fastest_nic_bps ? p.single_flow_bps : 0;
}

double function_storage_bps(const PlatformSpec& p) {
  return std::min(p.function_nic_bps, p.function_storage_streams * p.function_stream_bps);
}

bool storage_link_may_bind(const PlatformSpec& p) {
  double rest_bps = p.function_slots * function_storage_bps(p);
  for (const auto& m : p.servers) rest_bps += m.nic_bps;
  // Each way, everyone's transfers that way and the cross-traffic of everyone's the other way.
  return (1 + cross_traffic_share(p.cross_traffic)) * (peers_storage_bps(p) + rest_bps) > p.storage_aggregate_bps;
}

namespace {

// How transfers to storage cross its aggregate link (build_platform says why).
struct StorageLayout {
  double peers_bps;     // what the peers can draw at most
  bool never_binds;     // nobody's route crosses the link
  bool watch;           // function slots and servers have private copies of their share, watched
  double s3_bps;        // the share of the link that function slots and servers cross
  bool slots_private;   // a function slot's route to storage is its NIC and its stream cap alone
};

StorageLayout storage_layout(const PlatformSpec& p) {
  StorageLayout l{};
  l.peers_bps = peers_storage_bps(p);
  l.never_binds = !storage_link_may_bind(p);
  const bool reserve_for_peers = l.never_binds || l.peers_bps < p.storage_aggregate_bps / 2;
  l.s3_bps = p.storage_aggregate_bps - (reserve_for_peers ? l.peers_bps : 0);
  l.watch = !l.never_binds && p.storage_sharing == StorageSharing::Optimistic;
  // A function slot whose NIC carries its storage route only (no route to peers or servers) needs no private
  // path beside it: every flow on that path crosses the slot's NIC first, so a path at least as wide can never
  // bind. Same bound, same allocation (the paper grid's results and traces byte-identical), one split-duplex
  // link fewer per slot: up to ~940 in the grid's heaviest scenarios, 5.5 % of their CPU (bench/README.md, "A
  // sixth pass").
  l.slots_private = (l.never_binds || l.watch) && !p.functions_reach_peers && p.servers.empty() &&
                    function_storage_bps(p) <= (l.watch ? l.s3_bps : p.storage_aggregate_bps);
  return l;
}

}  // namespace

bool function_routes_private(const PlatformSpec& p) { return storage_layout(p).slots_private; }

std::vector<double> peer_storage_slices_bps(const PlatformSpec& p) {
  std::vector<double> slices;
  const double peers_bps = peers_storage_bps(p);
  if (peers_bps <= p.storage_aggregate_bps) return slices;
  for (size_t first = 0; first < p.peers.size(); first += kPeersPerStorageSlice) {
    double slice_bps = 0;
    for (size_t i = first; i < std::min(p.peers.size(), first + kPeersPerStorageSlice); ++i)
      slice_bps += machine_storage_bps(p, p.peers[i]);
    slices.push_back(p.storage_aggregate_bps * slice_bps / peers_bps);
  }
  return slices;
}

Platform build_platform(const PlatformSpec& p) {
  if (p.function_slots_virtual && !function_routes_private(p))
    throw std::logic_error("virtual function slots on a platform where their routes are not private");
  // Every route carries the one-way latency: half on the sender's NIC, half on the far end's first link (the
  // receiver's NIC, or the storage streams' cap of the client's route to storage).
  const double half_latency_s = p.one_way_latency_s / 2;
  auto* zone = s4u::create_empty_zone("cloud");  // routed by bypass routes only (connect)
  Platform h;
  h.spec = p;
  h.one_way_latency_s = p.one_way_latency_s;
  h.storage = host(zone, "s3", 1);
  h.broker = host(zone, "broker", 1);
  h.storage_watch.set_cross_traffic_share(cross_traffic_share(p.cross_traffic));
  // The storage service's aggregate bandwidth, in each direction. One link that every transfer to storage
  // crosses couples all of them in SimGrid's max-min solver, whose work per event then grows with every flow in
  // flight (128 peers x 10 serverless VGG-11 iterations: 11.3 s with the shared link, 2.0 s without). So the
  // peers' transfers share it in small groups at most (docs/architecture.md, "Scale"):
  // - when peers, functions and servers together cannot fill it (each is capped by its own NIC, or by the
  //   streams it keeps open, plus its cross-traffic the other way), it never binds: nobody's route crosses it,
  //   and every allocation is the same;
  // - else, when the peers' largest share is under half of it, that share is reserved for them and only the
  //   functions and servers share the rest: the same allocations while they cannot fill the rest, otherwise up
  //   to the peers' share less for them while peers are idle;
  // - else peers and functions or servers each may draw most of it: the peers' routes leave it out, and
  //   functions and servers share the whole link. Functions transferring beside the peers are not slowed by
  //   them, nor they by the functions;
  // - and when the peers alone can fill it, they are cut into slices of kPeersPerStorageSlice, each with its
  //   share of the link in proportion to its peers' largest share: a slice's peers share its capacity as they
  //   would the link's; they do not take up what another slice leaves idle.
  // Functions and servers that share the link cross it only in an exact platform. In an optimistic one each has
  // a private path of the link's bandwidth instead, and the storage watch voids the run if those in flight could
  // ever have filled the link (storage_link_watch.hpp).
  // Each client's route to storage also crosses its own cap on one stream's rate (flow_cap): one TCP stream to
  // the service carries at most that, and a client moves more only by opening more (ranged GETs, multipart PUTs).
  const StorageLayout layout = storage_layout(p);
  const double s3_bps = layout.s3_bps;
  const bool never_binds = layout.never_binds, watch = layout.watch;
  auto* s3_link = nic(zone, "s3_aggregate", s3_bps, 0);
  std::vector<s4u::SplitDuplexLink*> slices;  // the peers' slices of the link, when they alone can fill it
  for (double slice_bps : peer_storage_slices_bps(p))
    slices.push_back(nic(zone, "s3_slice_" + std::to_string(slices.size()), slice_bps, 0));
  // A function slot's or server's route to storage: its NIC (and a server's storage client, where its CPU binds),
  // its stream cap, then the shared link, or a path of its own, split duplex as the link is: watched, a copy of the
  // link (its bandwidth too: the route's bandwidths set a flow's bound and its sharing penalty); when the link never
  // binds, one of the whole aggregate, which never binds either. `slot_private`: no path at all (function slots,
  // below).
  auto to_storage = [&](Host* from, s4u::SplitDuplexLink* from_nic, s4u::SplitDuplexLink* stream, double nic_bps,
                        const std::string& name, bool slot_private = false, s4u::SplitDuplexLink* client = nullptr) {
    std::vector<std::pair<s4u::Link*, End>> path{{from_nic, End::A}};
    if (client) path.emplace_back(client, End::A);
    path.emplace_back(stream, End::B);
    if (!never_binds && !watch) {
      path.emplace_back(s3_link, End::B);
      return connect(zone, from, h.storage, path);
    }
    if (!slot_private) path.emplace_back(nic(zone, name + "_s3_path", watch ? s3_bps : p.storage_aggregate_bps, 0), End::B);
    connect(zone, from, h.storage, path);
    if (watch) h.storage_watch.watch(from, nic_bps, s3_bps);
  };
  auto* broker_link = nic(zone, "broker_nic", p.broker_nic_bps, half_latency_s, p.broker_outages);
  const bool cap_flows = instance_flow_cap_bps(p) > 0;
  // The route from machine a (its NIC, and its flow cap when flows are capped) to machine b's NIC.
  auto between = [&](s4u::SplitDuplexLink* a_nic, s4u::SplitDuplexLink* a_cap, s4u::SplitDuplexLink* b_nic) {
    std::vector<std::pair<s4u::Link*, End>> path{{a_nic, End::A}};
    if (a_cap) path.emplace_back(a_cap, End::A);
    path.emplace_back(b_nic, End::B);
    return path;
  };
  std::vector<s4u::SplitDuplexLink*> peer_nics, peer_caps;
  for (const auto& m : p.peers) {
    auto* peer = host(zone, m.name, m.speed_factor, m.throttled_speed_factor);
    auto* link = nic(zone, m.name + "_nic", m.nic_bps, half_latency_s);
    auto* cap = cap_flows ? flow_cap(zone, m.name + "_flow_cap", p.single_flow_bps, 0) : nullptr;
    auto* stream = flow_cap(zone, m.name + "_s3_stream", p.storage_stream_bps, half_latency_s);
    std::vector<std::pair<s4u::Link*, End>> to_s3{{link, End::A}};
    if (auto* client = storage_client(zone, m)) to_s3.emplace_back(client, End::A);
    to_s3.emplace_back(stream, End::B);
    if (!slices.empty()) to_s3.emplace_back(slices[h.peers.size() / kPeersPerStorageSlice], End::B);
    connect(zone, peer, h.storage, to_s3);
    connect(zone, peer, h.broker, between(link, cap, broker_link));
    if (p.peer_to_peer)
      for (size_t j = 0; j < h.peers.size(); ++j) connect(zone, h.peers[j], peer, between(peer_nics[j], peer_caps[j], link));
    else if (p.peer_ring && !h.peers.empty())
      connect(zone, h.peers.back(), peer, between(peer_nics.back(), peer_caps.back(), link));
    if (m.nic_baseline_bps > 0 && m.nic_baseline_bps < m.nic_bps)
      h.nic_credits->add(peer, link, m.nic_baseline_bps, m.nic_bps, m.nic_credit_bytes, static_cast<int>(h.peers.size()));
    h.peers.push_back(peer);
    peer_nics.push_back(link);
    peer_caps.push_back(cap);
    h.peer_nics.push_back(link);
  }
  if (p.peer_ring && h.peers.size() > 2)  // close the ring (two peers are already connected both ways)
    connect(zone, h.peers.back(), h.peers.front(), between(peer_nics.back(), peer_caps.back(), peer_nics.front()));
  // Virtual slots: no hosts; each one's transfers are computed on a route like a real slot's (its NIC and its
  // stream cap), watched by their index where the link may bind.
  h.function_slots_virtual = p.function_slots_virtual;
  if (p.function_slots_virtual) {
    h.function_slots.assign(p.function_slots, nullptr);
    if (watch) h.storage_watch.watch_slots(p.function_slots, function_storage_bps(p), s3_bps);
  }
  std::vector<s4u::SplitDuplexLink*> function_nics;
  for (int k = 0; k < (p.function_slots_virtual ? 0 : p.function_slots); ++k) {
    const std::string name = "function-" + std::to_string(k);
    auto* slot = host(zone, name, p.function_speed_factor);
    auto* link = nic(zone, name + "_nic", p.function_nic_bps, half_latency_s);
    auto* stream = flow_cap(zone, name + "_s3_stream", p.function_stream_bps, half_latency_s);
    to_storage(slot, link, stream, function_storage_bps(p), name, layout.slots_private);
    if (p.functions_reach_peers)
      for (size_t j = 0; j < h.peers.size(); ++j) connect(zone, slot, h.peers[j], {{link, End::A}, {peer_nics[j], End::B}});
    h.function_slots.push_back(slot);
    function_nics.push_back(link);
    h.function_nics.push_back(link);
    h.function_streams.push_back(stream);
  }
  std::vector<s4u::SplitDuplexLink*> server_nics, server_caps;
  for (const auto& m : p.servers) {
    auto* server = host(zone, m.name, m.speed_factor);
    auto* link = nic(zone, m.name + "_nic", m.nic_bps, half_latency_s);
    auto* cap = cap_flows ? flow_cap(zone, m.name + "_flow_cap", p.single_flow_bps, 0) : nullptr;
    auto* stream = flow_cap(zone, m.name + "_s3_stream", p.storage_stream_bps, half_latency_s);
    to_storage(server, link, stream, m.nic_bps, m.name, false, storage_client(zone, m));
    if (m.nic_baseline_bps > 0 && m.nic_baseline_bps < m.nic_bps)
      h.nic_credits->add(server, link, m.nic_baseline_bps, m.nic_bps, m.nic_credit_bytes, -1);
    connect(zone, server, h.broker, between(link, cap, broker_link));
    for (size_t j = 0; j < h.servers.size(); ++j) connect(zone, h.servers[j], server, between(server_nics[j], server_caps[j], link));
    for (size_t j = 0; j < h.peers.size(); ++j) connect(zone, h.peers[j], server, between(peer_nics[j], peer_caps[j], link));
    for (size_t k = 0; k < h.function_slots.size(); ++k)
      connect(zone, h.function_slots[k], server, {{function_nics[k], End::A}, {link, End::B}});
    h.servers.push_back(server);
    server_nics.push_back(link);
    server_caps.push_back(cap);
  }
  // A host's transfers to itself cross the network model's loopback link, as a full zone's do. (A pair with no
  // route is SimGrid's fatal error in an empty zone; a full zone gave it an empty route: a free, instant flow.)
  auto* loopback = s4u::Link::by_name("__loopback__");
  for (auto* host : zone->get_all_hosts())
    zone->add_bypass_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(loopback)});
  zone->seal();
  set_nic_credits(h.nic_credits->any() ? h.nic_credits.get() : nullptr);
  return h;
}

void set_function_slot_network(const Platform& platform, int slot, double nic_bps, double stream_bps) {
  if (platform.function_slots_virtual) return;
  auto* nic = platform.function_nics.at(static_cast<size_t>(slot));
  auto* stream = platform.function_streams.at(static_cast<size_t>(slot));
  if (nic->get_bandwidth() != nic_bps) nic->set_bandwidth(nic_bps);
  if (stream->get_bandwidth() != stream_bps) stream->set_bandwidth(stream_bps);
}

}  // namespace p2psim::sg
