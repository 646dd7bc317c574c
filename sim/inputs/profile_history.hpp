// A profile's <history>: constants whose measurements of different dates disagree, each value with its date.
// The profile's own value is one of them (a <value> without `value` dates it); a run "as of" a date takes, for
// each such constant, the value measured nearest to that date. The profile describes the platform as measured
// most recently; a measurement of 2021 is compared like with like against the platform of 2021, where the profile
// knows it (docs/accuracy.md, "As of when").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cloud_profile.hpp"

namespace p2psim {

class XmlFile;

/// A measurement's date, "YYYY-MM" or "YYYY-MM-DD", in days from year 0 (a month's middle when no day is given);
/// nullopt for any other text (e.g. "not stated").
std::optional<double> measurement_day(const std::string& text);

/// Reads and checks the <history> of the profile in `xml` (every constant it names must have its profile value
/// dated once) and returns the values to apply as of `as_of` ("" for none: the profile as written), as overrides
/// that name the <value>'s line. Throws InputError naming the profile's line and field.
std::vector<ProfileOverride> history_as_of(const XmlFile& xml, const std::string& as_of);

/// Every earlier value of the history (not the profile's own), each as an override naming its <value>'s line.
std::vector<ProfileOverride> history_values(const XmlFile& xml);

}  // namespace p2psim
