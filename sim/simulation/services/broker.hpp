// A RabbitMQ-like broker on its own instance: request round trips (publish a key, basic_get, queue_declare),
// per-message CPU one message at a time, inline messages through its NIC, and declared outages during which
// every operation waits for it to come back (clients retry). A design that runs one pays its uptime.
#pragma once
#include <vector>

#include "../../inputs/cloud_profile.hpp"
#include "../../inputs/experiment.hpp"
#include "../sg/adapter.hpp"

namespace p2psim::simulation {

class Broker {
 public:
  /// `outages`: the windows in which the platform takes the broker's NIC down (sg/platform.hpp).
  Broker(const p2psim::BrokerParams& params, sg::Host* host, std::vector<Experiment::Window> outages)
      : params_(params), host_(host), outages_(std::move(outages)) {}
  /// Returns at once unless the broker is in a declared outage.
  void wait_until_reachable();
  /// One request round trip.
  void request();
  /// The broker's CPU for one message.
  void process_message();
  /// The same for a message that reaches the broker at `arrival_s` (now, or for a computed invocation, its own
  /// clock): takes the broker's CPU in turn and returns when the message is processed. No outage may be declared.
  double reserve_message_cpu(double arrival_s);
  double request_latency_s() const { return params_.request_latency_s; }
  /// A message of `bytes` from a client to the broker, and from the broker to a client. A transfer cut by an
  /// outage is sent again, whole, once the broker is back (the client reconnects and retries).
  void receive_inline(sg::Host* from, double bytes);
  void deliver_inline(sg::Host* to, double bytes);
  bool used() const { return used_; }

 private:
  const p2psim::BrokerParams& params_;
  sg::Host* host_;
  std::vector<Experiment::Window> outages_;
  double cpu_free_at_s_ = 0;  // messages take the broker's CPU one at a time, first come first served
  bool used_ = false;
};

}  // namespace p2psim::simulation
