// A fully resolved simulation input: the experiment, its cloud profile (overrides applied), the compute
// model and every derived quantity (minibatches, payload sizes, CPU shares). Pure: no SimGrid here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cloud_profile.hpp"
#include "compute_model.hpp"
#include "experiment.hpp"

namespace p2psim {

/// Where a training step runs: on a peer instance or in a function.
enum class StepTarget { Peer, Function };

struct Scenario {
  Experiment experiment;
  CloudProfile profile;
  ComputeModel compute;  // the calibration CPU: training steps, averaging and codecs
  // Training steps measured on the target itself (<calibration><target/>), when the experiment has them.
  std::optional<ComputeModel> peer_steps, function_steps;
  InstanceType peer_type;

  long long parameters = 0, gradient_bytes = 0;
  // Gradient messages as they travel (encoded when the experiment compresses), and the codec's CPU time in
  // reference seconds (one thread of the calibration CPU; the host's speed applies when it runs).
  double exchange_bytes = 0;           // a peer's gradient to the other peers
  double function_gradient_bytes = 0;  // a function's gradient to its peer
  double encode_s = 0, decode_s = 0;
  double function_encode_s = 0;        // on a function's CPU share (below one vCPU it is time-sliced)
  long long sample_bytes = 0;                // one float32 input sample as the paper's pickles hold it
  long long shard_samples = 0;               // per peer
  std::vector<long long> minibatches;        // sizes of one peer's minibatches, in order
  std::vector<std::vector<long long>> invocations;  // minibatch sizes handled by each function invocation
  double function_vcpus = 0, function_speed_factor = 1, function_price_per_gb_s_usd = 0;

  // Memory feasibility: what a training step needs (the runtime's footprint + the measured step memory) against
  // what a function or a peer instance has. Unchecked when the calibration holds no memory samples.
  bool memory_checked = false;
  double peer_need_bytes = 0, peer_memory_bytes = 0;
  std::vector<double> invocation_need_bytes;  // per invocation: its largest minibatch's step
  double function_memory_bytes = 0;
  bool peer_fits() const { return !memory_checked || peer_need_bytes <= peer_memory_bytes; }
  bool invocation_fits(size_t k) const { return !memory_checked || invocation_need_bytes[k] <= function_memory_bytes; }
  /// The smallest function memory (MB) in which every invocation fits; 0 when none does; -1 when unchecked.
  int smallest_function_memory_mb() const;

  /// Whether a gradient sent with `transport` goes inline through the broker (else through object storage).
  bool sends_inline(Transport transport) const;

  /// One training step on the target's CPUs, in reference seconds (seconds of the calibration CPU, which a
  /// host of the target's speed factor runs in reference / factor wall seconds). A step measured on the target
  /// itself is converted with the target's factor, so that it takes exactly its measured wall time.
  double reference_step_s(StepTarget target, long long batch) const;
  /// Wall seconds of one training step on the target.
  double wall_step_s(StepTarget target, long long batch) const {
    return reference_step_s(target, batch) / speed_factor(target);
  }
  /// vCPUs a step keeps busy on the target (CPU time / wall time as calibrated); burstable credits drain by it.
  double step_busy_vcpus(StepTarget target, long long batch) const;
  double speed_factor(StepTarget target) const {
    return target == StepTarget::Peer ? peer_type.cpu_speed_factor : function_speed_factor;
  }
  double vcpus(StepTarget target) const {
    return target == StepTarget::Peer ? peer_type.vcpus : function_vcpus;
  }
  /// Training steps measured on the target itself, if the experiment gave them.
  const std::optional<ComputeModel>& own_steps(StepTarget target) const {
    return target == StepTarget::Peer ? peer_steps : function_steps;
  }
  /// The compute model that times training steps on the target (its own calibration, else the default).
  const ComputeModel& step_model(StepTarget target) const {
    return own_steps(target) ? *own_steps(target) : compute;
  }
  /// How the steps of this scenario extrapolate beyond their calibration, per target.
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
