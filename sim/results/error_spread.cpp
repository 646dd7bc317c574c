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
#include <set>

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

// The q-quantile of the rows' log time errors, each row weighing 1 / (its source's rows): the points sit at the
// middle of their weight (Hazen's plotting positions, weighted) and are joined by straight lines; below the first
// point or above the last, the end value.
double weighted_quantile(const std::vector<const Row*>& rows, double q) {
  std::map<std::string, int> per_source;
  for (const Row* r : rows) ++per_source[r->c->source.group];
  std::vector<std::pair<double, double>> points;  // log error, weight
  for (const Row* r : rows) {
    check_predicted(*r);
    points.emplace_back(std::log1p(r->time_error_percent() / 100.0), 1.0 / per_source.at(r->c->source.group));
  }
  std::sort(points.begin(), points.end());
  const double total = static_cast<double>(per_source.size());
  double before = 0, last_position = 0, last_value = points.front().first;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto [value, weight] = points[i];
    const double position = (before + weight / 2) / total;
    before += weight;
    if (q <= position) {
      if (i == 0) return value;
      return last_value + (value - last_value) * (q - last_position) / (position - last_position);
    }
    last_position = position, last_value = value;
  }
  return points.back().first;
}

}  // namespace

std::optional<ErrorSpread> error_spread(const std::vector<const Row*>& rows) {
  std::set<std::string> sources;
  for (const Row* r : rows) sources.insert(r->c->source.group);
  if (sources.size() < kMinSourcesForSpread) return std::nullopt;
  auto as_percent = [](double log_error) { return 100.0 * std::expm1(log_error); };
  return ErrorSpread{static_cast<int>(sources.size()), as_percent(weighted_quantile(rows, 0.1)),
                     as_percent(weighted_quantile(rows, 0.9))};
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
