// A fully resolved simulation input: the experiment, its cloud profile (overrides applied), the compute
// model and every derived quantity (minibatches, payload sizes, CPU shares). Pure: no SimGrid here.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../compute/compute_model.hpp"
#include "../inputs/cloud_profile.hpp"
#include "../inputs/experiment.hpp"
#include "../inputs/price_book.hpp"

namespace p2psim {

/// Where a training step runs: on a peer instance or in a function.
enum class StepTarget { Peer, Function };

struct Scenario {
  /// Every file the scenario read: the experiment's (Experiment::input_files) and the price book.
  std::vector<std::string> input_files() const;
  Experiment experiment;
  CloudProfile profile;
  PriceBook prices;  // the experiment's <prices file>, else the platform's price book; overrides applied
  ComputeModel compute;  // the calibration CPU: training steps, averaging and codecs
  // Training steps measured on the functions themselves (<calibration><target function_arch/>), if given.
  std::optional<ComputeModel> function_steps;
  /// Per peer group (Experiment::peer_groups, in order): its instance type, its training steps measured on that
  /// type (<calibration><target instance_type/>) if given, its memory, and each of its peers' shard: its
  /// minibatches (in order), how the functions split them, and what its largest steps need.
  struct PeerGroup {
    InstanceType type;
    std::optional<ComputeModel> steps;
    double memory_bytes = 0;
    long long shard_samples = 0;                       // per peer
    std::vector<long long> minibatches;                // sizes of one peer's minibatches, in order
    std::vector<std::vector<long long>> invocations;   // minibatch sizes handled by each function invocation
    double need_bytes = 0;                             // its largest minibatch's step on a peer
    std::vector<double> invocation_need_bytes;         // per invocation: its largest minibatch's step
  };
  std::vector<PeerGroup> peer_groups;
  std::vector<int> group_of_peer;  // per peer: its group
  int group_of(int peer) const { return group_of_peer.at(static_cast<size_t>(peer)); }
  const PeerGroup& group_of_peer_data(int peer) const { return peer_groups[static_cast<size_t>(group_of(peer))]; }
  const InstanceType& peer_type(int peer) const { return group_of_peer_data(peer).type; }
  /// Whether every peer holds a shard of the same size (every group's minibatches are the same).
  bool uniform_shards() const;
  /// Function invocations of one iteration of every peer together.
  long long invocations_per_iteration() const;

  long long parameters = 0, gradient_bytes = 0;
  // Gradient messages as they travel (encoded when the experiment compresses), and the codec's CPU time in
  // reference seconds (one thread of the calibration CPU; the host's speed applies when it runs).
  double exchange_bytes = 0;           // a peer's gradient to the other peers
  double function_gradient_bytes = 0;  // a function's gradient to its peer
  double encode_s = 0, decode_s = 0;
  double function_encode_s = 0;        // on a function's CPU share (below one vCPU it is time-sliced)
  long long sample_bytes = 0;                // one float32 input sample as the paper's pickles hold it
  double function_vcpus = 0, function_speed_factor = 1;
  // The function CPU's scalar speed: a cold function's runtime import (Python's modules and extensions) runs at it,
  // and its storage client's rate is carried by it (context.cpp, function_client_rate), whatever the run's kind.
  double function_scalar_speed_factor = 1;

  // Memory feasibility: what a training step needs (the runtime's footprint + the measured step memory) against
  // what a function or a peer instance has. Unchecked when the calibration holds no memory samples.
  bool memory_checked = false;
  double function_memory_bytes = 0;
  bool peer_fits(int group) const {
    const auto& g = peer_groups[static_cast<size_t>(group)];
    return !memory_checked || g.need_bytes <= g.memory_bytes;
  }
  bool invocation_fits(int group, size_t k) const {
    return !memory_checked || peer_groups[static_cast<size_t>(group)].invocation_need_bytes[k] <= function_memory_bytes;
  }
  /// What the largest gradient invocation needs, bytes (0 when memory is unchecked).
  double largest_invocation_need_bytes() const;
  /// The smallest function memory (MB) in which every invocation fits; 0 when none does; -1 when unchecked.
  int smallest_function_memory_mb() const;

