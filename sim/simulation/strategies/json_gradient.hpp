// SPIRT's gradients as JSON text (its code: json.dumps of tensor.tolist() into Redis, averaged by a Lua script
// inside Redis, the average parsed back by a function): what each side's work costs. Every cost is the profile's
// per-element CPU on the calibration CPU (kv_store/json_codec, scalar work: interpreters' loops and float
// formatting), run at the scalar speed of the CPU doing it and returned in reference seconds of the run's kind,
// what the host's sg::compute and a function's compute() take.
#pragma once
#include "../../inputs/cloud_profile.hpp"
#include "../../scenario/scenario.hpp"

namespace p2psim::simulation {

class KvStore;

/// The bytes of one gradient as json.dumps writes it, and of the average as the database's cjson.encode does.
double json_gradient_bytes(const Scenario& s, const JsonCodecParams& json);
double json_average_bytes(const Scenario& s, const JsonCodecParams& json);
/// What a gradient function writes into `database`: its JSON text where the database holds JSON, else its tensor.
double function_gradient_value_bytes(const Scenario& s, const KvStore& database);

/// A function's json.dumps(tensor.tolist()) of the gradient (one thread, time-sliced below one vCPU).
double function_json_encode_s(const Scenario& s, const JsonCodecParams& json);
/// A function's np.array(json.loads(text)) of the database's average (one thread, time-sliced below one vCPU).
double function_json_decode_average_s(const Scenario& s, const JsonCodecParams& json);
/// An instance of `type` parsing one function's gradient text (np.array(json.loads(text)), json.dumps's digits).
double instance_json_decode_gradient_s(const Scenario& s, const JsonCodecParams& json, const InstanceType& type);
/// The Lua script averaging `gradients` texts inside a database on an instance of `type`: each decoded and
/// added, the sum divided and encoded (timed at one and at four gradients: exact at both).
double database_json_average_s(const Scenario& s, const JsonCodecParams& json, int gradients,
                               const InstanceType& type);

}  // namespace p2psim::simulation
