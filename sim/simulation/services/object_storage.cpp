#include "object_storage.hpp"

namespace p2psim::simulation {

void ObjectStorage::get(sg::Host* to, double bytes) {
  sg::sleep_for(params_.first_byte_latency_s);
  const auto in_flight = watch_.start(to, false);
  sg::transfer(host_, to, bytes);
  ++ledger_.storage_gets;
}

void ObjectStorage::put(sg::Host* from, double bytes) {
  sg::sleep_for(params_.first_byte_latency_s);
  const auto in_flight = watch_.start(from, true);
  sg::transfer(from, host_, bytes);
  ++ledger_.storage_puts;
}

double ObjectStorage::lone_request_end_s(const sg::LoneRoute& route, double bytes, double start_s) const {
  return sg::lone_transfer_end_s(route, bytes, start_s + params_.first_byte_latency_s);
}

void ObjectStorage::get_sequence(sg::Host* to, double bytes_each, int count) {
  sg::sleep_for(count * params_.first_byte_latency_s);
  const auto in_flight = watch_.start(to, false);
  sg::transfer_sequence(host_, to, bytes_each, count);
  ledger_.storage_gets += count;
}

void ObjectStorage::put_sequence(sg::Host* from, double bytes_each, int count) {
  sg::sleep_for(count * params_.first_byte_latency_s);
  const auto in_flight = watch_.start(from, true);
  sg::transfer_sequence(from, host_, bytes_each, count);
  ledger_.storage_puts += count;
}

}  // namespace p2psim::simulation
