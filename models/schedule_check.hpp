// Every field of a schedule.json checked against its range before a replay reads it: the file is the replay's
// input, and a forged or damaged one must be refused by name, not crash LibTorch or fill the machine's memory.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace p2psim::models {

/// Throws std::invalid_argument "PATH: field 'training.eval_every': expected ..., got ..." for the first field
/// that is missing, of the wrong type or out of range, or when the replay would need more memory than 80 % of
/// what the machine has available (`available_bytes`; 0: not checked).
void check_schedule(const nlohmann::json& schedule, const std::string& path, double available_bytes);

}  // namespace p2psim::models
