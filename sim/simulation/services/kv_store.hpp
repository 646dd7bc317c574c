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
  /// Its values are gradients as JSON text (SPIRT's code), costed by `json` on its host, an instance of `type`
  /// (the scalar work of its scripts); binary tensors (RedisAI) unless this is called.
  void hold_json(const p2psim::JsonCodecParams& json, const p2psim::InstanceType& type) {
    json_ = &json;
    host_type_ = &type;
  }
  const p2psim::JsonCodecParams* json() const { return json_; }
  const p2psim::InstanceType& host_type() const { return *host_type_; }
  void write(sg::Host* from, double bytes);
  void read(sg::Host* to, double bytes);
  /// A kernel of `reference_seconds` (calibration-CPU seconds) run inside the database.
  void run_kernel(double reference_seconds);
  sg::Host* host() const { return host_; }

 private:
  const p2psim::KvStoreParams* params_;
  sg::Host* host_;
  const p2psim::JsonCodecParams* json_ = nullptr;
  const p2psim::InstanceType* host_type_ = nullptr;
};

}  // namespace p2psim::simulation
