// An experiment file (experiments/*.xml), parsed and validated into plain values. Unset values come from
// experiments/defaults.xml, whose every default cites its source.
#pragma once
#include <pugixml.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../util/input_error.hpp"
#include "cloud_profile.hpp"

namespace p2psim {

enum class Transport { Inline, Storage, Auto };

/// Constants of the account in the profile's <function_service> that an experiment may set as attributes of its
/// <functions> (each becomes an override of function_service/@NAME).
inline constexpr const char* kFunctionsAccountAttributes[] = {"keep_alive_s", "concurrency_limit", "network_quota"};
/// An override's select as the name of the constant it sets: as written, but for a leading "./" (other spellings
/// of one XPath are not recognised).
inline std::string bare_select(const std::string& select) {
  return select.rfind("./", 0) == 0 ? select.substr(2) : select;
}

/// One training system an experiment compares: a named strategy (sim/simulation/strategies/) with its own
/// parameters, which the strategy reads and checks.
struct SystemSpec {
  std::string name, strategy;
  std::map<std::string, std::string> params;  // every other attribute of <system>
  std::string file;  // where it was declared, for messages
  long line = 0;
};
enum class Consume { Poll, Push };

struct Experiment {
  std::string path, name;
  unsigned long long seed = 1;
  /// What the file says that is deprecated (and what to say instead) or has no effect in this experiment, each
  /// with its line: warned of, still read.
  std::vector<InputError> warnings;

  std::string profile_path;
  /// <profile as_of>: the platform as measured nearest to this date where the profile's <history> knows an
  /// earlier measurement ("": the profile as written, its latest measurements).
  std::string profile_as_of;
  std::vector<ProfileOverride> overrides;
  /// <prices file>: a price book instead of the platform's (empty: the platform's), and overrides of its values.
  std::string price_book_path;
  std::vector<ProfileOverride> price_overrides;
  std::vector<std::string> calibration_paths;
  // "instance:<type>" or "function:<x86|arm>" -> CSVs measured on that target (<calibration><target .../>)
  std::map<std::string, std::vector<std::string>> target_calibration_paths;
  std::map<std::string, long> target_calibration_lines;  // each target's <target> line, for its errors
  std::string models_path;  // parameter counts of the zoo (p2psim models --csv)
  bool cost_includes_broker = true;  // <cost include_broker>: what the cost ratio counts

  struct Workload {
    std::string model, input_shape, dataset;
    long long train_samples = 0, classes = 0;  // train_samples: the first N of the (seeded) shuffled dataset
    long long batch_size = 0;            // 0 when minibatches_per_peer is given
    long long minibatches_per_peer = 0;  // 0 when batch_size is given
    long long iterations = 0;            // synchronous updates; one pass over the local shard each
    bool measured_variability = true;    // draw step times from the calibration's measured spread
    std::string input_pipeline = "none";  // what a step also pays to make its batch ("to_tensor": a Python
                                          // trainer's DataLoader, calibration/python/input_pipeline.py)
    int threads = 0;  // the trainer's intra-op threads (OMP_NUM_THREADS, torch.set_num_threads); 0: "all" vCPUs
    // The kind of CPU work its steps are, which sets the speed factor every host of the run computes at:
    // "vector" (LibTorch's kernels; benchmark scores that follow vector work) or "scalar" (code without vector
    // kernels: integer, pointer-heavy or scalar floating point, as validation stand-ins such as a graph search, a
    // Python sort or a Node.js loop; the profile's scalar factors). Work of a run is all of the one kind.
    std::string cpu_work = "vector";
  } workload;

  /// One kind of peer (<peers><group count= instance_type= slowdown= name=/>): `count` instances of a type,
  /// whose own CPU work takes `slowdown` times longer. Peers are numbered group after group.
  struct PeerGroup {
    std::string name, instance_type;
    int count = 0;
    double slowdown = 1;
    long long shard_samples = 0;  // training samples per peer; 0: an even share of what other groups leave
    long line = 0;       // where it is declared (<peers>'s line without <group>)
    std::string field;   // the path of its attributes: "peers" or "peers/group[2]"
  };
  int peers = 0;                       // every group's together
  long peers_line = 0;                 // where <peers> is
  std::vector<PeerGroup> peer_groups;  // one, of every peer, without <group>
  bool cluster_placement = false;       // <peers placement="cluster">: the instances share a cluster placement group
  /// The peers' instance type(s) as one label, for tables and CSV: "t2.large", or "8xt3.medium+4xc5.large".
  std::string instance_type;
  /// The group peer `peer` belongs to.
  int group_of(int peer) const;

