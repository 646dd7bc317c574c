#include "xml_reader.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <set>
#include <vector>

#include "../util/parse_number.hpp"
#include "../util/read_text.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace p2psim {

XmlFile::XmlFile(const std::string& path) : path_(path), doc_(std::make_unique<pugi::xml_document>()) {
  const std::string text = read_input_file(path, kMaxXmlFileBytes);
  parse(text.data(), text.size());
}

XmlFile::XmlFile(const std::string& name, const std::string& text)
    : path_(name), doc_(std::make_unique<pugi::xml_document>()) {
  parse(text.data(), text.size());
}


namespace {

constexpr int kMaxDepth = 32;

// The length of the UTF-8 sequence at data[i], or 0 when it is not one (overlong forms and surrogates included).
size_t utf8_sequence(const unsigned char* data, size_t i, size_t size) {
  const unsigned char c = data[i];
  if (c < 0x80) return 1;
  const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > size) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((data[i + k] & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && data[i + 1] < 0xA0) || (c == 0xED && data[i + 1] > 0x9F) || (c == 0xF0 && data[i + 1] < 0x90) ||
      (c == 0xF4 && data[i + 1] > 0x8F))
    return 0;
  return n;
}

}  // namespace

void XmlFile::parse(const char* data, size_t size) {
  line_starts_.push_back(0);
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size;) {
    const size_t n = utf8_sequence(bytes, i, size);
    // XML is UTF-8 here, and its text reaches result.json: refused where it is wrong, not garbled later.
    if (n == 0)
      throw InputError(path_, static_cast<long>(line_starts_.size()), "",
                       fmt::format("byte 0x{:02X} is not UTF-8 (save the file as UTF-8)", bytes[i]));
    if (data[i] == '\n') line_starts_.push_back(i + 1);
    i += n;
  }
  auto result = doc_->load_buffer(data, size, pugi::parse_default | pugi::parse_comments);
  if (!result) {
    auto line = static_cast<long>(std::upper_bound(line_starts_.begin(), line_starts_.end(),
                                                   static_cast<size_t>(result.offset)) - line_starts_.begin());
    throw InputError(path_, line, "", std::string("malformed XML: ") + result.description());
  }
  int roots = 0;
  for (auto c : doc_->children()) {
    check_comment(c);  // those before and after the root element
    // pugixml reads a second top-level element as a sibling of the first, which every reader here would ignore.
    if (c.type() == pugi::node_element && ++roots > 1)
      throw InputError(path_, line_of(c), "",
                       fmt::format("a second top-level element <{}>: a file holds one (<{}>)", c.name(),
                                   doc_->document_element().name()));
  }
  // Our schemas nest a few levels; code that walks the tree recursively must never meet a hostile depth.
  std::vector<std::pair<pugi::xml_node, int>> todo{{doc_->document_element(), 1}};
  while (!todo.empty()) {
    const auto [node, depth] = todo.back();
    todo.pop_back();
    if (depth > kMaxDepth)
      throw InputError(path_, line_of(node), "", "elements nested more than " + std::to_string(kMaxDepth) +
                                                      " deep: no p2psim file nests that far");
    for (auto c : node.children()) {
      check_comment(c);
      if (c.type() == pugi::node_element) todo.emplace_back(c, depth + 1);
    }
  }
}

void XmlFile::check_comment(const pugi::xml_node& node) const {
  // XML 1.0 (https://www.w3.org/TR/xml/#sec-comments) forbids "--" inside a comment and a comment ending in "-".
  // pugixml reads such a file; strict parsers, Python's among them (the analysis layer), refuse it. Refused here,
  // so that a file p2psim reads can be read by every tool.
  if (node.type() != pugi::node_comment) return;
  const std::string text = node.value();
  const auto at = text.find("--");
  if (at == std::string::npos && (text.empty() || text.back() != '-')) return;
  const size_t where = at == std::string::npos ? text.size() - 1 : at;
  const long line = line_of(node) + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(where), '\n'));
  throw InputError(path_, line, "",
                   "a comment holds \"--\" or ends in \"-\", which XML forbids inside comments (strict parsers, "
                   "Python's among them, refuse the file): write an option's short form (-o) or name it in words");
}

