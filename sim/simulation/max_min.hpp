// SimGrid's max-min allocation (src/kernel/lmm/maxmin.cpp, SimGrid 3.32), for the flows p2psim computes rather
// than simulates (peer_storage_flows.hpp, server_flows.hpp): every unfixed variable of penalty p gets level / p,
// the level raised until a constraint is full (its variables are fixed there) or a variable reaches its bound
// (bound x penalty: it is fixed at its bound first, leaving the rest to the others). A variable's elements are
// its uses of constraints, each with a weight (1 on its route, the cross-traffic share on the way back; a
// variable that stands for n identical flows on one constraint weighs n there).
#pragma once
#include <cstddef>
#include <vector>

namespace p2psim::simulation {

struct MaxMinVariable {
  struct Element {
    size_t constraint;
    double weight;
  };
  double penalty = 0, bound = 0;
  int elements = 0;
  Element element[4];
  double value = 0;  // the allocation: set by solve_max_min
};

/// Sets each variable's value. `slack`: each constraint's capacity (consumed as variables are fixed).
void solve_max_min(std::vector<double>& slack, std::vector<MaxMinVariable>& variables);

}  // namespace p2psim::simulation
