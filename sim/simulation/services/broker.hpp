// A RabbitMQ-like broker on its own instance: request round trips (publish a key, basic_get, queue_declare),
// per-message CPU one message at a time, inline messages through its NIC, and declared outages during which
// every operation waits for it to come back (clients retry). A design that uses it pays its uptime.
#pragma once
#include "../../cloud_profile.hpp"
#include "../sg/adapter.hpp"

namespace p2psim::simulation {

class Broker {
 public:
  Broker(const p2psim::Broker& params, sg::Host* host, double outage_from_s, double outage_to_s)
      : params_(params), host_(host), outage_from_s_(outage_from_s), outage_to_s_(outage_to_s) {}
  /// Returns at once unless the broker is in a declared outage.
  void wait_until_reachable();
  /// One request round trip.
  void request();
  /// The broker's CPU for one message.
  void process_message();
  /// A message of `bytes` from a client to the broker, and from the broker to a client.
  void receive_inline(sg::Host* from, double bytes);
  void deliver_inline(sg::Host* to, double bytes);
  bool used() const { return used_; }

 private:
  const p2psim::Broker& params_;
  sg::Host* host_;
  double outage_from_s_, outage_to_s_;
  sg::Mutex cpu_;
  bool used_ = false;
};

}  // namespace p2psim::simulation
