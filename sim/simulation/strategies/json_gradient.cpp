#include "json_gradient.hpp"

#include "../services/kv_store.hpp"
#include "scalar_work.hpp"

namespace p2psim::simulation {

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
  return function_scalar_work_s(s, static_cast<double>(s.parameters) * json.python_encode_s_per_element);
}

double function_json_decode_average_s(const Scenario& s, const JsonCodecParams& json) {
  return function_scalar_work_s(s, static_cast<double>(s.parameters) * json.python_decode_average_s_per_element);
}

double instance_json_decode_gradient_s(const Scenario& s, const JsonCodecParams& json, const InstanceType& type) {
  return instance_scalar_work_s(s, type, static_cast<double>(s.parameters) * json.python_decode_gradient_s_per_element);
}

double database_json_average_s(const Scenario& s, const JsonCodecParams& json, int gradients,
                               const InstanceType& type) {
  const double per_element = gradients * json.lua_decode_add_s_per_element + json.lua_encode_s_per_element;
  return instance_scalar_work_s(s, type, static_cast<double>(s.parameters) * per_element);
}

}  // namespace p2psim::simulation
