#include "kv_store.hpp"

namespace p2psim::simulation {

void KvStore::write(sg::Host* from, double bytes) {
  sg::transfer(from, host_, bytes);
  sg::compute(host_, params_->per_request_cpu_s);
}

void KvStore::read(sg::Host* to, double bytes) {
  sg::compute(host_, params_->per_request_cpu_s);
  sg::transfer(host_, to, bytes);
}

void KvStore::run_kernel(double reference_seconds) { sg::compute(host_, reference_seconds); }

}  // namespace p2psim::simulation
