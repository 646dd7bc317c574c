// A cloud as p2psim models it: instance types, function, workflow, storage and broker services and network,
// loaded from platforms/<cloud>.xml, which names its price book (price_book.hpp: prices are apart from
// performance). Plain values; every number's unit is in its name.
#pragma once
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../util/input_error.hpp"
#include "spread.hpp"

namespace p2psim {

struct InstanceType {
  std::string name;
  int vcpus = 0;
  double memory_gib = 0;
  double nic_bandwidth_bps = 0;  // bytes per second, each way: the baseline an instance can sustain
  // "Up to" network performance: above the baseline up to nic_burst_bps while its network I/O credits last. Each
  // direction's balance holds nic_credit_s seconds of baseline traffic, full at launch; it drains by what the NIC
  // moves above its baseline and refills by what it leaves below (sg/nic_credits.hpp).
  double nic_burst_bps = 0, nic_credit_s = 0;
  bool nic_bursts() const { return nic_burst_bps > nic_bandwidth_bps && nic_credit_s > 0; }
  /// Its NIC's rate at the start of a run: an "up to" type's burst (its credits start full), else its baseline.
  double nic_start_bps() const { return nic_bursts() ? nic_burst_bps : nic_bandwidth_bps; }
  double cpu_speed_factor = 1;   // one vCPU relative to one core of the calibration machine
  // The same on scalar work (a workload's cpu_work="scalar": code without vector kernels, integer, pointer-heavy or
  // scalar floating point), which older CPUs run closer to a new one than vector work; 0 when not given.
  double cpu_scalar_speed_factor = 0;
  // Burstable CPU credits (T2/T3); credits_earned_per_hour == 0 for fixed-performance types.
  double credits_earned_per_hour = 0, max_credits = 0, launch_credits = 0;
  bool unlimited = false;  // unlimited mode: never throttled, surplus credits billed
  bool burstable() const { return credits_earned_per_hour > 0; }
};

/// What a storage client moves on a CPU: `bps_per_vcpu` per second of one vCPU, on at most `max_cores` of them (a
/// Python client whose parts share one interpreter gains a third from a second core:
/// calibration/kernels/storage_client_cores.txt).
struct StorageClientRate {
  double bps_per_vcpu = 0;
  double max_cores = 1;
  /// On a CPU share of `vcpus` (below one, slower in proportion).
  double bps_on(double vcpus) const { return std::min(vcpus, max_cores) * bps_per_vcpu; }
};

struct FunctionServiceParams {
  int memory_min_mb = 0, memory_max_mb = 0;
  double memory_per_vcpu_mb = 0, max_vcpus = 0;
  int concurrency_limit = 0;
  double keep_alive_s = 0, max_timeout_s = 0;
  double cpu_speed_factor_x86 = 1, cpu_speed_factor_arm = 1;
  double cpu_scalar_speed_factor_x86 = 1, cpu_scalar_speed_factor_arm = 1;  // on scalar work (and the runtime's import)
  /// A function's network rate at a memory size: one TCP stream's, and all its streams' together.
  struct NetworkPoint {
    int memory_mb = 0;
    double stream_bps = 0, total_bps = 0;
  };
  std::vector<NetworkPoint> network;  // ascending memory; linear between points, flat beyond the ends
  /// Each direction of a function's network is a token bucket (0: none): it moves at its NIC's rate (`total_bps`)
  /// until it has moved `network_burst_bytes` more than `network_sustained_bps` would have, then at that rate; an
  /// idle direction's bucket earns its credit back at `network_refill_bps`.
  double network_sustained_bps = 0, network_burst_bytes = 0, network_refill_bps = 0;
  /// The account's "network bandwidth per execution environment" quota (AWS documents it: 625 Mbit/s by default;
  /// an account may ask for it to scale with memory, since 2026-08): the documented bandwidth at memory sizes
  /// (ascending; linear between them, flat beyond the ends), and whether this account scales. Its default is the
  /// first point's. Scaled, a function's sustained rate is `network_sustained_bps` (measured under the default) times
  /// its memory's quota over the default; nothing else of its network changes. Empty: no quota known, no scaling.
  struct NetworkQuotaPoint {
    int memory_mb = 0;
    double bandwidth_bps = 0;
  };
  std::vector<NetworkQuotaPoint> network_quota;
  bool network_quota_scalable = false;
  /// The sustained rate of a function of `memory_mb` (network_sustained_bps, scaled as the quota says).
  double sustained_bps_at(int memory_mb) const;
  /// What a function's storage client (Python's boto3 over TLS) receives or sends per second of one vCPU, measured
  /// on Lambda with the loop `storage_client_measured_with`: below that CPU, a small function moves bytes no faster
  /// than its CPU share lets it.
  double storage_client_bps_per_vcpu = 0;
  std::string storage_client_measured_with;
  /// The ways a client reads (<storage_client name>: get_object, transfer_manager, ...) and the CPU each spends
  /// per byte on one core of the calibration CPU (the profile's <cpu_reference>).
  std::map<std::string, double> storage_client_s_per_byte_on_reference_cpu;
  /// The cores' worth of that rate each way of reading reaches at most, however many vCPUs it has (a loop on one
  /// thread: 1; boto3's transfer manager: measured; unbounded: infinity).
  std::map<std::string, double> storage_client_max_cores;
  std::vector<std::pair<int, int>> visible_cores;  // (up to this memory in MB, cores), ascending
  double cold_start_image_median_s = 0, cold_start_image_sigma = 0;
  /// The runtime's import of the function's modules on one core of the calibration CPU (the profile's
  /// <cpu_reference>): a cold container runs it at its own CPU's speed, on at most one vCPU (an import is one thread).
  double runtime_import_s_on_reference_cpu = 0;

