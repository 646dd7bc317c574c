#include "object_storage.hpp"

namespace p2psim::simulation {

void ObjectStorage::get(sg::Host* to, double bytes) {
  sg::sleep_for(params_.first_byte_latency_s);
  sg::transfer(host_, to, bytes);
  ++ledger_.storage_gets;
}

void ObjectStorage::put(sg::Host* from, double bytes) {
  sg::sleep_for(params_.first_byte_latency_s);
  sg::transfer(from, host_, bytes);
  ++ledger_.storage_puts;
}

}  // namespace p2psim::simulation
