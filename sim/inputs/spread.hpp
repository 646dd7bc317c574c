// What a constant's source says of its uncertainty, and replicates that sample it. A number in a data file
// may carry a spread beside it: `X_sd="..."` (a standard deviation) or `X_p10="..." X_p90="..."` (a band that
// holds 80 % of the values). A replicate of a run draws every such constant from its spread, each from a
// stream of its own named by the constant and the replicate, so a replicate is the same whatever else the
// file holds, and the same run and seed give the same replicates. `X_drawn_with="Y"` (Y another attribute of
// the same element, with a spread) draws X with Y's deviate instead: for two constants read off one measurement,
// whose spreads are one uncertainty seen twice (X at its p90 where Y is at its p90).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace p2psim {

/// The attributes beside a number `X` that say its spread (`X_sd`, `X_p10`, `X_p90`) or whose deviate it draws with
/// (`X_drawn_with`): read by XmlFile, and dropped with X's value when an override replaces it.
inline constexpr const char* kDrawnWithSuffix = "_drawn_with";
inline constexpr const char* kSpreadSuffixes[] = {"_sd", "_p10", "_p90", kDrawnWithSuffix};

struct Spread {
  std::string select;  // XPath below the file's root element selecting the attribute, e.g. "network[1]/@x"
  std::string field;   // the attribute as messages name it, e.g. "network/@one_way_latency_s"
  std::string file;
  long line = 0;
  double nominal = 0;      // the value written
  double min = 0, max = 0;  // the field's valid range: a draw outside is clamped to it
  enum class Kind { Sd, Band } kind = Kind::Sd;
  double sd = 0;            // Kind::Sd
  double p10 = 0, p90 = 0;  // Kind::Band
  std::string drawn_with;   // the select of the constant whose deviate this one draws ("": its own)

  /// The value at standard normal deviate `z`. A band with p10 > 0 is a lognormal split at the nominal
  /// value: its median is the nominal value and its 10th and 90th percentiles are p10 and p90 (each side its
  /// own width, as sources often give an asymmetric band); a band reaching 0 or below is the same with normal
  /// sides. An sd is a lognormal of mean `nominal` and that sd when the field is positive, else a normal.
  double at(double z) const;
  /// The value `replicate` draws under `seed`.
  double draw(std::uint64_t seed, int replicate) const;
};

/// The standard normal deviate replicate `replicate` draws for the constant named `name` under `seed`.
double replicate_deviate(std::uint64_t seed, int replicate, const std::string& name);

/// The seed replicate `replicate` of a run seeded `seed` uses for its own random draws (steps, cold starts).
std::uint64_t replicate_seed(std::uint64_t seed, int replicate);

/// The q-quantile (0 <= q <= 1) of `values`, interpolated linearly between order statistics (numpy's
/// default); `values` must not be empty.
double quantile(std::vector<double> values, double q);

}  // namespace p2psim
