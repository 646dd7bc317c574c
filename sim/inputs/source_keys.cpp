#include "source_keys.hpp"

#include <regex>
#include <set>
#include <string>

namespace p2psim {
namespace {

const std::regex kKeyShape(R"([A-Z]{1,4}(-[A-Z]{1,4})?[0-9]+)");
const std::regex kCitedKey(R"(\b[A-Z]{1,4}(-[A-Z]{1,4})?[0-9]+\b)");
// When the source was published or measured (a year first: "2024-04", "2019-2021", "2023 (archived)"), or, for a
// page that states no date and changes, when it was read ("read 2026-11-29"): "current" said neither.
// A date is a year, a month or a day; what follows it starts with a space, a comma or a slash ("2023-11/12"), or is
// a range's second year ("2019-2021"). "read" takes a whole day.
const std::regex kDateShape(R"((read (19|20)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))"
                            R"(|(19|20)[0-9]{2}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?))"
                            R"(([ ,/].*|-(19|20)[0-9]{2}.*)?)");

void check_attribute(const XmlFile& xml, const pugi::xml_node& node, const char* attr,
                     const std::set<std::string>& keys) {
  const auto a = node.attribute(attr);
  if (!a) return;
  const std::string text = a.as_string();
  // A value no source gives says so: a test's ("none: ...") or an assumption ("assumption: ...").
  if (text.rfind("none:", 0) == 0 || text.rfind("assumption:", 0) == 0) return;
  // What stands in parentheses says what a source gives ("SG1 (LV08's own latency factor)"); it cites none.
  std::string cited;
  int depth = 0;
  for (char ch : text) {
    depth += ch == '(' ? 1 : 0;
    if (depth == 0) cited += ch;
    depth -= ch == ')' && depth > 0 ? 1 : 0;
  }
  int named = 0;
  for (std::sregex_iterator it(cited.begin(), cited.end(), kCitedKey), end; it != end; ++it, ++named)
    if (!keys.count(it->str()))
      throw xml.error(node, XmlFile::field_name(node, attr),
                      "source '" + it->str() + "' is not a key of <sources> in this file");
  if (named == 0)
    throw xml.error(node, XmlFile::field_name(node, attr),
                    "names no key of <sources> (e.g. \"S41\") outside parentheses, nor begins \"assumption:\" or "
                    "\"none:\"");
}

/// Every attribute whose name ends in "source" (source, cpu_source, nic_source, scalar_source, ...).
void check_attributes(const XmlFile& xml, const pugi::xml_node& node, const std::set<std::string>& keys) {
  static const std::string suffix = "source";
  for (const auto& a : node.attributes()) {
    const std::string name = a.name();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      check_attribute(xml, node, a.name(), keys);
  }
}

void check_below(const XmlFile& xml, const pugi::xml_node& node, const std::set<std::string>& keys) {
  for (const auto& child : node.children()) {
    if (child.type() != pugi::node_element || std::string(child.name()) == "sources") continue;
    check_attributes(xml, child, keys);
    check_below(xml, child, keys);
  }
}

}  // namespace

void check_source_keys(const XmlFile& xml, const pugi::xml_node& root) {
  std::set<std::string> keys;
  for (const auto& s : root.child("sources").children()) {
    if (s.type() != pugi::node_element) continue;
    if (std::string(s.name()) != "source") throw xml.error(s, "sources", "expected <source key=... url=...>");
    xml.check_names(s, {"key", "url", "note", "date"});
    xml.text(s, "url");  // required: where a reader checks it
    const std::string date = xml.text(s, "date");  // required: a constant's value is of its day
    if (!std::regex_match(date, kDateShape))
      throw xml.error(s, "sources/source/@date", "'" + date + "': expected a date beginning with its year (2024-04, "
                                                 "2019-2021), or, for a page that gives none, when it was read "
                                                 "(read 2026-11-29)");
    const std::string key = xml.text(s, "key");
    if (!std::regex_match(key, kKeyShape))  // a key of another shape could never be found where it is cited
      throw xml.error(s, "sources/source/@key", "key '" + key + "': expected capitals, an optional '-' and capitals, "
                                                "then digits (S41, WF-S1)");
    if (!keys.insert(key).second) throw xml.error(s, "sources/source/@key", "key '" + key + "' is defined twice");
  }
  check_attributes(xml, root, keys);
  check_below(xml, root, keys);
}

}  // namespace p2psim
