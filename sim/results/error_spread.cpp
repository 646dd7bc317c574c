// The spread of p2psim's errors on measured runs, and the band it puts around a prediction (validation.hpp).
//
// Why each source weighs alike: a source's metrics share its setup, its client and its day, so they miss together
// (GradsSharding's 29 time metrics lean one way). Counting metrics would let one large study decide the band;
// the independent units are the sources. Why in logarithms: a prediction half the measured time and one twice it
// are the same size of miss, and the quantiles of ln(predicted / measured) map back to time errors whatever the
// sign.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "../util/input_error.hpp"
#include "validation.hpp"

namespace p2psim::validation {

namespace {

bool in_time_group(const Row& r) { return r.c->role == "validation" && r.m->kind != "cost"; }

// A time, rate or cost of 0 (or not a number) would be an infinite error and a NaN between points.
void check_predicted(const Row& r) {
  if (!(std::isfinite(r.predicted) && r.predicted > 0))
    throw InputError(r.c->file, r.m->line, "predicted",
                     fmt::format("{} {}: predicted {}, expected a finite value above 0", r.c->name, r.m->name,
                                 r.predicted));
}

// The rows' log time errors, sorted, each at the middle of its weight (1 / its source's rows) over the total
// weight, the sources' count: Hazen's plotting positions, weighted.
struct WeightedErrors {
  std::vector<std::pair<double, double>> points;  // position in (0, 1), log error
  int sources = 0;
};
WeightedErrors weighted_errors(const std::vector<const Row*>& rows) {
  std::map<std::string, int> per_source;
  for (const Row* r : rows) ++per_source[r->c->source.group];
  std::vector<std::pair<double, double>> sorted;  // log error, weight
  for (const Row* r : rows) {
    check_predicted(*r);
    sorted.emplace_back(std::log1p(r->time_error_percent() / 100.0), 1.0 / per_source.at(r->c->source.group));
  }
  std::sort(sorted.begin(), sorted.end());
  WeightedErrors out;
  out.sources = static_cast<int>(per_source.size());
  double before = 0;
  for (const auto& [value, weight] : sorted) {
    out.points.emplace_back((before + weight / 2) / out.sources, value);
    before += weight;
  }
  return out;
}

// The q-quantile: the points joined by straight lines; below the first point or above the last, the end value.
double quantile(const WeightedErrors& e, double q) {
  const auto& p = e.points;
  if (q <= p.front().first) return p.front().second;
  for (size_t i = 1; i < p.size(); ++i)
    if (q <= p[i].first)
      return p[i - 1].second + (p[i].second - p[i - 1].second) * (q - p[i - 1].first) / (p[i].first - p[i - 1].first);
  return p.back().second;
}

}  // namespace

std::optional<ErrorSpread> error_spread(const std::vector<const Row*>& rows) {
  const WeightedErrors errors = weighted_errors(rows);
  if (errors.sources < static_cast<int>(kMinSourcesForSpread)) return std::nullopt;
  auto as_percent = [](double log_error) { return 100.0 * std::expm1(log_error); };
  return ErrorSpread{errors.sources, as_percent(quantile(errors, 0.1)), as_percent(quantile(errors, 0.9))};
}

void band_by_other_sources(std::vector<Row>& rows) {
  for (const auto& row : rows)
    if (row.c->role == "validation") check_predicted(row);  // every summary's rows, before any is summarised
  for (auto& row : rows) {
    row.held_out_band_percent = std::nullopt;
    if (row.c->role != "validation") continue;
    std::vector<const Row*> others;
    for (const auto& other : rows)
      if (in_time_group(other) && other.c->source.group != row.c->source.group) others.push_back(&other);
    if (const auto spread = error_spread(others))
      row.held_out_band_percent = std::make_pair(spread->p10_percent, spread->p90_percent);
  }
}

}  // namespace p2psim::validation
