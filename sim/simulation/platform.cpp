#include "world.hpp"

namespace p2psim::simulation {
namespace {

using Dir = sg4::LinkInRoute::Direction;

sg4::SplitDuplexLink* nic(sg4::NetZone* zone, const std::string& name, double bandwidth_bps, double latency_s) {
  auto* link = zone->create_split_duplex_link(name, bandwidth_bps);
  link->set_latency(latency_s);
  link->seal();
  return link;
}

// Which end of a route a split-duplex NIC belongs to; shared links (no direction) are Middle.
enum class End { A, Middle, B };

// Routes a -> b and b -> a through `path` (listed from a to b): a's NIC sends UP, b's NIC receives DOWN.
void connect(sg4::NetZone* zone, sg4::Host* a, sg4::Host* b, const std::vector<std::pair<sg4::Link*, End>>& path) {
  std::vector<sg4::LinkInRoute> there, back;
  for (const auto& [link, end] : path)
    there.emplace_back(link, end == End::A ? Dir::UP : end == End::B ? Dir::DOWN : Dir::NONE);
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    back.emplace_back(it->first, it->second == End::B ? Dir::UP : it->second == End::A ? Dir::DOWN : Dir::NONE);
  zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, there, false);
  zone->add_route(b->get_netpoint(), a->get_netpoint(), nullptr, nullptr, back, false);
}

}  // namespace

Hosts build_platform(const Scenario& s, int function_slots) {
  const auto& p = s.profile;
  // Each route crosses two NICs: each carries half of the one-way latency.
  const double half_latency_s = p.one_way_latency_s / 2;
  auto* zone = sg4::create_full_zone("cloud");
  Hosts h;
  // Host speeds are unused: compute durations come from the compute model, already scaled to the CPU.
  h.storage = zone->create_host("s3", 1e9)->seal();
  h.broker = zone->create_host("broker", 1e9)->seal();
  auto* s3_link = nic(zone, "s3_aggregate", p.storage.aggregate_bandwidth_bps, half_latency_s);
  auto* broker_link = nic(zone, "broker_nic", p.broker.nic_bandwidth_bps, half_latency_s);
  for (int i = 0; i < s.experiment.peers; ++i) {
    const std::string name = "peer-" + std::to_string(i);
    auto* host = zone->create_host(name, 1e9)->seal();
    auto* link = nic(zone, name + "_nic", s.peer_type.nic_bandwidth_bps, half_latency_s);
    // A peer fetches one object at a time (the paper's loop), so one link caps its S3 connection.
    auto* conn = zone->create_link(name + "_s3_connection", p.storage.per_connection_bandwidth_bps)->seal();
    connect(zone, host, h.storage, {{link, End::A}, {conn, End::Middle}, {s3_link, End::B}});
    connect(zone, host, h.broker, {{link, End::A}, {broker_link, End::B}});
    h.peers.push_back(host);
  }
  for (int k = 0; k < function_slots; ++k) {
    const std::string name = "function-" + std::to_string(k);
    auto* host = zone->create_host(name, 1e9)->seal();
    auto* link = nic(zone, name + "_nic", p.functions.storage_bandwidth_bps, half_latency_s);
    connect(zone, host, h.storage, {{link, End::A}, {s3_link, End::B}});
    h.function_slots.push_back(host);
  }
  zone->seal();
  return h;
}

}  // namespace p2psim::simulation
