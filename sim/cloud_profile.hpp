// A cloud as p2psim models it: instance types, function, workflow, storage and broker services, network
// and prices, loaded from platforms/<cloud>.xml. Plain values; every number's unit is in its name.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace p2psim {

struct InstanceType {
  std::string name;
  int vcpus = 0;
  double memory_gib = 0;
  double price_per_hour_usd = 0;
  double nic_bandwidth_bps = 0;  // bytes per second
  double cpu_speed_factor = 1;   // one vCPU relative to one core of the calibration machine
  // Burstable CPU credits (T2/T3); credits_earned_per_hour == 0 for fixed-performance types.
  double credits_earned_per_hour = 0, max_credits = 0, launch_credits = 0;
  bool unlimited = false;  // unlimited mode: never throttled, surplus credits billed
  bool burstable() const { return credits_earned_per_hour > 0; }
};

struct FunctionService {
  int memory_min_mb = 0, memory_max_mb = 0;
  double memory_per_vcpu_mb = 0, max_vcpus = 0;
  int concurrency_limit = 0;
  double keep_alive_s = 0, max_timeout_s = 0;
  double billing_granularity_s = 0;
  bool init_billed = true;
  double price_per_gb_s_x86_usd = 0, price_per_gb_s_arm_usd = 0, price_per_request_usd = 0;
  double cpu_speed_factor_x86 = 1, cpu_speed_factor_arm = 1;
  double storage_bandwidth_bps = 0;
  std::vector<std::pair<int, int>> visible_cores;  // (up to this memory in MB, cores), ascending
  double cold_start_image_median_s = 0, cold_start_image_sigma = 0, runtime_import_s_at_1_vcpu = 0;

  /// CPU share in vCPUs: memory / memory_per_vcpu_mb, capped at max_vcpus and at the visible cores.
  double vcpus(int memory_mb) const;
  int visible_cores_for(int memory_mb) const;
};

struct WorkflowService {
  double transition_latency_s = 0;
  int parallel_burst_branches = 0;
  double parallel_ramp_branches_per_s = 0;
  double price_per_transition_usd = 0;
  int transitions_per_execution = 0, transitions_per_branch = 0;
  int task_retry_attempts = 0;  // retries of a failed function before the execution fails

  /// Delay from the Parallel state's start until branch `i` (0-based) starts.
  double branch_start_delay_s(int i) const;
};

struct ObjectStorage {
  double first_byte_latency_s = 0, per_connection_bandwidth_bps = 0, aggregate_bandwidth_bps = 0;
  double price_per_get_usd = 0, price_per_put_usd = 0;
};

struct Broker {
  std::string instance;
  double price_per_hour_usd = 0, billing_granularity_s = 0;
  double nic_bandwidth_bps = 0, per_message_cpu_s = 0, request_latency_s = 0;
  long long max_message_bytes = 0;
};

struct KvStoreParams {
  double per_request_cpu_s = 0;  // the database server's CPU for one request (calibration-CPU seconds)
};

struct CloudProfile {
  std::string name, path;
  std::string network_model;
  double one_way_latency_s = 0;
  double runtime_baseline_mb = 0;  // the training process before any model (Python + torch + torchvision)
  std::map<std::string, InstanceType> instance_types;
  double instance_billing_granularity_s = 0, instance_billing_minimum_s = 0;
  double surplus_credit_price_per_vcpu_hour_usd = 0;
  FunctionService functions;
  WorkflowService workflow;
  ObjectStorage storage;
  Broker broker;
  KvStoreParams kv_store;
};

/// A change to one profile value, written in an experiment: an XPath relative to <cloud> selecting
/// attributes (e.g. "function_service/@keep_alive_s"), and the new value.
struct ProfileOverride {
  std::string select, value;
  std::string file;  // where the override was written, for messages
  long line = 0;
};

/// Loads and validates a profile, applying `overrides` first. Throws InputError naming file, line, field.
CloudProfile load_cloud_profile(const std::string& path, const std::vector<ProfileOverride>& overrides = {});

}  // namespace p2psim
