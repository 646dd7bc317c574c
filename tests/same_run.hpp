// The same run two ways (activities computed, and simulated as actors): every trace row, every billed function
// run, the counts, what each update had metered by its moment and the peers' ends, to a tolerance. Rows and
// updates are compared as sorted sets: SimGrid orders simultaneous events as it does, a computed queue as it
// does (the goldens and the scenario traces under tests/scenarios pin the order).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "records/run_output.hpp"

namespace same_run {

inline std::vector<p2psim::PhaseRecord> sorted_trace(const p2psim::RunOutput& r) {
  auto rows = r.trace;
  std::sort(rows.begin(), rows.end(), [](const p2psim::PhaseRecord& a, const p2psim::PhaseRecord& b) {
    return std::tie(a.peer, a.iteration, a.invocation, a.start_s, a.phase) <
           std::tie(b.peer, b.iteration, b.invocation, b.start_s, b.phase);
  });
  return rows;
}

/// Two instants the same to `tolerance_s` plus `relative` of their size.
inline bool close(double a, double b, double tolerance_s, double relative) {
  return std::abs(a - b) <= tolerance_s + relative * std::max(std::abs(a), std::abs(b));
}

inline void check_same_run(const p2psim::RunOutput& computed, const p2psim::RunOutput& simulated, double tolerance_s,
                           double relative = 0) {
  auto near = [&](double a, double b) { return close(a, b, tolerance_s, relative); };
  CHECK(computed.failure == simulated.failure);
  CHECK(computed.ledger.storage_gets == simulated.ledger.storage_gets);
  CHECK(computed.ledger.storage_puts == simulated.ledger.storage_puts);
  CHECK(computed.ledger.workflow_transitions == simulated.ledger.workflow_transitions);
  CHECK(computed.cold_starts == simulated.cold_starts);
  CHECK(computed.warm_starts == simulated.warm_starts);
  CHECK(computed.max_containers == simulated.max_containers);
  const auto a = sorted_trace(computed), b = sorted_trace(simulated);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i].peer == b[i].peer);
    CHECK(a[i].iteration == b[i].iteration);
    CHECK(a[i].invocation == b[i].invocation);
    CHECK(a[i].phase == b[i].phase);
    CHECK(near(a[i].start_s, b[i].start_s));
    CHECK(near(a[i].end_s, b[i].end_s));
  }
  auto runs = [](const p2psim::RunOutput& r) {
    std::vector<std::pair<double, double>> v;
    for (const auto& f : r.ledger.function_runs) v.emplace_back(f.init_s, f.run_s);
    std::sort(v.begin(), v.end());
    return v;
  };
  const auto ra = runs(computed), rb = runs(simulated);
  REQUIRE(ra.size() == rb.size());
  for (size_t i = 0; i < ra.size(); ++i) {
    CHECK(near(ra[i].first, rb[i].first));
    CHECK(near(ra[i].second, rb[i].second));
  }
  // What each update had metered by its moment (the schedule prices a run up to it): records of computed
  // activities count from the instant they happen, not from when they were computed.
  auto updates = [](const p2psim::RunOutput& r) {
    auto u = r.updates;
    std::sort(u.begin(), u.end(), [](const p2psim::Update& x, const p2psim::Update& y) {
      return std::tie(x.peer, x.iteration) < std::tie(y.peer, y.iteration);
    });
    return u;
  };
  const auto ua = updates(computed), ub = updates(simulated);
  REQUIRE(ua.size() == ub.size());
  for (size_t i = 0; i < ua.size(); ++i) {
    const auto &u = ua[i], &v = ub[i];
    CHECK(u.peer == v.peer);
    CHECK(u.iteration == v.iteration);
    CHECK(near(u.time_s, v.time_s));
    CHECK(u.usage.function_runs == v.usage.function_runs);
    CHECK(u.usage.workflow_transitions == v.usage.workflow_transitions);
    CHECK(u.usage.storage_gets == v.usage.storage_gets);
    CHECK(u.usage.storage_puts == v.usage.storage_puts);
    CHECK(u.gradients.size() == v.gradients.size());
  }
  REQUIRE(computed.peer_end_s.size() == simulated.peer_end_s.size());
  for (size_t i = 0; i < computed.peer_end_s.size(); ++i) CHECK(near(computed.peer_end_s[i], simulated.peer_end_s[i]));
  CHECK(computed.iterations_done == simulated.iterations_done);
  REQUIRE(computed.credits_exhausted_at_s.size() == simulated.credits_exhausted_at_s.size());
  for (size_t i = 0; i < computed.credits_exhausted_at_s.size(); ++i)
    CHECK(near(computed.credits_exhausted_at_s[i], simulated.credits_exhausted_at_s[i]));
}

}  // namespace same_run
