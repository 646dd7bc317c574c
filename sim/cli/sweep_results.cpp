#include "sweep_results.hpp"

#include "../results/columns.hpp"
#include "../util/atomic_file.hpp"
#include "../util/input_error.hpp"
#include "../util/read_text.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace p2psim::cli {
namespace {

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

nlohmann::ordered_json scenario_json(const SweepScenario& s) {
  nlohmann::ordered_json j;
  j["scenario_id"] = s.id;
  j["axes"] = nlohmann::ordered_json::object();
  for (const auto& [select, value] : s.values) j["axes"][select] = value;
  return j;
}

int merge_results(const std::vector<fs::path>& dirs, const fs::path& out) {
  struct Run {
    nlohmann::ordered_json axes;
    std::string header;
    std::vector<std::string> rows;
    std::string folder;  // where it was read
    std::string groups_header;  // groups.csv, when its peers were of several groups
    std::vector<std::string> group_rows;
  };
  std::map<std::string, Run> runs;  // by scenario id: sorted, each once
  std::vector<std::string> axis_names;
  for (const auto& dir : dirs)
    for (const auto& entry : fs::directory_iterator(dir / "runs")) {
      const std::string id = entry.path().filename().string();
      if (!entry.is_directory() || id.front() == '.') continue;
      const fs::path scenario_path = entry.path() / "scenario.json", result_path = entry.path() / "result.csv";
      if (!fs::exists(scenario_path) || !fs::exists(result_path)) continue;  // not a finished run
      // Read within the limits of user input: a folder may have been edited, or a file replaced by a device.
      std::istringstream result(read_input_file(result_path, kMaxCsvFileBytes));
      const std::string scenario = read_input_file(scenario_path, kMaxXmlFileBytes);
      Run r;
      try {
        r.axes = nlohmann::ordered_json::parse(scenario).at("axes");
        if (!r.axes.is_object()) throw std::runtime_error("'axes' is not an object");
        for (const auto& [name, value] : r.axes.items())
          if (!value.is_string()) throw std::runtime_error("axis '" + name + "' has no text value");
      } catch (const std::exception& e) {
        throw InputError((entry.path() / "scenario.json").string(), 0, "", std::string("unreadable: ") + e.what());
      }
      for (const auto& [name, value] : r.axes.items())
        if (std::find(axis_names.begin(), axis_names.end(), name) == axis_names.end()) axis_names.push_back(name);
      std::getline(result, r.header);
      for (std::string line; std::getline(result, line);)
        if (!line.empty()) r.rows.push_back(line);
      // Every run's table has the same columns (the same p2psim wrote them), and at least one row.
      const std::string where = (entry.path() / "result.csv").string();
      if (r.header.rfind("experiment,", 0) != 0 || r.rows.empty())
        throw InputError(where, 1, "", "not a result table of p2psim run (empty or truncated?)");
      if (!runs.empty() && r.header != runs.begin()->second.header)
        throw InputError(where, 1, "", "its columns differ from the other runs' (written by another p2psim version?)");
      // The same scenario in two folders (shards that overlap, a run resumed elsewhere): kept once when both
      // say the same, refused when they differ (other input files or another p2psim), never one picked silently.
      if (auto same = runs.find(id); same != runs.end()) {
        if (same->second.rows != r.rows)
          throw InputError(where, 0, "", "scenario " + id + " has other results here than in " + same->second.folder +
                                             " (other input files, or another p2psim version?): merge folders of "
                                             "one sweep");
        continue;
      }
      if (const fs::path groups = entry.path() / "groups.csv"; fs::exists(groups)) {
        std::istringstream table(read_input_file(groups, kMaxCsvFileBytes));
        std::getline(table, r.groups_header);
        for (std::string line; std::getline(table, line);)
          if (!line.empty()) r.group_rows.push_back(line);
        if (r.groups_header.rfind("experiment,system,group,", 0) != 0)
          throw InputError(groups.string(), 1, "", "not a peer-group table of p2psim run (empty or truncated?)");
      }
      r.folder = entry.path().string();
      runs.emplace(id, std::move(r));
    }
  // A table of every run's rows, each after its scenario's id and axis values.
  auto merged = [&](const std::string& header, const std::vector<std::string> Run::*rows_of) {
    std::ostringstream csv;
    csv << kScenarioIdColumn;
    for (const auto& a : axis_names) csv << ',' << csv_field(a);
    csv << ',' << header << '\n';
    for (const auto& [id, r] : runs)
      for (const auto& row : r.*rows_of) {
        csv << id;
        for (const auto& a : axis_names) csv << ',' << csv_field(r.axes.contains(a) ? r.axes[a].get<std::string>() : "");
        csv << ',' << row << '\n';
      }
    return csv.str();
  };
  int rows = 0;
  for (const auto& [id, r] : runs) rows += static_cast<int>(r.rows.size());
  std::vector<std::pair<std::string, std::string>> files{
      {"results.csv", runs.empty() ? "" : merged(runs.begin()->second.header, &Run::rows)}};
  // groups.csv: the peer groups' rows of the runs whose peers were of several groups (their header is p2psim's).
  const auto grouped = std::find_if(runs.begin(), runs.end(), [](const auto& run) { return !run.second.groups_header.empty(); });
  if (grouped != runs.end())
    files.emplace_back("groups.csv", merged(grouped->second.groups_header, &Run::group_rows));
  write_files_atomically(out, files);
  return rows;
}

}  // namespace p2psim::cli
