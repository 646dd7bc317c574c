#include "design_accuracy.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "../util/csv_reader.hpp"
#include "../util/input_error.hpp"
#include "../util/parse_number.hpp"
#include "columns.hpp"

namespace p2psim {

namespace {
const DesignAccuracy* find(const std::vector<DesignAccuracy>& rows, const std::string& design, const char* kind) {
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const DesignAccuracy& a) { return a.design == design && a.kind == kind; });
  return it == rows.end() ? nullptr : &*it;
}

std::string describe(const DesignAccuracy& a) {
  const bool cost = a.kind == "cost";
  std::string text = fmt::format("{} {:.1f} % median |error| over {} measured metric{} (worst {:.1f} %), {} than "
                                 "measured in {} of {}",
                                 a.kind, a.median_abs_error_percent, a.metrics, a.metrics == 1 ? "" : "s",
                                 a.worst_abs_error_percent, cost ? "cheaper" : "faster", a.predicted_faster, a.metrics);
  if (a.error_p10_percent && a.error_p90_percent)  // which way and how far, where two sources or more say
    text += fmt::format(", its errors p10 {:+.1f} % to p90 {:+.1f} % ({} sources)", *a.error_p10_percent,
                        *a.error_p90_percent, a.sources);
  return text;
}
// A count's cell: a whole number, not empty.
int count(const std::string& path, long line, const std::string& field, const std::string& cell) {
  const auto v = parse_integer(cell);
  if (!v || *v < 0 || *v > 1000000000) throw InputError(path, line, field, "expected a count");
  return static_cast<int>(*v);
}

// A percentage's cell: a finite number above -100 %, or empty (a spread of one source).
std::optional<double> percent_or_empty(const std::string& path, long line, const std::string& field,
                                       const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  const auto v = parse_real(cell);
  if (!v || !(*v > -100) || !std::isfinite(*v))
    throw InputError(path, line, field, "expected a finite percentage above -100, or nothing");
  return v;
}
}  // namespace

std::string accuracy_by_design_csv(const std::vector<DesignAccuracy>& rows) {
  std::string out = csv_header(design_accuracy_columns());
  for (const auto& a : rows) out += csv_row(design_accuracy_columns(), a);
  return out;
}

std::vector<DesignAccuracy> load_accuracy_by_design(const std::string& path) {
  std::vector<DesignAccuracy> out;
  try {
    CsvReader<13> in(path);
    const auto& c = design_accuracy_columns();  // read in their order
    in.read_header(io::ignore_extra_column, c[0].name, c[1].name, c[2].name, c[3].name, c[4].name, c[5].name,
                   c[6].name, c[7].name, c[8].name, c[9].name, c[10].name, c[11].name, c[12].name);
    DesignAccuracy a;
    // Every number read as text and parsed here: the reader would take an empty cell for 0.
    std::array<std::string, 11> cells;
    std::set<std::pair<std::string, std::string>> seen;
    while (in.read_row(a.design, a.kind, cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6],
                       cells[7], cells[8], cells[9], cells[10])) {
      const long line = static_cast<long>(in.get_file_line());
      auto whole = [&](int i) { return count(path, line, c[i + 2].name, cells[i]); };
      auto percent = [&](int i) { return percent_or_empty(path, line, c[i + 2].name, cells[i]); };
      a.metrics = whole(0);
      const auto median = percent(1), worst = percent(2);
      if (!median || !worst || *median < 0 || *median > *worst)
        throw InputError(path, line, c[3].name, "expected 0 <= median_abs_error_percent <= worst_abs_error_percent");
      a.median_abs_error_percent = *median, a.worst_abs_error_percent = *worst;
      a.predicted_faster = whole(3), a.with_band = whole(4), a.inside_band = whole(5), a.sources = whole(6);
      a.held_out_with_band = whole(9), a.held_out_inside_band = whole(10);
      if (!seen.insert({a.design, a.kind}).second)
        throw InputError(path, line, "design", "a second row of " + a.design + " " + a.kind);
      if (a.kind != "time" && a.kind != "cost") throw InputError(path, line, "kind", "expected time or cost");
      if (a.metrics < 1 || a.predicted_faster > a.metrics || a.inside_band > a.with_band || a.with_band > a.metrics ||
          a.held_out_inside_band > a.held_out_with_band || a.held_out_with_band > a.metrics || a.sources < 1 ||
          a.sources > a.metrics)
        throw InputError(path, line, "metrics", "counts out of order (0 <= inside_band <= with_band <= metrics, "
                                                "0 <= held_out_inside_band <= held_out_with_band <= metrics, "
                                                "0 <= predicted_faster <= metrics, 1 <= sources <= metrics)");
      a.error_p10_percent = percent(7);
      a.error_p90_percent = percent(8);
      if (a.error_p10_percent.has_value() != a.error_p90_percent.has_value() ||
          (a.error_p10_percent && *a.error_p10_percent > *a.error_p90_percent))
        throw InputError(path, line, c[9].name, "expected both percentiles, p10 <= p90, or neither");
      if (a.error_p10_percent.has_value() != (a.sources >= 2))
        throw InputError(path, line, c[9].name, "expected percentiles from two sources or more, and none from one");
      out.push_back(a);
    }
  } catch (const io::error::base& e) {
    throw csv_input_error(path, e);
  }
  return out;
}

