// The cloud mechanisms a run chains: what p2psim predicts by calibrated constants, each of which a microbenchmark can
// measure alone. One list, here: a run records which it used (RunOutput::mechanisms), a validation case that
// measures one alone names it as its design, and `run` tells a reader how far each has been from measured runs
// when the run's design as a whole never was.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "enum_list.hpp"

namespace p2psim {

enum class Mechanism {
  InstanceCompute, FunctionColdStart, FunctionCompute, Workflow, ObjectStorageFromEc2, ObjectStorageFromFunctions,
  Broker, Database, Ec2Network,
};
constexpr int kMechanismCount = static_cast<int>(Mechanism::Ec2Network) + 1;

struct MechanismInfo {
  Mechanism mechanism;
  const char* name;   // a validation case's design when it measures this alone; result.json's and result.csv's
  const char* label;  // for a reader
};

constexpr std::array<MechanismInfo, kMechanismCount> kMechanisms{{
    {Mechanism::InstanceCompute, "instance_compute", "work on an instance's CPU"},
    {Mechanism::FunctionColdStart, "function_cold_start", "function cold starts"},
    {Mechanism::FunctionCompute, "function_compute", "work on a function's CPU"},
    {Mechanism::Workflow, "workflow", "the workflow service (start, fan-out)"},
    {Mechanism::ObjectStorageFromEc2, "object_storage_from_ec2", "object storage from instances"},
    {Mechanism::ObjectStorageFromFunctions, "object_storage_from_functions", "object storage from functions"},
    {Mechanism::Broker, "broker", "the message broker"},
    {Mechanism::Database, "database", "an in-memory database"},
    {Mechanism::Ec2Network, "ec2_network", "transfers between instances"},
}};

static_assert(lists_each_value_once<kMechanismCount>(kMechanisms, &MechanismInfo::mechanism),
              "kMechanisms must name every Mechanism once");

/// A set of mechanisms, one bit each.
using MechanismSet = std::uint32_t;
constexpr MechanismSet bit(Mechanism m) { return MechanismSet{1} << static_cast<int>(m); }
constexpr bool contains(MechanismSet set, Mechanism m) { return (set & bit(m)) != 0; }

/// The names of the set's mechanisms, in kMechanisms' order.
inline std::vector<std::string> mechanism_names(MechanismSet set) {
  std::vector<std::string> out;
  for (const auto& info : kMechanisms)
    if (contains(set, info.mechanism)) out.emplace_back(info.name);
  return out;
}

}  // namespace p2psim
