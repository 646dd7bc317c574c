// The schedule of a simulated run (docs/time_to_accuracy.md): for every model update, which gradient versions
// were averaged, at what simulated time and cumulative cost, with the training settings a real replay needs.
// `p2psim-torch replay` reads it; nothing here runs torch.
#pragma once
#include <nlohmann/json.hpp>

#include "results.hpp"

namespace p2psim {

constexpr const char* kScheduleFormat = "p2psim-schedule/1";

/// The schedule of every system of `r`, as written to schedule.json.
nlohmann::ordered_json schedule_json(const Result& r);

/// Why `system`'s schedule cannot be replayed; empty when it can.
std::string schedule_not_replayable(const Scenario& s, const SystemResult& system);

/// Fills each system's `accuracy` from the CSV `p2psim replay` wrote for `r`'s schedule (systems that were not
/// replayable get the reason). Throws InputError naming the file when it is malformed.
void attach_replay(Result& r, const std::string& accuracy_csv);

}  // namespace p2psim