  /// Whether a gradient sent with `transport` goes inline through the broker (else through object storage).
  bool sends_inline(Transport transport) const;

  // A step's target: a function, or a peer of group `group` (peer groups differ in type: CPU, vCPUs, and
  // their own measured steps). Functions ignore the group.
  /// One training step on the target's CPUs, its input pipeline included, in reference seconds (seconds of the calibration CPU, which a
  /// host of the target's speed factor runs in reference / factor wall seconds). A step measured on the target
  /// itself is converted with the target's factor, so that it takes exactly its measured wall time.
  double reference_step_s(StepTarget target, long long batch, int group = 0) const;
  /// The part of it that makes the batch (workload/@input_pipeline; 0 for "none"), in reference seconds.
  double reference_input_pipeline_s(StepTarget target, long long batch, int group = 0) const;
  /// Wall seconds of one training step on the target.
  double wall_step_s(StepTarget target, long long batch, int group = 0) const {
    return reference_step_s(target, batch, group) / speed_factor(target, group);
  }
  /// vCPUs a step keeps busy on the target (CPU time / wall time as calibrated); burstable credits drain by it.
  double step_busy_vcpus(StepTarget target, long long batch, int group = 0) const;
  /// An instance type's speed factor for the run's kind of work (workload/@cpu_work): its scalar factor for
  /// "scalar" (an input error if the profile gives none), else its own. Peer groups' types hold it already.
  double instance_speed_factor(const InstanceType& type) const;
  double speed_factor(StepTarget target, int group = 0) const {
    return target == StepTarget::Peer ? peer_groups[static_cast<size_t>(group)].type.cpu_speed_factor
                                      : function_speed_factor;
  }
  double vcpus(StepTarget target, int group = 0) const {
    return target == StepTarget::Peer ? peer_groups[static_cast<size_t>(group)].type.vcpus : function_vcpus;
  }
  /// vCPUs a training step can use: the target's, at most the trainer's threads (workload/@threads).
  double step_vcpus(StepTarget target, int group = 0) const {
    const int threads = experiment.workload.threads;
    return threads > 0 ? std::min(vcpus(target, group), static_cast<double>(threads)) : vcpus(target, group);
  }
  /// Training steps measured on the target itself, if the experiment gave them.
  const std::optional<ComputeModel>& own_steps(StepTarget target, int group = 0) const {
    return target == StepTarget::Peer ? peer_groups[static_cast<size_t>(group)].steps : function_steps;
  }
  /// The compute model that times training steps on the target (its own calibration, else the default).
  const ComputeModel& step_model(StepTarget target, int group = 0) const {
    return own_steps(target, group) ? *own_steps(target, group) : compute;
  }
  /// How the steps of this scenario extrapolate beyond their calibration: on any peer group, on functions.
  Extrapolation peer_extrapolation, function_extrapolation;
  /// Seconds of averaging `count` gradients of `elements` floats on one calibration-CPU thread.
  double average_seconds(double elements, int count) const { return compute.average_seconds(elements, count); }
  /// Reference seconds (one calibration-CPU thread) of turning a tensor of `bytes` into bytes to send
  /// (torch.save, pickle) and back (torch.load, unpickling): the calibration's serialize / deserialize kernels.
  double serialize_s(double bytes) const { return compute.codec_seconds("serialize", bytes / 4); }
  double deserialize_s(double bytes) const { return compute.codec_seconds("deserialize", bytes / 4); }
};

/// Loads the experiment's profile, calibration and model sizes and checks that they fit together.
/// Throws InputError naming the experiment file, line and field.
Scenario resolve_scenario(const Experiment& experiment);

}  // namespace p2psim
