#include "broker.hpp"

#include <algorithm>

namespace p2psim::simulation {

void Broker::wait_until_reachable() {
  used_ = true;
  for (const auto& w : outages_)  // in time order: waiting out one may end inside the next
    if (sg::now() >= w.from_s && sg::now() < w.to_s) sg::sleep_until(w.to_s);
}

void Broker::request() {
  wait_until_reachable();
  sg::sleep_for(params_.request_latency_s);
}

void Broker::process_message() {
  wait_until_reachable();
  // A reservation rather than a lock: a client that crashes while its message is processed leaves nothing held.
  sg::sleep_until(reserve_message_cpu(sg::now()));
}

double Broker::reserve_message_cpu(double arrival_s) {
  used_ = true;
  cpu_free_at_s_ = std::max(cpu_free_at_s_, arrival_s) + params_.per_message_cpu_s;
  return cpu_free_at_s_;
}

void Broker::receive_inline(sg::Host* from, double bytes) {
  do wait_until_reachable();
  while (!sg::try_transfer(from, host_, bytes));
}

void Broker::deliver_inline(sg::Host* to, double bytes) {
  do wait_until_reachable();
  while (!sg::try_transfer(host_, to, bytes));
}

}  // namespace p2psim::simulation
