#include "json_gradient.hpp"

#include <stdexcept>

#include "../services/kv_store.hpp"
#include "computed_invocations.hpp"  // function_one_thread_s

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

}  // namespace p2psim::simulation
