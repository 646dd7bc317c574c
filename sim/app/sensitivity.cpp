#include "sensitivity.hpp"

#include "../records/mechanisms.hpp"

namespace p2psim::app {
namespace {

// A profile attribute a group scales: a time (longer when slower) or a rate (lower when slower). A select may match
// several attributes (every instance type's) or none (a profile without it).
struct Scaled {
  const char* select;
  bool rate;
};

struct Group {
  const char* name;   // its mechanism's, or a name of its own where constants serve several
  const char* label;
  MechanismSet used_if;  // run when some system used one of these
  std::vector<Scaled> constants;
};

// Each mechanism's constants in the profile (platforms/aws_us_east_1.xml). A CPU's speed also sets how fast its
// storage client moves bytes where that binds, and an instance's NIC carries its storage transfers too: the labels
// say so rather than the groups pretending to be apart.
const std::vector<Group>& groups() {
  static const std::vector<Group> g{
      {"instance_compute", "instances' CPUs (training steps; a storage client where its CPU binds; SPIRT's JSON work)",
       bit(Mechanism::InstanceCompute),
       {{"instance_types/instance/@cpu_single_core_score", true},
        {"instance_types/instance/@cpu_speed_factor", true},
        {"instance_types/instance/@cpu_scalar_score", true},
        {"instance_types/instance/@cpu_scalar_speed_factor", true}}},
      {"function_compute", "functions' CPUs (their work; their storage client where its CPU binds)",
       bit(Mechanism::FunctionCompute),
       {{"function_service/@cpu_speed_factor_x86", true},
        {"function_service/@cpu_speed_factor_arm", true},
        {"function_service/@cpu_single_core_score_x86", true},
        {"function_service/@cpu_single_core_score_arm", true},
        {"function_service/@cpu_scalar_speed_factor_x86", true},
        {"function_service/@cpu_scalar_speed_factor_arm", true},
        {"function_service/@cpu_scalar_score_x86", true},
        {"function_service/@cpu_scalar_score_arm", true}}},
      {"function_cold_start", "functions' cold starts (the platform's start, the runtime's import)",
       bit(Mechanism::FunctionColdStart),
       {{"function_service/cold_start/@image_median_s", false},
        {"function_service/cold_start/@runtime_import_s_on_reference_cpu", false}}},
      {"workflow", "the workflow service (transitions, a fan-out's ramp)", bit(Mechanism::Workflow),
       {{"workflow_service/@transition_latency_s", false}, {"workflow_service/@parallel_first_interval_s", false},
        {"workflow_service/@parallel_interval_growth_s", false},
        {"workflow_service/@parallel_max_interval_s", false}}},
      {"object_storage_first_byte", "object storage's first byte and a LIST's keys (instances' and functions' requests)",
       bit(Mechanism::ObjectStorageFromEc2) | bit(Mechanism::ObjectStorageFromFunctions),
       {{"object_storage/@get_first_byte_median_s", false},
        {"object_storage/@put_first_byte_median_s", false},
        {"object_storage/@list_per_key_s", false}}},
      {"object_storage_from_ec2", "object storage's stream to and from instances", bit(Mechanism::ObjectStorageFromEc2),
       {{"object_storage/@stream_bandwidth_bps", true}}},
      {"object_storage_from_functions", "functions' network (a stream, all streams, the sustained rate, the refill)",
       bit(Mechanism::ObjectStorageFromFunctions),
       {{"function_service/network/@stream_bps", true},
        {"function_service/network/@total_bps", true},
        {"function_service/@network_sustained_bps", true},
        {"function_service/@network_refill_bps", true}}},
      {"broker", "the message broker (round trip, CPU per message, NIC)", bit(Mechanism::Broker),
       {{"broker/@request_latency_s", false}, {"broker/@per_message_cpu_s", false}, {"broker/@nic_bandwidth_bps", true}}},
      {"database", "the in-memory database's CPU per request, per element of a JSON gradient and for an SSH tunnel to it (SPIRT's code)",
       bit(Mechanism::Database),
       {{"kv_store/@per_request_cpu_s", false},
        {"kv_store/json_codec/@python_encode_s_per_element_on_reference_cpu", false},
        {"kv_store/json_codec/@python_decode_gradient_s_per_element_on_reference_cpu", false},
        {"kv_store/json_codec/@python_decode_average_s_per_element_on_reference_cpu", false},
        {"kv_store/json_codec/@lua_decode_add_s_per_element_on_reference_cpu", false},
        {"kv_store/json_codec/@lua_encode_s_per_element_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@client_cpu_s_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@server_cpu_s_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@download_client_cpu_s_per_mb_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@download_server_cpu_s_per_mb_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@upload_client_cpu_s_per_mb_on_reference_cpu", false},
        {"kv_store/ssh_tunnel/@upload_server_cpu_s_per_mb_on_reference_cpu", false}}},
      {"ec2_network", "the network between instances (latency, one flow's cap, instances' NICs)",
       bit(Mechanism::Ec2Network),
       {{"network/@one_way_latency_s", false},
        {"network/@single_flow_bps", true},
        {"network/@single_flow_placement_group_bps", true},
        {"instance_types/instance/@nic_bandwidth_bps", true},
        {"instance_types/instance/@nic_burst_bps", true}}},
  };
  return g;
}

double change_percent(double slower, double nominal) { return nominal > 0 ? 100.0 * (slower / nominal - 1) : 0; }

}  // namespace

Sensitivity run_sensitivity(const Scenario& scenario, const std::vector<SystemResult>& systems, const RunOptions& options,
                            double slowdown) {
  Sensitivity out;
  out.slowdown = slowdown;
  MechanismSet used = 0;
  for (const auto& r : systems) used |= r.run.mechanisms;
  // The run's own results are the nominal ones: it simulated each system in a forked process with these options,
  // as the slower ones are.
  const std::vector<SystemResult>& nominal = systems;
  for (const Group& g : groups()) {
    if ((g.used_if & used) == 0) continue;
    Experiment e = scenario.experiment;
    for (const Scaled& c : g.constants) {
      ProfileOverride o;
      o.select = c.select;
      o.scale = c.rate ? 1 / slowdown : slowdown;
      o.element = "sensitivity";
      e.overrides.push_back(o);
    }
    const Scenario slower_scenario = resolve_scenario(e);
    std::vector<const SystemSpec*> specs;
    for (const auto& system : slower_scenario.experiment.systems) specs.push_back(&system);
    const std::vector<SystemResult> slower = simulate_systems(slower_scenario, specs, options);
    for (size_t i = 0; i < nominal.size(); ++i) {
      SensitivityRow row{g.name, g.label, nominal[i].name, slowdown};
      row.feasible = nominal[i].feasible() && slower[i].feasible();
      if (row.feasible) {
        row.time_change_percent = change_percent(slower[i].total_s, nominal[i].total_s);
        row.cost_change_percent = change_percent(slower[i].cost.total_usd(), nominal[i].cost.total_usd());
      }
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace p2psim::app