pugi::xml_node XmlFile::root(const char* expected_name) const {
  auto root = doc_->document_element();
  if (std::string(root.name()) != expected_name)
    throw InputError(path_, line_of(root), "", "the root element is <" + std::string(root.name()) + ">, expected <" +
                                                  expected_name + ">");
  return root;
}

long XmlFile::line_of(const pugi::xml_node& node) const {
  const auto offset = node.offset_debug();
  if (offset < 0) return 0;
  return static_cast<long>(std::upper_bound(line_starts_.begin(), line_starts_.end(), static_cast<size_t>(offset)) -
                           line_starts_.begin());
}

std::string XmlFile::field_name(const pugi::xml_node& node, const char* attr) {
  // The path below the root element: "peers/@count", "function_service/cold_start/@image_sigma".
  std::string name = node.name();
  for (auto p = node.parent(); p.parent() && p.parent().type() == pugi::node_element; p = p.parent())
    name = std::string(p.name()) + "/" + name;
  return attr && *attr ? name + "/@" + attr : name;
}

InputError XmlFile::error(const pugi::xml_node& node, const std::string& field, const std::string& what) const {
  return InputError(path_, line_of(node), field, what);
}

namespace {

// The attribute a spread attribute belongs to ("x" for "x_p10"), or "" when `name` names no spread.
std::string spread_base(const std::string& name) {
  for (const char* suffix : kSpreadSuffixes) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
      return name.substr(0, name.size() - s.size());
  }
  return "";
}

// An XPath below the root element that selects exactly `node`: each step its name and its position among
// same-named siblings, e.g. "instance_types[1]/instance[3]".
std::string xpath_below_root(const pugi::xml_node& node) {
  std::string path;
  for (auto n = node; n.parent() && n.parent().type() == pugi::node_element; n = n.parent()) {
    int position = 1;
    for (auto sibling = n.previous_sibling(n.name()); sibling; sibling = sibling.previous_sibling(n.name()))
      ++position;
    path = std::string(n.name()) + "[" + std::to_string(position) + "]" + (path.empty() ? "" : "/" + path);
  }
  return path;
}
}  // namespace

void XmlFile::check_names(const pugi::xml_node& node, const std::set<std::string>& allowed_names,
                          const std::set<std::string>& children, const std::set<std::string>& repeatable) const {
  std::set<std::string> allowed = allowed_names;
  if (spreads_allowed_)
    for (const auto& name : allowed_names)
      for (const char* suffix : kSpreadSuffixes) allowed.insert(name + suffix);
  std::set<std::string> seen;
  for (auto a : node.attributes()) {
    if (!seen.insert(a.name()).second)
      throw error(node, field_name(node, a.name()), "given twice: which one was meant?");
    if (!allowed.count(a.name())) {
      std::string list;
      for (const auto& n : allowed) list += (list.empty() ? "" : ", ") + n;
      throw error(node, field_name(node, a.name()), "unknown attribute (allowed: " + list + ")");
    }
  }
  check_no_text(node);
  // Elements our schemas allow several of wherever they appear, and those `repeatable` under this node alone (a
  // name repeatable in one place, as a function's <network> points, is singular in another, as the profile's
  // <network>); any other given twice is an error, not a silent first-wins.
  static const std::set<std::string> kRepeatable{"override", "system", "axis", "together", "instance", "group",
                                                 "visible_cores", "metric", "arch", "storage_client", "value"};
  std::set<std::string> elements;
  for (auto c : node.children()) {
    if (c.type() != pugi::node_element) continue;
    if (!kRepeatable.count(c.name()) && !repeatable.count(c.name()) && !elements.insert(c.name()).second)
      throw error(c, field_name(c, ""), "<" + std::string(c.name()) + "> is given twice inside <" + node.name() + ">");
    if (!children.count(c.name())) {
      std::string list;
      for (const auto& n : children) list += (list.empty() ? "" : ", ") + n;
      throw error(c, field_name(c, ""), "unknown element <" + std::string(c.name()) + "> inside <" + node.name() +
                                            "> (allowed: " + (list.empty() ? "none" : list) + ")");
    }
  }
}

