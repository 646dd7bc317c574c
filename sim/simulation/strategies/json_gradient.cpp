#include "json_gradient.hpp"

#include <stdexcept>

#include "../context.hpp"
#include "../services/kv_store.hpp"
#include "computed_invocations.hpp"
#include "gradient.hpp"

namespace p2psim::simulation {
namespace {

/// Scalar work of `reference_s` on a CPU whose run-kind factor is `run_factor`, in that kind's reference seconds.
double at_scalar_speed(double reference_s, double run_factor, double scalar_factor) {
  return reference_s * run_factor / scalar_factor;
}

double on_instance(const Scenario& s, const InstanceType& type, double reference_s) {
  if (type.cpu_scalar_speed_factor <= 0)  // the strategy refuses such a type (spirt.cpp)
    throw std::logic_error("instance type '" + type.name + "' has no scalar speed factor");
  return at_scalar_speed(reference_s, s.instance_speed_factor(type), type.cpu_scalar_speed_factor);
}

double on_function(const Scenario& s, double reference_s) {
  return function_one_thread_s(s, at_scalar_speed(reference_s, s.function_speed_factor, s.function_scalar_speed_factor));
}

}  // namespace

double json_gradient_bytes(const Scenario& s, const JsonCodecParams& json) {
  return static_cast<double>(s.parameters) * json.python_bytes_per_element;
}

double json_average_bytes(const Scenario& s, const JsonCodecParams& json) {
  return static_cast<double>(s.parameters) * json.lua_bytes_per_element;
}

double function_gradient_value_bytes(const Scenario& s, const KvStore& database) {
  return database.json() ? json_gradient_bytes(s, *database.json()) : s.function_gradient_bytes;
}

double function_json_encode_s(const Scenario& s, const JsonCodecParams& json) {
  return on_function(s, static_cast<double>(s.parameters) * json.python_encode_s_per_element);
}

double function_json_decode_average_s(const Scenario& s, const JsonCodecParams& json) {
  return on_function(s, static_cast<double>(s.parameters) * json.python_decode_average_s_per_element);
}

double instance_json_decode_gradient_s(const Scenario& s, const JsonCodecParams& json, const InstanceType& type) {
  return on_instance(s, type, static_cast<double>(s.parameters) * json.python_decode_gradient_s_per_element);
}

double database_json_average_s(const Scenario& s, const JsonCodecParams& json, int gradients,
                               const InstanceType& type) {
  const double per_element = gradients * json.lua_decode_add_s_per_element + json.lua_encode_s_per_element;
  return on_instance(s, type, static_cast<double>(s.parameters) * per_element);
}

JsonAveraging average_json_in_database(Context& c, int peer, int iteration, KvStore& database, int gradients) {
  const auto& s = c.s;
  const auto& json = *database.json();
  const double start = sg::now();
  c.workflow.task_state();
  const auto container = c.functions.start("average", s.experiment.functions.memory_mb, {peer, iteration},
                                           c.instance_of(peer));
  if (container.cold) c.trace(peer, iteration, Phase::ColdStart, container.init_started_s);
  const double run_start = sg::now();
  const double script_s = database_json_average_s(s, json, gradients, database.host_type());  // EVALSHA
  database_cpu(c, peer, database, script_s);
  database.read(container.host, json_average_bytes(s, json));  // its reply
  const double deserialize_start = sg::now();
  c.functions.compute(container, function_json_decode_average_s(s, json));
  c.trace(peer, iteration, Phase::Deserialize, deserialize_start);
  database.write(container.host, static_cast<double>(s.gradient_bytes));  // TENSORSET, binary
  c.trace(peer, iteration, Phase::LocalAverage, start);
  return {container, run_start};
}

void finish_json_averaging(Context& c, const JsonAveraging& averaging) {
  c.functions.finish(averaging.container, sg::now() - averaging.run_start_s, c.s.experiment.functions.arch, false);
}

}  // namespace p2psim::simulation
