#include "context.hpp"

#include <algorithm>
#include <stdexcept>

namespace p2psim::simulation {

p2psim::StorageClientRate function_client_rate(const Scenario& s, const TransferConfig& transfers) {
  // At the CPU's scalar speed whatever the run's kind: the client's rate is Lithops's loop measured on Lambda plus
  // what a design's loop does not do (mostly md5, scalar integer work), carried here by the speed it was calibrated
  // with (platforms/aws_us_east_1.xml, storage_client; docs/research/cpu_speed_factors.md, section 10).
  try {
    return s.profile.functions.client_rate(transfers.client_or_default(), s.function_scalar_speed_factor);
  } catch (const std::invalid_argument& e) {
    throw InputError(s.profile.path, 0, "function_service/storage_client", e.what());
  }
}

double peer_speed_factor(const Scenario& s, int i) {
  const auto& slowdowns = s.experiment.stragglers.slowdown;
  const double slowdown = static_cast<size_t>(i) < slowdowns.size() ? slowdowns[static_cast<size_t>(i)] : 1.0;
  return s.peer_type(i).cpu_speed_factor / slowdown;
}

double instance_client_bps(const Scenario& s, const InstanceType& type, double speed_factor,
                           const TransferConfig& transfers) {
  p2psim::StorageClientRate rate;
  try {
    rate = s.profile.functions.instance_client_rate(transfers.client_or_default(), speed_factor);
  } catch (const std::invalid_argument& e) {
    throw InputError(s.profile.path, 0, "function_service/storage_client", e.what());
  }
  const double bps = rate.bps_on(type.vcpus);
  return bps < std::min(type.nic_start_bps(), transfers.max_streams * s.profile.storage.stream_bandwidth_bps) ? bps : 0;
}

bool peer_storage_clients_bind(const Scenario& s, const TransferConfig& transfers) {
  for (int i = 0; i < s.experiment.peers; ++i)
    if (instance_client_bps(s, s.peer_type(i), peer_speed_factor(s, i), transfers) > 0) return true;
  return false;
}

Context::Context(const Scenario& scenario, const SystemSpec& sys, const sg::Platform& platform,
                 const TransferConfig& transfer_config, bool fetch_model)
    : s(scenario),
      system(sys),
      hosts(platform),
      random(scenario.experiment.seed),
      storage(scenario.profile.storage, transfer_config.prefixes, platform.storage, hosts.storage_watch, out.ledger),
      broker(scenario.profile.broker, platform.broker, scenario.experiment.broker_outages),
      functions(scenario.profile.functions, hosts, scenario.function_speed_factor, scenario.function_scalar_speed_factor,
                function_client_rate(scenario, transfer_config), out.ledger, random),
      workflow(scenario.profile.workflow, out.ledger),
      credits([&] {  // each peer's, of its own type
        std::vector<CpuCredits> all;
        all.reserve(static_cast<size_t>(scenario.experiment.peers));
        for (int i = 0; i < scenario.experiment.peers; ++i) all.emplace_back(scenario.peer_type(i));
        return all;
      }()),
      peer_started_s(scenario.experiment.peers, 0),
      pending(hosts.storage_watch),
      transfers(transfer_config),
      functions_fetch_model(fetch_model),
      slot_model(platform.function_slots.size(), {-1, -1, -1}) {
  for (int i = 0; i < scenario.experiment.peers; ++i) {
    peer_storage.emplace_back();
    renew_storage_client(i);
  }
  out.peer_end_s.assign(scenario.experiment.peers, 0);
  out.iterations_done.assign(scenario.experiment.peers, 0);
}

void Context::renew_storage_client(int peer) {
  auto& client = peer_storage[static_cast<size_t>(peer)];
  client.host = hosts.peers[static_cast<size_t>(peer)];
  client.draws = random.stream(Draw::StorageRequest, {peer}, instance_of(peer));
  client.transfers = transfers;
}

double Context::computed_function_transfer(StorageClient& client, bool upload, double bytes, double start_s) {
  double end_s = start_s;
  for (const auto& [plan, t] : storage.compute_steps(client, upload, bytes, start_s)) {
    pending.add_requests(t.end_s, plan.get_requests, plan.put_requests, client.slot);
    if (hosts.storage_watch.watching()) {  // in flight from its first flow on, as ObjectStorage::get and put count it
      pending.add_slot_transfer(t.first_flow_s, PendingRecords::Kind::SlotTransferStarts, client.slot, upload);
      pending.add_slot_transfer(t.end_s, PendingRecords::Kind::SlotTransferEnds, client.slot, upload);
    }
    end_s = t.end_s;
  }
  return end_s;
}

void Context::complete_iteration_at(double at_s, int peer, int iteration, std::vector<GradientVersion> gradients) {
  if (!pending.settle(at_s, out)) sg::abandon_simulation();  // what computed activities recorded by now
  ++out.iterations_done[peer];
  // Only a replay reads the schedule, and an all-to-all's holds peers^2 versions per iteration: recorded only
  // when the experiment asks for accuracy.
  if (!s.experiment.accuracy.enabled) return;
  const auto& l = out.ledger;
  const UsageMark usage{static_cast<long long>(l.function_runs.size()), l.workflow_transitions, l.storage_gets,
                        l.storage_puts};
  const bool whole = gradients.empty();
  out.updates.push_back({peer, iteration, at_s, usage, whole, std::move(gradients)});
}

double Context::step_noise(StepTarget target, Random::Stream& draws, int group) {
  double factor = 1.0;
  if (s.experiment.workload.measured_variability)
    factor = s.step_model(target, group).draw_step_noise(s.experiment.workload.model, s.experiment.workload.input_shape,
                                                         draws.next());
  const auto& st = s.experiment.stragglers;
  if (st.tail_probability > 0 && draws.uniform() < st.tail_probability)
    factor *= std::pow(1.0 - draws.uniform(), -1.0 / st.tail_shape);  // Pareto(shape, scale 1) by inversion
  return factor;
}

}  // namespace p2psim::simulation
