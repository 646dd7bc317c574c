// The result tables' columns, each listed once: its name (units in the name), what it means, and how a row's cell
// is written. The header and the rows of result.csv, groups.csv, validation.csv, accuracy_by_design.csv and sensitivity.csv come from these lists, and so does the result
// schema (`p2psim schema`, shipped as notebooks/result_schema.json), from which the analysis layer takes its
// column groups and phase order instead of typing them again.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results.hpp"
#include "validation.hpp"

namespace p2psim {

/// One column of a table whose rows are `Row`s. `part` groups columns the analysis layer draws together
/// ("configuration": what a user chooses; "iteration_part": parts that add up to an iteration; "cost_by_service":
/// parts that add up to the bill), in `rank` order, under `label`.
template <class Row>
struct Column {
  std::string name, meaning;
  std::function<std::string(const Row&)> cell;
  std::string part = "", label = "";
  int rank = 0;
};

/// A row of result.csv: one system of a run.
struct SystemRow {
  const Result& result;
  const SystemResult& system;
  std::optional<Comparison> comparison;  // against the baseline; empty for the baseline, or an infeasible system
};
/// A row of groups.csv: one peer group of a system.
struct GroupRow {
  const Result& result;
  const SystemResult& system;
  const GroupResult& group;
};

const std::vector<Column<SystemRow>>& result_columns();
const std::vector<Column<GroupRow>>& group_columns();
/// trace.csv's columns: names and meanings only, no cell writers (write_results formats its rows in place, in
/// this order, and checks there are as many: 2.3 M rows in the paper grid).
const std::vector<Column<PhaseRecord>>& trace_columns();
/// validation.csv's (`p2psim validate`): a row per metric of a case.
const std::vector<Column<validation::Row>>& validation_columns();
/// validation/accuracy_by_design.csv's (`p2psim validate --record`): a row per design and kind group, and one over
/// every design (kEveryDesign) per kind group.
const std::vector<Column<DesignAccuracy>>& design_accuracy_columns();
/// sensitivity.csv's (`p2psim run --sensitivity`): a row per group of constants and system.
const std::vector<Column<SensitivityRow>>& sensitivity_columns();
/// The column a sweep's results.csv puts first, before its axes and the runs' columns.
constexpr const char* kScenarioIdColumn = "scenario_id";

/// `columns`' names joined by commas, and a newline.
template <class Row>
std::string csv_header(const std::vector<Column<Row>>& columns) {
  std::string line;
  for (const auto& c : columns) line += (line.empty() ? "" : ",") + c.name;
  return line + "\n";
}
/// `row`'s cells joined by commas, and a newline.
template <class Row>
std::string csv_row(const std::vector<Column<Row>>& columns, const Row& row) {
  std::string line;
  for (size_t i = 0; i < columns.size(); ++i) line += (i ? "," : "") + columns[i].cell(row);
  return line + "\n";
}

/// Every table's columns and every phase (in reading order), with what each means: `p2psim schema`.
nlohmann::ordered_json result_schema();

}  // namespace p2psim
