#include "sensitivity.hpp"

#include <fmt/core.h>

namespace p2psim {

std::string sensitivity_csv(const Sensitivity& s) {
  std::string out = "group,label,system,slowdown,feasible,time_change_percent,cost_change_percent\n";
  for (const auto& r : s.rows) {
    out += fmt::format("{},\"{}\",{},{},{},", r.group, r.label, r.system, s.slowdown, r.feasible ? "true" : "false");
    out += r.feasible ? fmt::format("{:.6f},{:.6f}\n", r.time_change_percent, r.cost_change_percent) : ",\n";
  }
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