  /// CPU share in vCPUs: memory / memory_per_vcpu_mb, capped at max_vcpus and at the visible cores.
  double vcpus(int memory_mb) const;
  int visible_cores_for(int memory_mb) const;
  /// The network of a function of `memory_mb`: its rates interpolated between the measured sizes.
  NetworkPoint network_at(int memory_mb) const;
  /// What a function of `memory_mb` moves to or from storage at most: all its streams together (its network, and
  /// its client on its CPU share but at most the client's max cores) and one stream (also at most one vCPU). A
  /// function's stream rate was measured to and from object storage itself (N4), so the service's side of a stream
  /// is in it: the service's own per-stream rate (ObjectStorageParams::stream_bandwidth_bps, measured from EC2)
  /// caps instances' streams, not these.
  struct StorageRates {
    double all_streams_bps = 0, stream_bps = 0;
    double sustained_bps = 0, burst_bytes = 0, refill_bps = 0;  // the network's token bucket (network_*)
  };
  StorageRates storage_rates(int memory_mb, const StorageClientRate& client) const;
  /// What a storage client that reads with `client` (a <storage_client name>) moves per second of one vCPU whose
  /// speed is `speed_factor` of the calibration CPU's core: the rate measured on Lambda, with the CPU time per byte
  /// by which its loop and `client` differ on the calibration CPU, over the speed factor, taken off or added on.
  /// Throws std::invalid_argument for an unknown client or a rate that would not be positive.
  double client_bps_per_vcpu(const std::string& client, double speed_factor) const;
  /// The same, with the cores it can use at most (storage_client_max_cores).
  StorageClientRate client_rate(const std::string& client, double speed_factor) const;
  /// What `client` moves on an instance's vCPU of `speed_factor`: its CPU per byte on the calibration CPU over the
  /// speed factor (no Lambda measurement to start from), on at most its max cores. Throws std::invalid_argument for
  /// an unknown client.
  StorageClientRate instance_client_rate(const std::string& client, double speed_factor) const;
};

struct WorkflowServiceParams {
  double transition_latency_s = 0;
  // A fan-out's branches start in a burst, then one at a time, each interval longer than the one before up to a
  // cap (calibration/python/step_functions_fan_out.py).
  int parallel_burst_branches = 0;
  double parallel_first_interval_s = 0, parallel_interval_growth_s = 0, parallel_max_interval_s = 0;
  int transitions_per_execution = 0, transitions_per_branch = 0;
  int task_retry_attempts = 0;  // retries of a failed function before the execution fails