void XmlFile::check_no_text(const pugi::xml_node& node) const {
  for (auto c : node.children()) {
    if (c.type() != pugi::node_pcdata && c.type() != pugi::node_cdata) continue;
    const std::string t = c.value();
    if (t.find_first_not_of(" \t\r\n") != std::string::npos)
      throw error(node, field_name(node, ""), "text inside <" + std::string(node.name()) +
                                                  "> is not read: remove it (a comment goes inside <!-- -->)");
  }
}

void XmlFile::check_empty(const pugi::xml_node& node, const std::string& why) const {
  check_no_text(node);
  for (auto c : node.children())
    if (c.type() == pugi::node_element)
      throw error(c, field_name(c, ""), "<" + std::string(node.name()) + "> holds no element: " + why);
}

std::string XmlFile::text(const pugi::xml_node& node, const char* attr) const {
  auto a = node.attribute(attr);
  if (!a) throw error(node, field_name(node, attr), "required attribute is missing");
  return a.value();
}

std::string XmlFile::text_or(const pugi::xml_node& node, const char* attr, const std::string& fallback) const {
  return node.attribute(attr) ? std::string(node.attribute(attr).value()) : fallback;
}

double XmlFile::number(const pugi::xml_node& node, const char* attr, double min, double max) const {
  const std::string s = text(node, attr);
  const auto parsed = parse_real(s);
  if (!parsed) throw error(node, field_name(node, attr), "expected a number, got '" + s + "'");
  const double v = *parsed;
  if (v < min || v > max) {
    std::ostringstream range;
    range << "expected a number in [" << min << ", " << max << "], got " << s;
    throw error(node, field_name(node, attr), range.str());
  }
  numbers_read_.insert({node.internal_object(), attr});
  if (spreads_allowed_) note_spread(node, attr, v, min, max);
  return v;
}

