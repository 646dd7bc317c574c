#include "max_min.hpp"

#include <algorithm>
#include <limits>

namespace p2psim::simulation {

void solve_max_min(std::vector<double>& slack, std::vector<MaxMinVariable>& variables) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // Scratch kept between calls: computed flows solve at every event of theirs.
  thread_local std::vector<double> usage;
  thread_local std::vector<char> fixed, saturated;
  thread_local std::vector<size_t> to_fix;
  usage.assign(slack.size(), 0.0);
  fixed.assign(variables.size(), 0);
  saturated.assign(slack.size(), 0);
  size_t left = variables.size();
  auto fix = [&](size_t i, double value) {
    MaxMinVariable& v = variables[i];
    v.value = value;
    fixed[i] = 1;
    --left;
    for (int e = 0; e < v.elements; ++e)
      slack[v.element[e].constraint] = std::max(0.0, slack[v.element[e].constraint] - v.element[e].weight * value);
  };
  while (left > 0) {
    std::fill(usage.begin(), usage.end(), 0.0);
    double bound_level = kInfinity;
    for (size_t i = 0; i < variables.size(); ++i) {
      if (fixed[i]) continue;
      const MaxMinVariable& v = variables[i];
      for (int e = 0; e < v.elements; ++e) usage[v.element[e].constraint] += v.element[e].weight / v.penalty;
      bound_level = std::min(bound_level, v.bound * v.penalty);
    }
    double level = kInfinity;
    for (size_t c = 0; c < slack.size(); ++c)
      if (usage[c] > 0) level = std::min(level, slack[c] / usage[c]);
    if (bound_level <= level) {  // variables at their bound first: they leave the rest to the others
      for (size_t i = 0; i < variables.size(); ++i)
        if (!fixed[i] && variables[i].bound * variables[i].penalty <= bound_level) fix(i, variables[i].bound);
      continue;
    }
    for (size_t c = 0; c < slack.size(); ++c) saturated[c] = usage[c] > 0 && slack[c] / usage[c] <= level;
    to_fix.clear();
    for (size_t i = 0; i < variables.size(); ++i) {
      if (fixed[i]) continue;
      const MaxMinVariable& v = variables[i];
      for (int e = 0; e < v.elements; ++e)
        if (saturated[v.element[e].constraint]) {
          to_fix.push_back(i);
          break;
        }
    }
    for (size_t i : to_fix) fix(i, level / variables[i].penalty);
  }
}

}  // namespace p2psim::simulation
