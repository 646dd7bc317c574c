// Scalar work (an interpreter's loops, float formatting and parsing, big-number arithmetic) measured on the
// calibration CPU, run at the scalar speed of the CPU doing it and returned in reference seconds of the run's kind:
// what a host's sg::compute and a function's compute() take.
#pragma once
#include "../../inputs/cloud_profile.hpp"
#include "../../scenario/scenario.hpp"

namespace p2psim::simulation {

/// On a function: one thread, time-sliced below one vCPU.
double function_scalar_work_s(const Scenario& s, double reference_s);
/// On an instance of `type`, which must have a scalar speed factor (the strategies refuse one without).
double instance_scalar_work_s(const Scenario& s, const InstanceType& type, double reference_s);

}  // namespace p2psim::simulation
