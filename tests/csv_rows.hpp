// A CSV file's data rows (its header line skipped), each split at commas: the result files' fields hold no comma.
#pragma once
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
