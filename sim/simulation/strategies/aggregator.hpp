// Aggregator functions, as serverless aggregation designs use them (sharded reducers, aggregation trees):
// a function that GETs its inputs from object storage one at a time, adds each to a running sum as it
// arrives, and PUTs the result.
#pragma once
#include <string>

#include "../context.hpp"
#include "params.hpp"

namespace p2psim::simulation {

/// Memory (MB) of a function holding `buffers` buffers of `buffer_bytes` on top of the runtime's baseline,
/// rounded up, at least the service's minimum.
int aggregator_memory_mb(const Scenario& s, double buffers, double buffer_bytes);

/// A system's own aggregator memory attribute (`name`, MB), `fallback` when absent: refused unless the function
/// service offers the size and it holds the runtime's baseline and one buffer of `buffer_bytes` (the running
/// sum; a streaming aggregator needs no more).
int aggregator_memory_param(StrategyParams& params, const std::string& name, const Scenario& s, int fallback,
                            double buffer_bytes);

/// Why a function of `memory_mb` cannot be created (over the service's maximum), or "" when it can.
std::string aggregator_too_large(const Context& c, const std::string& what, int memory_mb);

struct AggregatorJob {
  std::string function;  // its own warm pool
  int memory_mb = 0;
  int inputs = 0;
  double input_bytes = 0, elements = 0;  // each input's size, and its float count (the additions' size)
  int iteration = 0, index = 0;          // traced as aggregator `index` (peer -1) of `iteration`
};

/// One invocation: cold or warm start, the inputs one after another (adding each after the first), the PUT
/// of the sum; billed at the job's memory.
void run_aggregator(Context& c, const AggregatorJob& job);

}  // namespace p2psim::simulation
