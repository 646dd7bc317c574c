// Building blocks every peer-based design shares: the peer's CPU (burstable credits included), loading its
// data shard, and computing one iteration's gradient — on the peer itself, one minibatch after another, or
// fanned out to functions through the workflow service and averaged on the peer (the paper's two ways).
#pragma once
#include <string>

#include "../context.hpp"
#include "params.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {

enum class GradientCompute { Peer, Functions };

/// Reads the system's `compute` attribute (peer | functions); with functions, checks that every invocation
/// ends within the function timeout. Throws InputError naming the system.
GradientCompute read_gradient_compute(StrategyParams& params, const Scenario& s, const std::string& fallback);

/// What computing gradients `how` needs of the platform: with functions, their container slots and the broker
/// (they publish their gradients' keys through it, as the paper's lambda queues), plus slots for
/// `other_functions` more containers of the design's own (aggregators, reducers).
PlatformNeeds gradient_needs(const Scenario& s, GradientCompute how, int other_functions = 0);
/// The gradient functions' share of a design's footprint (none when peers compute): a container actor per
/// invocation at most; per invocation 7 phases at most (data and model fetch, compute, upload, deserialise...),
/// per peer-iteration 6 of the peer's around them (orchestration, polling, collect, model upload, serialise,
/// local average), and a cold start per container (counted on mnist_cnn and VGG-11 runs, 2026-12-03).
Footprint gradient_functions_footprint(const Scenario& s, GradientCompute how);

/// The peer's CPU busy with `reference_s` of work (calibration-CPU seconds): at the host's speed, slower once
/// a standard-mode burstable instance has run out of credits. `busy_vcpus`: how many vCPUs the work keeps
/// busy (1 for single-threaded kernels), which is what burstable credits drain by.
void peer_cpu(Context& c, int peer, double reference_s, double busy_vcpus = 1);

/// The work of peer_cpu, started at `start_s`: reference seconds at the host's full speed, then at its throttled
/// speed (a standard-mode burstable instance whose credits ran out meanwhile). Spends the peer's credits.
struct PeerCpuSplit {
  double full_reference_s = 0, throttled_reference_s = 0;
};
PeerCpuSplit plan_peer_cpu(Context& c, int peer, double start_s, double reference_s, double busy_vcpus = 1);
/// peer_cpu computed rather than simulated, for a peer whose CPU nothing else uses: when the work started at
/// `start_s` ends (strategies/computed_participants.hpp).
double peer_cpu_end_s(Context& c, int peer, double start_s, double reference_s, double busy_vcpus = 1);

/// One iteration's gradient on the peer's own CPU: every minibatch's step (with its noise, drawn from the peer's
/// stream of the iteration) and their running sum, in reference seconds, and the vCPUs that keeps busy.
struct PeerWork {
  double reference_s = 0, busy_vcpus = 1;
};
PeerWork peer_gradient_work(Context& c, int peer, int iteration);

/// Work of `reference_s` inside peer `peer`'s database `database`: on the peer's CPU, credits included, where the
/// database runs on the peer; on its own server's CPU otherwise.
void database_cpu(Context& c, int peer, KvStore& database, double reference_s);

/// The peer turns a tensor of `bytes` into bytes to send (torch.save, pickle), or back: on its CPU, traced as
/// a serialize / deserialize row inside the phase that moves it.
void serialize(Context& c, int peer, int iteration, double bytes);
void deserialize(Context& c, int peer, int iteration, double bytes);

/// GETs the peer's data shard from object storage (phase data_fetch).
void load_shard(Context& c, int peer, int iteration);

/// A peer's start: computing on the peer, it loads its shard and checks that its largest training step fits.
/// When it does not, the step runs until memory runs out, the reason is recorded and it returns false (the
/// peer has ended: the system cannot train).
bool start_peer(Context& c, int peer, GradientCompute how);

/// The SGD step on the peer's averaged gradient (costed as one two-gradient pass); the iteration is done.
/// `gradients`: what was averaged (Context::complete_iteration); empty: every peer's of `iteration`.
void apply_update(Context& c, int peer, int iteration, std::vector<GradientVersion> gradients = {});

/// Computes the peer's gradient of `iteration`. Returns false when the functions' workflow execution failed:
/// the failure is recorded and the peer must stop, as the paper's peer script exits. With `database` (SPIRT),
/// functions pull the parameters from it and write their gradients into it, and the peer averages them there;
/// otherwise (the paper) they PUT their gradients to object storage, publish the keys, and the peer GETs and
/// averages them.
/// `average_in_database` (SPIRT's aggregation="database"): the workflow goes on from its Parallel state into
/// SPIRT's averaging Task, which the caller runs (spirt.cpp); this returns as that state is entered, with no status
/// poll. Otherwise the peer polls until the execution ends, reads the gradients out, parses or deserialises them,
/// averages them and writes the average back.
bool compute_gradient(Context& c, int peer, int iteration, GradientCompute how, KvStore* database = nullptr,
                      bool average_in_database = false);

}  // namespace p2psim::simulation
