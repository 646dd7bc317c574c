// An in-memory database (Redis-like) on a server host: each request costs the server's CPU (shared with any
// in-database kernel running there), values travel over the host's routes, and kernels run inside it
// (e.g. averaging gradients without moving them, as RedisAI does).
#pragma once
#include "../../inputs/cloud_profile.hpp"
#include "../sg/adapter.hpp"

namespace p2psim::simulation {

class KvStore {
 public:
  /// On `host`, an instance of `host_type` (whose scalar speed its scripts and sshd's work run at).
  KvStore(const p2psim::KvStoreParams& params, sg::Host* host, const p2psim::InstanceType& host_type)
      : params_(&params), host_(host), host_type_(&host_type) {}
  /// Its values are gradients as JSON text (SPIRT's code), costed by `json`; binary tensors (RedisAI) unless this is
  /// called.
  void hold_json(const p2psim::JsonCodecParams& json) { json_ = &json; }
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
  const p2psim::InstanceType* host_type_;
  const p2psim::JsonCodecParams* json_ = nullptr;
};

}  // namespace p2psim::simulation
