// How well `p2psim validate` last found each design predicted (validation/accuracy_by_design.csv: written by
// `validate --record`, held to the current run by `validate --check-recorded`), so that `run` can say beside a
// prediction how far its design's predictions have been from measured runs, or that none was ever measured.
#pragma once
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
};

inline constexpr const char* kAccuracyByDesignFile = "accuracy_by_design.csv";

std::string accuracy_by_design_csv(const std::vector<DesignAccuracy>& rows);
/// Throws InputError naming the file, line and field.
std::vector<DesignAccuracy> load_accuracy_by_design(const std::string& path);

/// A system of a run as the accuracy lines name it: its design, and the mechanisms its run used.
struct SystemDesign {
  std::string system, strategy;
  MechanismSet mechanisms = 0;
};

/// Lines for `run`: for each distinct strategy, in the systems' order, its design's recorded time and cost
/// accuracy; or, when no measured run of it is among the validation cases, one line saying so and then, indented,
/// one a mechanism its systems' runs used: which systems, and its own recorded accuracy or that no validation case
/// measures it alone.
std::vector<std::string> accuracy_lines(const std::vector<DesignAccuracy>& recorded,
                                        const std::vector<SystemDesign>& systems);

}  // namespace p2psim
