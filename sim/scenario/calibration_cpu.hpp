// The calibration's CPU against the profile's: speed factors are relative to one CPU, the profile's
// <cpu_reference>, so every timing file of an experiment's main calibration must come from it.
#pragma once
#include "../compute/compute_model.hpp"
#include "../inputs/cloud_profile.hpp"

namespace p2psim {

/// Throws InputError naming a timing file's `<csv>.meta.json`, the line of its `cpu_identity` and that field
/// when the file was measured on another CPU than the profile's `<cpu_reference identity>`. Files without a
/// .meta.json or without the field (hand-written calibrations), and profiles without an identity, are not
/// checked. A target's own files (<calibration><target>) are not passed here: they describe their target.
void check_calibration_cpu(const CloudProfile& profile, const ComputeModel& compute);

}  // namespace p2psim
