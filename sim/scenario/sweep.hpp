// Sweeps: an experiment file with a <sweep> element stands for many scenarios. Axes multiply (cartesian
// product); axes inside a <together> element vary together. Each scenario is a plain experiment file (the
// sweep removed, the axis values set, paths made absolute) with a stable id derived from its content.
//
//   <sweep>
//     <axis select="peers/@count" values="2 4 8 16 32"/>
//     <axis select="functions/@memory_mb" values="512 1024 3008 10240"/>
//     <together>
//       <axis select="workload/@model" values="vgg11 squeezenet1_1"/>
//       <axis select="workload/@input_shape" values="3x32x32 3x21x21"/>
//     </together>
//     <axis select="profile:function_service/@keep_alive_s" values="60 600"/>   (a cloud-profile value)
//     <axis select="prices:functions/@per_request_usd" values="0.0000002 0.0000004"/>   (a price book value)
//   </sweep>
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace p2psim {

struct SweepScenario {
  std::string id;                                          // 16 hex digits, a hash of the scenario's content
  std::vector<std::pair<std::string, std::string>> values;  // (axis select, value), in declaration order
  std::vector<long> value_lines;                            // the line of each value's <axis> in the user's file
  std::string experiment_xml;                              // a complete experiment file for `p2psim run`
};

/// The most scenarios one sweep may expand to: each is a complete experiment in memory (a few KB) and a
/// process to run. A larger study is several sweeps (docs/limits.md).
constexpr size_t kMaxSweepScenarios = 100000;

/// Whether an axis overrides a value of the platform (profile:XPATH) or of the price book (prices:XPATH) rather
/// than setting an attribute of the experiment.
bool is_override_axis(const std::string& select);

/// Expands the sweep of experiment file `path`. Throws InputError naming file, line and field when an axis is
/// malformed or selects nothing. An experiment without <sweep> is a sweep of one scenario.
std::vector<SweepScenario> expand_sweep(const std::string& path);

/// The scenarios of shard `index` (0-based) of `count`: every count-th one, so shards are balanced and
/// deterministic.
std::vector<SweepScenario> shard(const std::vector<SweepScenario>& all, int index, int count);

}  // namespace p2psim