std::vector<std::string> accuracy_lines(const std::vector<DesignAccuracy>& recorded,
                                        const std::vector<SystemDesign>& systems) {
  auto accuracy = [&](const std::string& design) {
    const DesignAccuracy* time = find(recorded, design, "time");
    const DesignAccuracy* cost = find(recorded, design, "cost");
    std::string text;
    if (time) text += describe(*time);
    if (time && cost) text += "; ";
    if (cost) text += describe(*cost);
    return text;
  };
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& first : systems) {
    const std::string& strategy = first.strategy;
    if (!seen.insert(strategy).second) continue;
    const std::string measured = accuracy(strategy);
    if (!measured.empty()) {
      out.push_back(strategy + ": " + measured);
      continue;
    }
    std::vector<const SystemDesign*> of_design;
    for (const auto& sys : systems)
      if (sys.strategy == strategy) of_design.push_back(&sys);
    std::string names;
    for (const auto* sys : of_design) names += (names.empty() ? "" : ", ") + sys->system;
    out.push_back(fmt::format("{} ({}): no measured run of this design is among the validation cases; what {} used, "
                              "each measured alone:",
                              strategy, names, of_design.size() == 1 ? "its run" : "their runs"));
    for (const auto& m : kMechanisms) {
      std::string users;
      for (const auto* sys : of_design)
        if (contains(sys->mechanisms, m.mechanism)) users += (users.empty() ? "" : ", ") + sys->system;
      if (users.empty()) continue;
      const std::string alone = accuracy(m.name);
      out.push_back(fmt::format("  {} [{}; {}]: {}", m.label, m.name, users,
                                alone.empty() ? "no validation case measures it" : alone));
    }
  }
  return out;
}

std::vector<std::string> record_band_lines(const std::vector<DesignAccuracy>& recorded,
                                           const std::vector<SystemDesign>& systems) {
  const DesignAccuracy* every = find(recorded, kEveryDesign, "time");
  if (!every || !every->error_p10_percent || !every->error_p90_percent) return {};
  const double p10 = *every->error_p10_percent, p90 = *every->error_p90_percent;
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "by p2psim's record over every design, a real run could take (its time errors over all {} validation metrics, "
      "each of {} sources weighing alike: p10 {:+.1f} %, p90 {:+.1f} % (error = predicted / measured - 1, "
      "so a run predicted at T takes T / (1 + error)); held out, {} of {} measured values fell inside such a band "
      "drawn from the other sources' errors; --replicates bands hold the constants' spreads only, not the model's "
      "error):",
      every->metrics, every->sources, p10, p90, every->held_out_inside_band, every->held_out_with_band));
  size_t w = 0;
  for (const auto& s : systems) w = std::max(w, s.system.size());
  for (const auto& s : systems) {
    if (!s.total_s) {
      out.push_back(fmt::format("  {:<{}}  did not finish", s.system, w));
      continue;
    }
    out.push_back(fmt::format("  {:<{}}  {:.0f} to {:.0f} s (predicted {:.0f} s)", s.system, w,
                              *s.total_s / (1 + p90 / 100), *s.total_s / (1 + p10 / 100), *s.total_s));
  }
  return out;
}

}  // namespace p2psim
