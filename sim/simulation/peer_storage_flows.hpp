// The peers' transfers to and from object storage, computed as SimGrid's network model shares them, for
// participants that are computed rather than simulated (strategies/computed_participants.hpp). A peer's route to
// storage is its NIC (split duplex), its cap on one stream's rate and, where the peers alone could fill the
// storage service's link, its slice of that link (sg::peer_storage_slices_bps): the peers of one slice share it,
// and nothing else crosses it, so each slice (or each peer, when there are none) is a small system of its own.
// Within it, rates are SimGrid's max-min allocation (max_min.hpp, after src/kernel/lmm/maxmin.cpp): every moving flow of penalty p
// gets level / p, raised until a constraint (a NIC direction, a slice direction, with each flow's 5 % of
// cross-traffic on the reverse ones) is full or the flow reaches its bound (its narrowest link, the TCP window
// over the route's latency); bytes move at the bandwidth factor times that rate. A flow's penalty is its route's
// latency plus weight-S over each of its links' bandwidth (network_cm02.cpp, NetworkCm02Model::communicate).
// The rates are constant between two events of a system (a flow begins or ends), so each flow's end is exact:
// the same as SimGrid's to its precision (tests/test_computed_participants.cpp). NICs keep their rate: an "up to"
// NIC whose credits could run out is not computed here (participants_computable). No SimGrid here.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "max_min.hpp"
#include "sg/adapter.hpp"

namespace p2psim::simulation {

class PeerStorageFlows {
 public:
  /// `slices_bps`: the slices' bandwidths (sg::peer_storage_slices_bps), or empty: every peer's route its own;
  /// slice k holds `peers_per_slice` peers from k x peers_per_slice on. `route_latency_s`: a peer's route to
  /// storage, in all; `stream_bps`: what one stream carries at most; `peers_nic_bps`: each peer's NIC, each way.
  PeerStorageFlows(const sg::NetworkFactors& factors, double route_latency_s, double stream_bps,
                   std::vector<double> slices_bps, std::vector<double> peers_nic_bps, size_t peers_per_slice);

  /// A flow of `bytes` (whole bytes, as SimGrid sends them) from peer `peer` to storage (`upload`) or back, whose
  /// bytes begin to move at `begins_s` (its request's first byte and route latency paid). Returns its number.
  std::int64_t add(int peer, bool upload, double begins_s, double bytes);
  /// The next instant at which something changes (a flow begins or ends); infinity when nothing is in flight.
  double next_s();
  /// Advances every system with a change due at `now_s` (the earliest next_s()); returns the flows that ended.
  std::vector<std::int64_t> advance(double now_s);

 private:
  struct Flow {
    std::int64_t id;
    int peer;
    bool upload;
    double begins_s, remaining;
    double penalty = 0, bound = 0, value = 0;
  };
  /// A slice's flows, as classes: the peers of one NIC with the same flows in flight (a group) are alike, so their
  /// flows of one direction (a class) move at one rate, which SimGrid's max-min gives every one of them. A class
  /// keeps the bytes each of its flows has moved since it had flows; a flow ends when that reaches its target.
  struct Group {
    double nic_bps;
    int uploads, downloads;  // per peer
  };
  struct Class {
    int flows = 0;
    double value = 0, moved_bytes = 0;
    struct End {
      double target_bytes;
      std::int64_t id;
      size_t slot;
      std::uint32_t generation;
      bool operator>(const End& o) const { return target_bytes != o.target_bytes ? target_bytes > o.target_bytes : id > o.id; }
    };
    std::vector<End> ends;  // a heap (std::push_heap, std::greater): its first ends first; stale entries skipped
    void reset() {  // no flows left: it starts afresh, so that its counter stays small
      moved_bytes = 0;
      ends.clear();
    }
  };
  struct SlicedFlow {  // a moving flow of a slice, in a slot reused once it ends
    std::int64_t id = -1;
    int peer = 0;
    bool upload = false;
    size_t cls = 0;
    double target_bytes = 0;
    std::uint32_t generation = 0;
  };
  struct Begin {
    double at_s;
    std::int64_t id;
    int peer;
    bool upload;
    double bytes;
    bool operator>(const Begin& o) const { return at_s != o.at_s ? at_s > o.at_s : id > o.id; }
  };
  struct Slice {
    std::vector<Group> groups;
    std::vector<Class> classes;  // 2 per group: its downloads, its uploads
    std::vector<SlicedFlow> slots;
    std::vector<size_t> free_slots;
    std::vector<std::vector<size_t>> peer_slots;  // per peer of the slice: its moving flows
    std::priority_queue<Begin, std::vector<Begin>, std::greater<>> begins;
    /// Whether a class's entry still stands for its flow (not one that moved class or ended, its slot reused).
    bool live(const Class::End& e) const { return slots[e.slot].generation == e.generation && slots[e.slot].id == e.id; }
  };
  struct System {  // a slice's peers, or one peer
    int first_peer = 0, peers = 0;
    double slice_bps = 0;  // 0: no slice
    std::vector<Flow> waiting, moving;  // a peer's own system
    Slice slice;                        // a slice's
    double last_s = 0, next_s = 0;
    std::uint64_t version = 0;  // its entry in the queue is stale when this moved on
  };
  struct Due {
    double at_s;
    size_t system;
    std::uint64_t version;
    bool operator>(const Due& o) const { return at_s != o.at_s ? at_s > o.at_s : system > o.system; }
  };

  double penalty_of(double nic_bps, double slice_bps) const;
  /// The system's flows at `now_s`: those that ended, those that begin, new rates and the next event.
  void step(System& sys, double now_s, std::vector<std::int64_t>& ended);
  void solve(System& sys);
  void step_slice(System& sys, double now_s, std::vector<std::int64_t>& ended);
  void solve_slice(System& sys);
  /// Moves a slice's peer's moving flows to the classes of its current group, each with the bytes it has left.
  void regroup(System& sys, int local_peer);
  size_t group_of(Slice& slice, double nic_bps, int uploads, int downloads);
  void reschedule(size_t index);

  sg::NetworkFactors f_;
  double latency_s_, stream_bps_, gamma_bound_bps_;
  size_t peers_per_slice_;
  bool sliced_;  // the peers share slices; else each peer is a system of its own
  std::vector<System> systems_;
  std::vector<double> nic_bps_;  // per peer
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::int64_t next_id_ = 0;
  std::vector<MaxMinVariable> variables_;  // solve's, kept to spare an allocation per event
  std::vector<double> slack_;
  std::vector<size_t> variable_class_;
  std::vector<size_t> nic_constraint_;  // solve_slice's: per group, its NICs' first constraint (or none)
  std::vector<int> changed_;  // step_slice's: the slice's peers whose flows in flight changed
};

}  // namespace p2psim::simulation
