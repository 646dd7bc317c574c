// The peers' pushes to and pulls from a parameter server's S shards, computed as SimGrid's network model shares
// them, for peers that are computed rather than simulated (strategies/computed_server_peers.hpp).
// A push is S flows of the same bytes, one to each server, begun at once; a pull the same back. The servers are of
// one type, and a peer either pushes or pulls: so every server carries the same flows, and a peer's S flows
// move at one rate (by symmetry, the max-min allocation is the same for each server). A peer's flows cross its NIC
// (split duplex), its cap on one flow (EC2's single-flow limit, where the platform has one) and a server's NIC;
// their ACKs the reverse directions at 5 % (cross-traffic).
// Within that, the allocation is SimGrid's (max_min.hpp, as for peer_storage_flows.hpp): a
// flow of penalty p gets level / p, raised until a constraint is full or the flow reaches its bound. Peers of one
// group doing the same (pushing, or pulling) have the same penalty, bound and constraints, so they get the same
// rate: the solver works on those classes (groups x 2) with their counts, not on P x S flows, and a class's flows
// end in the order of the bytes they had left when they began to move (one counter of bytes moved per class). So
// each event costs O(groups + log P), where SimGrid re-solves P x S flows.
// NICs keep their rate: an "up to" NIC whose credits could run out is not computed (server_peers_computable).
#pragma once
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "max_min.hpp"
#include "sg/adapter.hpp"

namespace p2psim::simulation {

class ServerFlows {
 public:
  struct Route {
    double latency_s = 0;    // a peer's route to a server, in all (raw: the latency factor is paid before)
    int servers = 1;         // S
    double server_nic_bps = 0;
    double flow_cap_bps = 0;  // 0: flows have no cap of their own
  };
  /// `group_of_peer[p]`: peer p's group; `group_nic_bps[g]`: group g's NIC, each way.
  ServerFlows(const sg::NetworkFactors& factors, Route route, std::vector<int> group_of_peer,
              std::vector<double> group_nic_bps);

  /// A push (`push`) or pull of `bytes` to or from each server (whole bytes, as SimGrid sends them), whose
  /// bytes begin to move at `begins_s` (the route's latency paid). A peer has one in flight at most.
  void add(int peer, bool push, double begins_s, double bytes);
  /// The next instant at which something changes (a transfer begins or ends); infinity when nothing is in flight.
  double next_s() const;
  /// Advances to `now_s` (no later than next_s()); returns the peers whose transfer ended, in the order SimGrid
  /// would end them (by bytes left, then by when they were added).
  std::vector<int> advance(double now_s);

 private:
  struct Waiting {
    double begins_s;
    std::int64_t id;
    int peer;
    bool push;
    double bytes;
    bool operator>(const Waiting& o) const { return begins_s != o.begins_s ? begins_s > o.begins_s : id > o.id; }
  };
  struct Ending {
    double at_moved;  // the class's bytes moved when it ends
    std::int64_t id;  // the order it was added in
    int peer;
    bool operator>(const Ending& o) const { return at_moved != o.at_moved ? at_moved > o.at_moved : id > o.id; }
  };
  struct Class {
    int count = 0;          // peers of the group moving bytes this way
    double penalty = 0, bound = 0;
    double value = 0;       // each flow's share (bytes/s before the bandwidth factor)
    double moved = 0;       // bytes each of its flows moved since the class was last empty
    std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ending;
  };
  size_t class_of(int group, bool push) const { return static_cast<size_t>(2 * group + (push ? 1 : 0)); }
  void solve();

  sg::NetworkFactors f_;
  Route route_;
  std::vector<int> group_of_peer_;
  std::vector<double> group_nic_bps_;
  std::vector<Class> classes_;
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> waiting_;
  double last_s_ = 0;
  std::int64_t next_id_ = 0;
  std::vector<MaxMinVariable> variables_;  // solve's
};

}  // namespace p2psim::simulation
