// Which cloud mechanisms a finished run used (records/mechanisms.hpp), read from what it metered and what its
// design asked of the platform, so a reader is told the accuracy of what this run chained and nothing else.
#pragma once
#include "../records/mechanisms.hpp"
#include "../records/run_output.hpp"
#include "strategies/strategy.hpp"

namespace p2psim::simulation {

MechanismSet mechanisms_used(const PlatformNeeds& needs, const RunOutput& out);

}  // namespace p2psim::simulation
