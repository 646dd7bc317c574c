#include "broker.hpp"

namespace p2psim::simulation {

void Broker::wait_until_reachable() {
  used_ = true;
  const double t = sg::now();
  if (t >= outage_from_s_ && t < outage_to_s_) sg::sleep_until(outage_to_s_);
}

void Broker::request() {
  wait_until_reachable();
  sg::sleep_for(params_.request_latency_s);
}

void Broker::process_message() {
  wait_until_reachable();
  cpu_.lock();
  sg::sleep_for(params_.per_message_cpu_s);
  cpu_.unlock();
}

void Broker::receive_inline(sg::Host* from, double bytes) {
  wait_until_reachable();
  sg::transfer(from, host_, bytes);
}

void Broker::deliver_inline(sg::Host* to, double bytes) { sg::transfer(host_, to, bytes); }

}  // namespace p2psim::simulation
