// A CSV file's data rows (its header line skipped), each split at commas: the result files' fields hold no comma.
#pragma once
#include <optional>
#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream text(line);
    for (std::string field; std::getline(text, field, ',');) fields.push_back(field);
    rows.push_back(std::move(fields));
  }
  return rows;
}

/// Where column `name` stands in the CSV text's header line; none when the header has no such column.
inline std::optional<size_t> csv_column(const std::string& csv, const std::string& name) {
  std::istringstream first(csv.substr(0, csv.find('\n')));
  size_t at = 0;
  for (std::string field; std::getline(first, field, ','); ++at)
    if (field == name) return at;
  return std::nullopt;
}