  /// Delay from the Parallel state's start until branch `i` (0-based) starts: the transition, then for i >= the
  /// burst the sum of i - burst + 1 intervals, interval k being min(max, first + growth x k).
  double branch_start_delay_s(int i) const;
};

struct ObjectStorageParams {
  /// One request's time to first byte (the service's work and the client's request round trip): lognormal.
  struct FirstByte {
    double median_s = 0, sigma = 0;
  };
  FirstByte get, put;
  double list_per_key_s = 0;           // a LIST's time per key it lists, after its first byte
  int list_max_keys = 0;               // the most keys one LIST answers with (ListObjectsV2's MaxKeys)
  double stream_bandwidth_bps = 0;     // what one TCP stream to or from the service carries at most
  double aggregate_bandwidth_bps = 0;  // what all clients together may move, each way
  // Requests per second that one partitioned key prefix serves; beyond, clients are slowed down (503 SlowDown).
  double get_requests_per_prefix_per_s = 0, put_requests_per_prefix_per_s = 0;
  // A multipart transfer's part, at least and at most (the last part may be smaller), and an object's largest size.
  double part_min_bytes = 0, part_max_bytes = 0, object_max_bytes = 0;
};

struct BrokerParams {
  std::string instance;
  double nic_bandwidth_bps = 0, per_message_cpu_s = 0, request_latency_s = 0;
  long long max_message_bytes = 0;
};

/// What a gradient costs as JSON text in a Redis-like database, as SPIRT's code writes and averages it: the CPU
/// per element on the calibration CPU (scalar work: interpreters' loops, float formatting and parsing) and the
/// text's bytes per element.
struct JsonCodecParams {
  double python_encode_s_per_element = 0;  // json.dumps(tensor.tolist()), in a function
  // np.array(json.loads(text), float32) of a function's text (repr's digits), and of the database's average (cjson's)
  double python_decode_gradient_s_per_element = 0, python_decode_average_s_per_element = 0;
  double python_bytes_per_element = 0;     // the text json.dumps writes
  double lua_decode_add_s_per_element = 0;  // inside the database: one gradient's cjson.decode and its additions
  double lua_encode_s_per_element = 0;      // the division and cjson.encode of the average, less one addition
  double lua_bytes_per_element = 0;         // the text cjson.encode writes (%.14g)
  long long max_value_bytes = 0;            // the largest string the database holds
};

/// The SSH tunnel through which a function reaches the database (SPIRT's functions: sshtunnel over paramiko): its
/// key exchange, authentication, one channel and its close; then each MB (10^6 bytes) that crosses it. Scalar work
/// on each side, on the calibration CPU.
struct SshTunnelParams {
  double client_cpu_s = 0;  // the function's
  double server_cpu_s = 0;  // sshd's, on the database's host
  double wait_s = 0;        // idle between the two (TCP's delayed acknowledgements meeting Nagle's algorithm)
  int round_trips = 0;      // between the function and the database's host
  // Per MB through the open tunnel: sshtunnel's relay, paramiko's ciphers and MACs on the function, sshd's on the
  // database's host. A download is the database's reply to the function, an upload what the function writes.
  double download_client_cpu_s_per_mb = 0, download_server_cpu_s_per_mb = 0;
  double upload_client_cpu_s_per_mb = 0, upload_server_cpu_s_per_mb = 0;
};

struct KvStoreParams {
  double per_request_cpu_s = 0;  // the database server's CPU for one request (calibration-CPU seconds)
  std::optional<JsonCodecParams> json;  // <json_codec>, where the profile gives it
  std::optional<SshTunnelParams> ssh_tunnel;  // <ssh_tunnel>, where the profile gives it
};

/// SimGrid's flow model and the factors that fit it to TCP (https://simgrid.org/doc/latest/Models.html). A
/// factor left out is the model's own (LV08: 0.97, 13.01, 4 MiB; CM02: 1, 1, 4 MiB).
struct NetworkModel {
  std::string name;                         // LV08 or CM02
  std::optional<double> bandwidth_factor;   // the share of a link's bandwidth a TCP flow gets
  std::optional<double> latency_factor;     // a transfer's latency, in route latencies (TCP's slow start)
  std::optional<double> tcp_gamma_bytes;    // the TCP window: a flow gets at most gamma / (2 x its route's latency)
  std::optional<bool> cross_traffic;        // a flow's ACKs also take 5 % of its rate on the way back
};

struct CloudProfile {
  std::string name, path;
  std::string price_book_path;  // the platform's price book (<price_book file>), absolute
  NetworkModel network_model;
  double one_way_latency_s = 0;
  double single_flow_bps = 0;  // what one flow between two instances carries at most; 0: no limit of its own
  /// The same between instances in one cluster placement group (an experiment's <peers placement="cluster">);
  /// 0: as outside one.
  double single_flow_placement_group_bps = 0;
  double runtime_baseline_mb = 0;  // the training process before any model (Python + torch + torchvision)
  /// The CPU the speed factors are relative to, as `p2psim calibrate` names it (CPUID); empty when not given.
  std::string cpu_reference_identity;
  long cpu_reference_line = 0;
  std::map<std::string, InstanceType> instance_types;
  FunctionServiceParams functions;
  WorkflowServiceParams workflow;
  ObjectStorageParams storage;
  BrokerParams broker;
  KvStoreParams kv_store;
  std::vector<Spread> spreads;  // the constants that carry one (spread.hpp), after overrides
};

/// A change to one profile value, written in an experiment: an XPath relative to <cloud> selecting
/// attributes (e.g. "function_service/@keep_alive_s"), and the new value.
struct ProfileOverride {
  std::string select, value;
  std::string file;  // where the override was written, for messages
  long line = 0;
  std::string element = "override";  // what wrote it, for messages: an experiment's <override>, a profile's history <value>
  /// The field a bad value is blamed on when not element/@value: an experiment's attribute that stands for this
  /// override (<functions network_quota>), as the user wrote it.
  std::string field = "";
  /// Not 0: instead of setting one attribute to `value`, every attribute `select` matches (several, one or none) is
  /// multiplied by this, and its spread with it (`run --sensitivity`: a group of constants made slower).
  double scale = 0;
};

/// Applies `overrides` to the document of `xml` (a profile or a price book): each sets one attribute.
/// Throws InputError naming the override's file and line.
class XmlFile;
void apply_overrides(XmlFile& xml, const std::vector<ProfileOverride>& overrides);
/// Rethrows `e`, an error reading a file that `overrides` changed, as the override's own when a value one of them
/// wrote is what was wrong (naming its file and line), else as it is.
[[noreturn]] void blame_override(const InputError& e, const std::vector<ProfileOverride>& overrides);

/// Loads and validates a profile, applying first its <history>'s values as of `as_of` ("YYYY-MM[-DD]"; "" for the
/// profile as written: profile_history.hpp), then `overrides` (an override of a value drops its spread). Throws
/// InputError naming file, line, field.
CloudProfile load_cloud_profile(const std::string& path, const std::vector<ProfileOverride>& overrides = {},
                                const std::string& as_of = "");

}  // namespace p2psim
