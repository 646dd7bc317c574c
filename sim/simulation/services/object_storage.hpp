// S3-like object storage: a first-byte latency per request, then the bytes over the platform's routes (each
// client's connection cap and the service's aggregate link). Counts GETs and PUTs in the ledger.
#pragma once
#include "../../cloud_profile.hpp"
#include "../../ledger.hpp"
#include "../sg/adapter.hpp"
#include "../sg/storage_link_watch.hpp"

namespace p2psim::simulation {

class ObjectStorage {
 public:
  /// Every transfer is shown to `watch` (an optimistic platform's check of the storage link).
  ObjectStorage(const p2psim::ObjectStorage& params, sg::Host* host, sg::StorageLinkWatch& watch, Ledger& ledger)
      : params_(params), host_(host), watch_(watch), ledger_(ledger) {}
  void get(sg::Host* to, double bytes);
  void put(sg::Host* from, double bytes);
  /// `count` objects of `bytes_each`, one request after another (a client's loop), as one flow after all the
  /// requests' latencies (sg::transfer_sequence): one flow where the loop would start `count`, which is what
  /// lets 1,024 peers that each write 16 shards at once through one shared link scale (docs/architecture.md, "Scale").
  void get_sequence(sg::Host* to, double bytes_each, int count);
  void put_sequence(sg::Host* from, double bytes_each, int count);
  /// get() or put() computed rather than simulated, for a client whose route to storage is its own
  /// (sg::function_routes_private): started at `start_s`, returns when the bytes have arrived (a GET and a PUT
  /// take the same time on such a route). The caller records the request in the ledger when the clock reaches
  /// that instant (PendingRecords).
  double lone_request_end_s(const sg::LoneRoute& route, double bytes, double start_s) const;
  double first_byte_latency_s() const { return params_.first_byte_latency_s; }

 private:
  const p2psim::ObjectStorage& params_;
  sg::Host* host_;
  sg::StorageLinkWatch& watch_;
  Ledger& ledger_;
};

}  // namespace p2psim::simulation
