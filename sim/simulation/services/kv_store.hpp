// An in-memory database (Redis-like) on a server host: each request costs the server's CPU (shared with any
// in-database kernel running there), values travel over the host's routes, and kernels run inside it
// (e.g. averaging gradients without moving them, as RedisAI does).
#pragma once
#include "../../inputs/cloud_profile.hpp"
#include "../sg/adapter.hpp"

namespace p2psim::simulation {

class KvStore {
 public:
  KvStore(const p2psim::KvStoreParams& params, sg::Host* host) : params_(&params), host_(host) {}
  void write(sg::Host* from, double bytes);
  void read(sg::Host* to, double bytes);
  /// A kernel of `reference_seconds` (calibration-CPU seconds) run inside the database.
  void run_kernel(double reference_seconds);
  sg::Host* host() const { return host_; }

 private:
  const p2psim::KvStoreParams* params_;
  sg::Host* host_;
};

}  // namespace p2psim::simulation
