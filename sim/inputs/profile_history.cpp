#include "profile_history.hpp"

#include <cmath>
#include <map>
#include <regex>

#include "xml_reader.hpp"

namespace p2psim {

std::optional<double> measurement_day(const std::string& text) {
  static const std::regex date(R"((\d{4})-(\d{2})(?:-(\d{2}))?)");
  std::smatch m;
  if (!std::regex_match(text, m, date)) return std::nullopt;
  const int year = std::stoi(m[1]), month = std::stoi(m[2]);
  const int day = m[3].matched ? std::stoi(m[3]) : 15;
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  return year * 365.25 + (month - 1) * 30.44 + day;
}

namespace {
struct Dated {
  double day;
  bool own;           // dates the profile's own value
  std::string value;  // else the value measured then
  pugi::xml_node node;
};

// The history's values by the attribute they date, checked: each names one attribute of the profile, has one
// <value> dating the profile's own, and no two of its dates are the same.
std::map<std::string, std::vector<Dated>> read_history(const XmlFile& xml) {
  const auto root = xml.root("cloud");
  const auto history = root.child("history");
  std::map<std::string, std::vector<Dated>> by_select;
  if (!history) return by_select;
  xml.check_names(history, {}, {"value"});
  for (auto v : history.children("value")) {
    xml.check_names(v, {"select", "measured", "value", "source"});
    const std::string select = xml.text(v, "select"), measured = xml.text(v, "measured");
    const auto day = measurement_day(measured);
    if (!day) throw xml.error(v, "history/value/@measured", "expected YYYY-MM or YYYY-MM-DD, got '" + measured + "'");
    for (const auto& other : by_select[select])
      if (other.day == *day)
        throw xml.error(v, "history/value/@measured", "'" + select + "' has a second value measured " + measured);
    const bool own = !v.attribute("value");
    by_select[select].push_back({*day, own, own ? std::string() : xml.text(v, "value"), v});
  }
  for (const auto& [select, values] : by_select) {
    // Checked whatever the date: a typo must not wait for a run that uses it.
    int attributes = 0;
    try {
      for (const auto& hit : root.select_nodes(select.c_str())) attributes += hit.attribute() ? 1 : 0;
    } catch (const pugi::xpath_exception& e) {
      throw xml.error(values.front().node, "history/value/@select", "'" + select + "': invalid XPath: " + e.what());
    }
    if (attributes != 1)
      throw xml.error(values.front().node, "history/value/@select",
                      "'" + select + "' selects " + std::to_string(attributes) + " attributes of the profile: a <value> dates one");
    int own = 0;
    for (const auto& v : values) own += v.own ? 1 : 0;
    if (own != 1)
      throw xml.error(values.front().node, "history/value/@value",
                      "'" + select + "': exactly one <value> without a value must date the profile's own (found " +
                          std::to_string(own) + ")");
  }
  return by_select;
}

ProfileOverride as_override(const XmlFile& xml, const std::string& select, const Dated& v) {
  ProfileOverride o{select, v.value, xml.path(), xml.line_of(v.node)};
  o.element = "history/value";
  return o;
}
}  // namespace

std::vector<ProfileOverride> history_as_of(const XmlFile& xml, const std::string& as_of) {
  const auto by_select = read_history(xml);
  std::vector<ProfileOverride> out;
  if (as_of.empty()) return out;
  const auto when = measurement_day(as_of);
  if (!when) throw InputError(xml.path(), 0, "as_of", "expected YYYY-MM or YYYY-MM-DD, got '" + as_of + "'");
  for (const auto& [select, values] : by_select) {
    const Dated* nearest = nullptr;  // ties go to the later measurement
    for (const auto& v : values)
      if (!nearest || std::abs(v.day - *when) < std::abs(nearest->day - *when) ||
          (std::abs(v.day - *when) == std::abs(nearest->day - *when) && v.day > nearest->day))
        nearest = &v;
    if (!nearest->own) out.push_back(as_override(xml, select, *nearest));
  }
  return out;
}

std::vector<ProfileOverride> history_values(const XmlFile& xml) {
  std::vector<ProfileOverride> out;
  for (const auto& [select, values] : read_history(xml))
    for (const auto& v : values)
      if (!v.own) out.push_back(as_override(xml, select, v));
  return out;
}

}  // namespace p2psim
