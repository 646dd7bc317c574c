// What a run will hold, estimated from each design's own records before anything is simulated, and the bounds
// it is checked against: this machine's memory, its memory-map limit (each actor's stack takes two maps), and
// the sizes each design is simulated at in reasonable time (docs/limits.md).
#pragma once
#include <vector>

#include "../scenario/scenario.hpp"
#include "strategies/strategy.hpp"

namespace p2psim::simulation {

struct RunEstimate {
  double actors = 0, trace_rows = 0, deliveries = 0, routes = 0;
  double child_bytes = 0;  // what the simulation process holds beyond its rows
};

/// A system's estimate: the design's footprint, and the routes its platform needs.
RunEstimate estimate_run(const Scenario& s, const Strategy& strategy, bool exact_participants = false);

/// Peak memory of `run` over these systems (simulated one after another, in children; the parent keeps every
/// system's rows): the base, every row, and the largest child's actors, routes and per-gradient records.
double estimated_peak_bytes(const std::vector<RunEstimate>& systems);

/// Throws InputError (the system's line, or the workload's for memory) when a system is past its design's size
/// limit or this machine's memory-map limit, or when the run would need more than 80 % of the memory available.
void check_footprints(const Scenario& s, const std::vector<const SystemSpec*>& systems,
                      const std::vector<RunEstimate>& estimates, const std::vector<Footprint>& footprints);

}  // namespace p2psim::simulation
