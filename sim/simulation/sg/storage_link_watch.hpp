// The storage service's shared link, when its users were given private paths instead (an optimistic run,
// platform.cpp): no SimGrid here, only the check that makes the optimism exact or void.
#pragma once
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "adapter.hpp"

namespace p2psim::sg {

/// What a TCP flow also takes on its route's reverse direction, as a share of its rate: SimGrid's cross-traffic
/// (the ACKs; `network/crosstraffic`, on by default), whose weight 0.05 is in SimGrid's src/surf/network_cm02.cpp.
constexpr double kCrossTrafficShare = 0.05;
inline double cross_traffic_share(bool cross_traffic) { return cross_traffic ? kCrossTrafficShare : 0.0; }

/// A user of the link (a function slot, a server) draws at most its NIC from it in the direction it transfers,
/// whatever else it does, and at most the cross-traffic share of that in the other
/// (https://simgrid.org/doc/latest/Configuring_SimGrid.html, network/crosstraffic). While
/// those bounds of the users with a transfer in flight sum to no more than the link, in each direction, the
/// link cannot bind: max-min sharing then gives every transfer what it would get with no such link, so private
/// copies of the link (the same bandwidth, latency, split duplex: the same bounds and sharing penalties)
/// allocate exactly as the shared link would. Once the sum exceeds the link, the run's result is void: it is
/// simulated again, exactly.
class StorageLinkWatch {
 public:
  /// What each transfer takes in the other direction (cross_traffic_share).
  void set_cross_traffic_share(double share) { cross_traffic_share_ = share; }
  /// `user`'s transfers to and from storage would cross a link of `link_bps` (each direction).
  void watch(const Host* user, double nic_bps, double link_bps) {
    users_[user].nic_bps = static_cast<std::int64_t>(std::ceil(nic_bps));  // whole bytes/s: exact sums, no drift
    link_bps_ = link_bps;
  }
  /// `count` virtual function slots (no hosts: PlatformSpec::function_slots_virtual), each a user by its index.
  void watch_slots(int count, double nic_bps, double link_bps) {
    slots_.assign(count, User{static_cast<std::int64_t>(std::ceil(nic_bps)), {0, 0}});
    link_bps_ = link_bps;
  }
  bool watching() const { return !users_.empty() || !slots_.empty(); }
  /// True once the users in flight could have exceeded the link: the run no longer tells the exact result.
  bool exceeded() const { return exceeded_; }

  /// A transfer between `host` and storage, counted while this lives (also when its actor is killed).
  class InFlight {
   public:
    InFlight(StorageLinkWatch* watch, const Host* host, bool upload);
    ~InFlight();
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

   private:
    StorageLinkWatch* watch_;  // null when the host is not watched
    const Host* host_;
    bool upload_;
  };
  /// Counts a transfer of `host` to (upload) or from storage until the result is destroyed; on exceeding the
  /// link, ends the simulation (sg::abandon_simulation): what follows would be simulated for nothing.
  [[nodiscard]] InFlight start(const Host* host, bool upload) { return InFlight(this, host, upload); }
  /// A transfer of virtual slot `slot` to (upload) or from storage begins, or ends: for computed transfers,
  /// told in time order. Returns false once the users in flight could have exceeded the link (the caller ends
  /// the simulation, when it runs in an actor).
  bool slot_transfer_begins(int slot, bool upload) { return user_starts(slots_.at(slot), upload); }
  void slot_transfer_ends(int slot, bool upload) { user_ends(slots_.at(slot), upload); }

 private:
  struct User {
    std::int64_t nic_bps = 0;
    int in_flight[2] = {0, 0};  // downloads, uploads
  };

  std::unordered_map<const Host*, User> users_;
  std::vector<User> slots_;  // virtual function slots, by index
  double link_bps_ = 0;
  double cross_traffic_share_ = kCrossTrafficShare;
  std::int64_t nics_bps_[2] = {0, 0};  // the NICs of the users with a transfer in flight, per direction
  bool exceeded_ = false;

  // False once the link could have been exceeded.
  bool user_starts(User& user, bool upload) {
    // A user's several transfers in one direction share its NIC: it counts once.
    if (user.in_flight[upload]++ == 0) {
      nics_bps_[upload] += user.nic_bps;
      if (could_bind()) exceeded_ = true;
    }
    return !exceeded_;
  }
  void user_ends(User& user, bool upload) {
    if (--user.in_flight[upload] == 0) nics_bps_[upload] -= user.nic_bps;
  }

  bool could_bind() const {
    for (int d = 0; d < 2; ++d)
      if (static_cast<double>(nics_bps_[d]) + cross_traffic_share_ * static_cast<double>(nics_bps_[1 - d]) > link_bps_)
        return true;
    return false;
  }
};

inline StorageLinkWatch::InFlight::InFlight(StorageLinkWatch* watch, const Host* host, bool upload)
    : watch_(nullptr), host_(host), upload_(upload) {
  const auto user = watch->users_.find(host);
  if (user == watch->users_.end()) return;
  watch_ = watch;
  const bool was_exceeded = watch->exceeded_;
  if (!watch->user_starts(user->second, upload) && !was_exceeded) abandon_simulation();
}

inline StorageLinkWatch::InFlight::~InFlight() {
  if (!watch_) return;
  watch_->user_ends(watch_->users_.at(host_), upload_);
}

}  // namespace p2psim::sg
