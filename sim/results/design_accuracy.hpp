// How well `p2psim validate` last found each design predicted (validation/accuracy_by_design.csv: written by
// `validate --record`, held to the current run by `validate --check-recorded`), so that `run` can say beside a
// prediction how far its design's predictions have been from measured runs, or that none was ever measured.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../records/mechanisms.hpp"

namespace p2psim {

struct DesignAccuracy {
  std::string design;  // a strategy's name (serverless_sharded) or a mechanism measured alone (object_storage_from_functions)
  std::string kind;    // "time" (seconds and rates) or "cost"
  int metrics = 0;
  double median_abs_error_percent = 0, worst_abs_error_percent = 0;
  int predicted_faster = 0;  // metrics p2psim predicts faster (a shorter time, a higher rate) or cheaper
  int with_band = 0, inside_band = 0;
  /// The independent sources of its metrics; the p10 and p90 of their time errors, each source weighing alike
  /// (validation::ErrorSpread), empty from one source; and how many of its metrics have a band drawn from the other
  /// sources' errors, and lie inside it (validation::band_by_other_sources).
  int sources = 0;
  std::optional<double> error_p10_percent = std::nullopt, error_p90_percent = std::nullopt;
  int held_out_with_band = 0, held_out_inside_band = 0;
};

/// The design of the row that summarises every validation metric of its kind, whatever its design: the record
/// whose spread `run` puts around every system's predicted time (record_band_lines()).
inline constexpr const char* kEveryDesign = "every_design";

inline constexpr const char* kAccuracyByDesignFile = "accuracy_by_design.csv";

std::string accuracy_by_design_csv(const std::vector<DesignAccuracy>& rows);
/// Throws InputError naming the file, line and field.
std::vector<DesignAccuracy> load_accuracy_by_design(const std::string& path);

/// A system of a run as the accuracy lines name it: its design, and the mechanisms its run used.
struct SystemDesign {
  std::string system, strategy;
  MechanismSet mechanisms = 0;
  std::optional<double> total_s = std::nullopt;  // its predicted time; empty when it did not finish
};

/// Lines for `run`: for each distinct strategy, in the systems' order, its design's recorded time and cost
/// accuracy; or, when no measured run of it is among the validation cases, one line saying so and then, indented,
/// one a mechanism its systems' runs used: which systems, and its own recorded accuracy or that no validation case
/// measures it alone.
std::vector<std::string> accuracy_lines(const std::vector<DesignAccuracy>& recorded,
                                        const std::vector<SystemDesign>& systems);

/// Lines for `run`: what the record of every design (the kEveryDesign time row's p10 and p90) says a real run of
/// each finished system would take, a prediction T giving T / (1 + p90 / 100) to T / (1 + p10 / 100); none when
/// the record has no such row or no percentiles.
std::vector<std::string> record_band_lines(const std::vector<DesignAccuracy>& recorded,
                                           const std::vector<SystemDesign>& systems);

}  // namespace p2psim