void XmlFile::note_spread(const pugi::xml_node& node, const char* attr, double value, double min, double max) const {
  const std::string base = attr;
  auto given = [&](const char* suffix) { return static_cast<bool>(node.attribute((base + suffix).c_str())); };
  const bool sd = given("_sd"), p10 = given("_p10"), p90 = given("_p90");
  if (!sd && !p10 && !p90) {
    if (given(kDrawnWithSuffix))
      throw error(node, field_name(node, (base + kDrawnWithSuffix).c_str()), "a draw is shared by constants with spreads; " +
                                                                               base + " has none");
    return;
  }
  Spread spread;
  spread.select = xpath_below_root(node) + "/@" + base;
  spread.field = field_name(node, attr);
  spread.file = path_;
  spread.line = line_of(node);
  spread.nominal = value;
  spread.min = min;
  spread.max = max;
  const std::string field = field_name(node, attr);
  if (sd && (p10 || p90))
    throw error(node, field + "_sd", "give a spread as " + base + "_sd or as " + base + "_p10 with " + base +
                                         "_p90, not both");
  if (sd) {
    spread.kind = Spread::Kind::Sd;
    spread.sd = number(node, (base + "_sd").c_str(), 0, max - min);
  } else {
    if (!p10 || !p90)
      throw error(node, field + (p10 ? "_p90" : "_p10"), "a band needs both " + base + "_p10 and " + base + "_p90");
    spread.kind = Spread::Kind::Band;
    spread.p10 = number(node, (base + "_p10").c_str(), min, max);
    spread.p90 = number(node, (base + "_p90").c_str(), min, max);
    if (spread.p10 > value)
      throw error(node, field + "_p10", "the 10th percentile must not exceed the value (" + text(node, attr) + ")");
    if (spread.p90 < value)
      throw error(node, field + "_p90", "the 90th percentile must not be below the value (" + text(node, attr) + ")");
    if (spread.p10 == spread.p90)
      throw error(node, field + "_p10", "a band needs p10 < p90 (for no spread, leave both out)");
  }
  if (given(kDrawnWithSuffix)) {
    const std::string partner = node.attribute((base + kDrawnWithSuffix).c_str()).value();
    const bool has_spread = partner != base && node.attribute(partner.c_str()) &&
                            (node.attribute((partner + "_sd").c_str()) || node.attribute((partner + "_p10").c_str()));
    if (!has_spread)
      throw error(node, field + kDrawnWithSuffix,
                  "'" + partner + "' is no other attribute of <" + node.name() + "> with a spread to draw with");
    // One constant draws, the others follow it: a partner that follows another would leave a loop or a chain
    // whose members draw apart after all.
    if (node.attribute((partner + kDrawnWithSuffix).c_str()))
      throw error(node, field + kDrawnWithSuffix,
                  "'" + partner + "' is itself drawn with another: draw both with the one that draws alone");
    spread.drawn_with = xpath_below_root(node) + "/@" + partner;
  }
  spreads_.push_back(std::move(spread));
}

void XmlFile::check_spreads_read() const {
  std::vector<pugi::xml_node> todo{doc_->document_element()};
  while (!todo.empty()) {
    const auto node = todo.back();
    todo.pop_back();
    for (auto a : node.attributes()) {
      const std::string base = spread_base(a.name());
      if (!base.empty() && !numbers_read_.count({node.internal_object(), base}))
        throw error(node, field_name(node, a.name()), "a spread belongs beside a number; " + base + " is not one here");
    }
    for (auto c : node.children())
      if (c.type() == pugi::node_element) todo.push_back(c);
  }
}

double XmlFile::number_or(const pugi::xml_node& node, const char* attr, double min, double max, double fallback) const {
  return node.attribute(attr) ? number(node, attr, min, max) : fallback;
}

long long XmlFile::integer(const pugi::xml_node& node, const char* attr, long long min, long long max) const {
  const std::string s = text(node, attr);
  const auto parsed = parse_integer(s);
  if (!parsed) {  // digits past long long's range are an integer still: say the range it must be in
    const size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
    const bool digits = s.size() > sign && s.find_first_not_of("0123456789", sign) == std::string::npos;
    throw error(node, field_name(node, attr),
                std::string(digits ? "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"
                                   : "expected an integer") +
                    ", got '" + s + "'");
  }
  const long long v = *parsed;
  if (v < min || v > max)
    throw error(node, field_name(node, attr), "expected an integer in [" + std::to_string(min) + ", " +
                                                  std::to_string(max) + "], got " + s);
  return v;
}

long long XmlFile::integer_or(const pugi::xml_node& node, const char* attr, long long min, long long max,
                              long long fallback) const {
  return node.attribute(attr) ? integer(node, attr, min, max) : fallback;
}

bool XmlFile::boolean(const pugi::xml_node& node, const char* attr) const {
  return choice(node, attr, {"true", "false"}) == "true";
}

bool XmlFile::boolean_or(const pugi::xml_node& node, const char* attr, bool fallback) const {
  return node.attribute(attr) ? boolean(node, attr) : fallback;
}

std::string XmlFile::choice(const pugi::xml_node& node, const char* attr, const std::vector<std::string>& choices) const {
  const std::string s = text(node, attr);
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw error(node, field_name(node, attr), "expected one of " + list + ", got '" + s + "'");
}

}  // namespace p2psim
