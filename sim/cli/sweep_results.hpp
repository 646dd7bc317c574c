// Sweep result folders: each finished scenario is DIR/runs/<id>/ with scenario.json (its axis values) and
// result.csv (one row per system). These helpers describe scenarios and merge folders.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "../scenario/sweep.hpp"

namespace p2psim::cli {

nlohmann::ordered_json scenario_json(const SweepScenario& s);

/// Writes OUT/results.csv: scenario_id, one column per axis, then result.csv's columns; each scenario once
/// (the first folder that has it wins), rows sorted by scenario id. Returns the number of rows.
int merge_results(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& out);

}  // namespace p2psim::cli
