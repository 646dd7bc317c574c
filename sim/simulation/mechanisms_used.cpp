#include "mechanisms_used.hpp"

#include <algorithm>

namespace p2psim::simulation {

MechanismSet mechanisms_used(const PlatformNeeds& needs, const RunOutput& out) {
  const Ledger& l = out.ledger;
  MechanismSet used = 0;
  auto use_if = [&](bool yes, Mechanism m) {
    if (yes) used |= bit(m);
  };
  // A peer's own training step: a compute phase of the peer itself, not of one of its functions (LambdaML's
  // peers are functions).
  const bool peer_computed = std::any_of(out.trace.begin(), out.trace.end(), [](const PhaseRecord& r) {
    return r.phase == Phase::Compute && r.invocation < 0 && r.peer >= 0;
  });
  use_if((needs.peers_are_instances && peer_computed) || needs.instances_do_scalar_work, Mechanism::InstanceCompute);
  use_if(out.cold_starts > 0, Mechanism::FunctionColdStart);
  use_if(!l.function_runs.empty(), Mechanism::FunctionCompute);
  use_if(l.workflow_transitions > 0, Mechanism::Workflow);
  use_if(l.function_storage_requests > 0, Mechanism::ObjectStorageFromFunctions);
  use_if(l.storage_gets + l.storage_puts > l.function_storage_requests, Mechanism::ObjectStorageFromEc2);
  use_if(needs.broker, Mechanism::Broker);
  use_if(needs.database, Mechanism::Database);
  // Gradients between instances: peer to peer, around a ring, to servers (a parameter server, a database's), or
  // inline through the broker's instance.
  use_if(needs.peer_to_peer || needs.peer_ring || !needs.servers.empty() || needs.gradients_through_broker,
         Mechanism::Ec2Network);
  return used;
}

}  // namespace p2psim::simulation
