#include "sensitivity.hpp"

#include <fmt/core.h>

#include "columns.hpp"

namespace p2psim {

std::string sensitivity_csv(const Sensitivity& s) {
  std::string out = csv_header(sensitivity_columns());
  for (const auto& r : s.rows) out += csv_row(sensitivity_columns(), r);
  return out;
}

std::vector<std::string> sensitivity_lines(const Sensitivity& s) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < s.rows.size();) {
    const std::string& group = s.rows[i].group;
    std::string line = fmt::format("{} [{}]:", s.rows[i].label, group);
    const char* separator = " ";
    for (; i < s.rows.size() && s.rows[i].group == group; ++i, separator = "; ") {
      const auto& r = s.rows[i];
      line += separator + r.system + " " +
              (r.feasible ? fmt::format("{:+.1f} % time, {:+.1f} % cost", r.time_change_percent, r.cost_change_percent)
                          : std::string("cannot train"));
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace p2psim
