#include "scalar_work.hpp"

#include <stdexcept>

#include "computed_invocations.hpp"  // function_one_thread_s

namespace p2psim::simulation {
namespace {

/// Scalar work of `reference_s` on a CPU whose run-kind factor is `run_factor`, in that kind's reference seconds.
double at_scalar_speed(double reference_s, double run_factor, double scalar_factor) {
  return reference_s * run_factor / scalar_factor;
}

}  // namespace

double function_scalar_work_s(const Scenario& s, double reference_s) {
  return function_one_thread_s(s, at_scalar_speed(reference_s, s.function_speed_factor, s.function_scalar_speed_factor));
}

double instance_scalar_work_s(const Scenario& s, const InstanceType& type, double reference_s) {
  if (reference_s == 0) return 0;  // no work needs no speed
  if (type.cpu_scalar_speed_factor <= 0)  // the strategy refuses such a type (spirt.cpp)
    throw std::logic_error("instance type '" + type.name + "' has no scalar speed factor");
  return at_scalar_speed(reference_s, s.instance_speed_factor(type), type.cpu_scalar_speed_factor);
}

}  // namespace p2psim::simulation
