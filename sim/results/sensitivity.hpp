// What a run's prediction rests on (app/sensitivity.hpp runs it): each group of the profile's constants made slower
// alone, the run simulated again, and each system's total time and cost beside the run's own.
#pragma once
#include <string>
#include <vector>

namespace p2psim {

/// One group of constants made slower, and what it did to one system.
struct SensitivityRow {
  std::string group;   // a mechanism's name (records/mechanisms.hpp), or object_storage_first_byte
  std::string label;   // what the group's constants are, for a reader
  std::string system;
  double slowdown = 0;   // each of the group's times times this, each rate over it
  bool feasible = true;  // false: the system could not train with the group slower (or could not without it)
  double time_change_percent = 0, cost_change_percent = 0;
};

struct Sensitivity {
  double slowdown = 0;  // each constant's time times this, each rate over it
  std::vector<SensitivityRow> rows;  // by group in the groups' order, then by system in the experiment's
};

/// sensitivity.csv (its columns: results/columns.hpp).
std::string sensitivity_csv(const Sensitivity& s);
/// One line per group: its label and name, then each system's change in time and cost.
std::vector<std::string> sensitivity_lines(const Sensitivity& s);

}  // namespace p2psim