  /// The systems compared, in the order declared; `baseline` names the one the others are compared with.
  /// Without <systems>, the paper's two: instance (peers compute) and serverless (functions compute).
  std::vector<SystemSpec> systems;
  std::string baseline;

  struct Functions {
    int memory_mb = 0;
    std::string arch;  // x86 | arm
    int minibatches_per_invocation = 1;
  } functions;

  struct Exchange {
    /// Deprecated (a system's transport="..." says it): how the paper's all-to-all sends from peers and from
    /// functions, when an old experiment file still says so here; unset, the design's own default.
    std::optional<Transport> instance_transport, serverless_transport;
    long long inline_max_bytes = 0;  // Auto sends inline up to this size, through storage above
    Consume consume = Consume::Poll;
    double poll_interval_s = 0;
    std::string compression = "none";  // none | qsgd8_paper | qsgd8_packed | topk | fp16 (see sim/compute/codec.hpp)
    double topk_ratio = 0.01;
    bool compress_functions = false;   // also the functions' gradients to their peer
    bool error_feedback = false;       // a lossy codec adds what it left out last time (replays only)
  } exchange;

  struct Barrier {
    /// Deprecated (a system's barrier="..." says it): whether the all-to-all's peer-computing and
    /// function-computing systems wait at the barrier, when an old experiment file still says so here.
    std::optional<bool> instance, serverless;
    double initial_wait_s = 0, poll_interval_s = 0, settle_s = 0;
  } barrier;

  double workflow_status_poll_interval_s = 0;
  double function_failure_probability = 0;  // each function attempt crashes with this probability
  struct Window {
    double from_s = 0, to_s = 0;  // [from, to)
  };
  std::vector<Window> broker_outages;  // the broker (its host and network) is unreachable, in time order
  int crash_peer = -1;             // this peer crashes at crash_at_s (-1: none) ...
  double crash_at_s = 0;
  double rejoin_after_s = 0;       // ... and rejoins that much later (0: never)
  double peer_timeout_s = 0;       // how long peers wait for a gradient before presuming its sender dead (0: forever)
  bool asynchronous = false;
  int staleness_bound = 0;  // iterations a peer may run ahead of the slowest (0: synchronous)

  struct Stragglers {
    std::vector<double> slowdown;  // per peer: its own CPU work takes this many times longer (1 when not listed)
    double tail_probability = 0;   // a step (peer or function) is hit by a heavy tail with this probability ...
    double tail_shape = 3;         // ... and then lasts Pareto(shape, scale 1) times longer
  } stragglers;
  /// <accuracy>: train the model for real on the simulated schedule (`p2psim replay`) and report time and
  /// cost to reach `target` test accuracy. Off when the experiment has no <accuracy>.
  struct Accuracy {
    bool enabled = false;
    double target = 0;                       // test accuracy in (0, 1]
    double learning_rate = 0, momentum = 0;  // SGD with momentum, each peer on its own model
    int eval_every = 0;                      // iterations between test evaluations (and the last one)
    long long test_samples = 0;              // the first N of the test set
    std::string data_dir;                    // the dataset's files; empty: the Debian package's folder
  } accuracy;
  /// Line of each top-level element, for errors found after parsing (e.g. an unknown instance type).
  std::map<std::string, long> lines;
  /// An InputError about `field` of element `element` of this experiment.
  InputError error(const std::string& element, const std::string& field, const std::string& what) const;
  /// The files a run reads besides the experiment's own (its provenance): profile, calibration, models.
  std::vector<std::string> input_files() const;
};

/// Parses `path`, filling unset values from `defaults_path`. Throws InputError naming file, line, field.
/// `sweep_file`: the file is a sweep's own, read as the experiment its scenarios vary; its <sweep> is not refused.
Experiment load_experiment(const std::string& path, const std::string& defaults_path, bool sweep_file = false);

/// Makes every file-naming attribute under `node` (profile/@file, calibration/@files, calibration/@models)
/// absolute, relative to `base_dir`.
void resolve_relative_paths(pugi::xml_node node, const std::string& base_dir);

/// 1-64 letters, digits, '_', '-' or '.': a name that goes into CSV rows and figure captions as it is.
bool valid_name(const std::string& name);

/// The defaults file shipped with p2psim (data_dir()/experiments/defaults.xml).
std::string default_experiment_defaults_path();

}  // namespace p2psim
