#include "sweep.hpp"

#include <fmt/core.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "../inputs/experiment.hpp"
#include "../inputs/xml_reader.hpp"
#include "../util/parse_number.hpp"

namespace fs = std::filesystem;

namespace p2psim {
namespace {

// Axes that override a value of the platform (profile:XPATH) or of the price book (prices:XPATH).
constexpr std::pair<const char*, const char*> kOverridePrefixes[] = {{"profile:", "profile"}, {"prices:", "prices"}};

struct Axis {
  std::string select;
  std::vector<std::string> values;
  pugi::xml_node node;  // for messages
};

// A group of axes whose values go together (one axis alone is a group of one).
using Group = std::vector<Axis>;

Axis read_axis(const XmlFile& xml, const pugi::xml_node& n) {
  xml.check_names(n, {"select", "values"});
  Axis a{xml.text(n, "select"), {}, n};
  std::istringstream in(xml.text(n, "values"));
  for (std::string v; in >> v;) a.values.push_back(v);
  if (a.values.empty()) throw xml.error(n, "axis/@values", "lists no value");
  return a;
}

// The constant an axis sets, one name however the sweep spells it: "profile:./function_service/@keep_alive_s" and
// "functions/@keep_alive_s" are one (an attribute of <functions> stands for that override).
std::string constant_of(const std::string& select) {
  if (select.rfind("profile:", 0) != 0) return select;
  const std::string path = bare_select(select.substr(8));
  for (const char* a : kFunctionsAccountAttributes)
    if (path == std::string("function_service/@") + a) return std::string("functions/@") + a;
  return "profile:" + path;
}

}  // namespace

bool is_override_axis(const std::string& select) {
  for (const auto& [prefix, element] : kOverridePrefixes)
    if (select.rfind(prefix, 0) == 0) return true;
  return false;
}

namespace {

// What an axis sets: an element's attribute (an override of the profile: none).
using Target = std::pair<const void*, std::string>;

// Sets `value` on what `axis` selects in `root` (an experiment), or adds a profile override.
Target apply(const XmlFile& xml, pugi::xml_node root, const Axis& axis, const std::string& value) {
  for (const auto& [prefix, element] : kOverridePrefixes)
    if (axis.select.rfind(prefix, 0) == 0) {
      // The axis's value replaces the experiment's own value of the same constant, if it gives one (a file
      // gives a constant one value): an attribute of <functions> that stands for one, or an <override>.
      const std::string select = bare_select(axis.select.substr(std::string(prefix).size()));
      if (std::string(element) == "profile")
        for (const char* a : kFunctionsAccountAttributes)
          if (auto fn = root.child("functions"); fn.attribute(a) && select == std::string("function_service/@") + a) {
            fn.attribute(a).set_value(value.c_str());
            return {nullptr, ""};
          }
      auto parent = root.child(element) ? root.child(element) : root.append_child(element);
      pugi::xml_node o;
      for (auto existing : parent.children("override"))
        if (bare_select(existing.attribute("select").value()) == select) o = existing;
      if (!o) {
        o = parent.append_child("override");
        o.append_attribute("select").set_value(select.c_str());
        o.append_attribute("value");
      }
      o.attribute("value").set_value(value.c_str());
      return {nullptr, ""};
    }
  // "element/@attr": the element is created when the experiment leaves it to the defaults.
  const auto at = axis.select.rfind("/@");
  if (at == std::string::npos)
    throw xml.error(axis.node, "axis/@select", "expected element/@attribute, profile:xpath or prices:xpath, got '" + axis.select + "'");
  const std::string element = axis.select.substr(0, at), attribute = axis.select.substr(at + 2);
  if (attribute.empty() || attribute.find_first_of("/[@*") != std::string::npos)
    throw xml.error(axis.node, "axis/@select", "expected element/@attribute, got '" + axis.select + "'");
  pugi::xpath_node_set matches;
  try {
    matches = root.select_nodes(element.c_str());
  } catch (const pugi::xpath_exception& e) {
    throw xml.error(axis.node, "axis/@select", std::string("invalid XPath: ") + e.what());
  }
  // One value sets one attribute: a select matching several elements (or none that is an element) is refused.
  if (matches.size() > 1)
    throw xml.error(axis.node, "axis/@select", fmt::format("'{}' selects {} elements: an axis sets one attribute of "
                                                           "one element (add a predicate, e.g. [@name='x'])",
                                                           element, matches.size()));
  pugi::xml_node node = matches.empty() ? pugi::xml_node() : matches.first().node();
  if (!matches.empty() && node.type() != pugi::node_element)
    throw xml.error(axis.node, "axis/@select", "'" + element + "' selects no element of the experiment");
  if (!node) {
    if (element.find_first_of("/[@.*") != std::string::npos)
      throw xml.error(axis.node, "axis/@select", "'" + element + "' selects no element of the experiment");
    node = root.append_child(element.c_str());
  }
  if (!node.attribute(attribute.c_str())) node.append_attribute(attribute.c_str());
  node.attribute(attribute.c_str()).set_value(value.c_str());
  return {node.internal_object(), attribute};
}

std::string to_text(const pugi::xml_document& doc) {
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration);
  return out.str();
}

}  // namespace

std::vector<SweepScenario> expand_sweep(const std::string& path) {
  XmlFile xml(path);
  auto root = xml.root("experiment");
  std::vector<Group> groups;
  long sweep_line = 0;
  if (auto sweep = root.child("sweep")) {
    sweep_line = xml.line_of(sweep);
    xml.check_names(sweep, {}, {"axis", "together"});
    for (auto c : sweep.children()) {
      if (c.type() != pugi::node_element) continue;
      if (std::string(c.name()) == "axis") {
        groups.push_back({read_axis(xml, c)});
        continue;
      }
      xml.check_names(c, {}, {"axis"});
      Group g;
      for (auto a : c.children("axis")) g.push_back(read_axis(xml, a));
      if (g.empty()) throw xml.error(c, "sweep/together", "holds no axis");
      for (const auto& a : g)
        if (a.values.size() != g.front().values.size())
          throw xml.error(a.node, "axis/@values", "axes that vary together need as many values each (" +
                                                       std::to_string(g.front().values.size()) + " expected, got " +
                                                       std::to_string(a.values.size()) + ")");
      groups.push_back(std::move(g));
    }
    root.remove_child(sweep);
    std::set<std::string> selects;
    for (const auto& g : groups) {
      for (const auto& a : g)
        if (!selects.insert(constant_of(a.select)).second)
          throw xml.error(a.node, "axis/@select", "'" + a.select + "' is swept twice: one axis per value");
      // The same value (or, in <together>, the same combination) twice would be the same scenario twice.
      // Compared as the values they read as, by the readers' own rules: "4", "04" and "4.0" are one number, so are
      // "0" and "-0"; what no reader takes as a number ("0x10", "inf") stays text, and is refused as a number where
      // one is read. An integer past 2^53 (a seed may reach 2^62) is compared as itself: a double would merge it
      // with its neighbours.
      const auto as_read = [](const std::string& text) {
        if (const auto i = parse_integer(text); i && (*i > (1LL << 53) || *i < -(1LL << 53)))
          return fmt::format("i{}", *i);
        if (const auto r = parse_real(text)) return fmt::format("r{}", *r == 0 ? 0.0 : *r);
        return "t" + text;
      };
      std::set<std::vector<std::string>> combinations;
      for (size_t i = 0; i < g.front().values.size(); ++i) {
        std::vector<std::string> combination;
        for (const auto& a : g) combination.push_back(a.values[i]);
        std::vector<std::string> read;
        for (const auto& v : combination) read.push_back(as_read(v));
        if (!combinations.insert(read).second)
          throw xml.error(g.front().node, "axis/@values",
                          g.size() == 1 ? "lists '" + combination.front() + "' twice"
                                        : "the axes of this <together> repeat a combination of values");
      }
    }
  }

  // Refused before anything is expanded: three axes of 1,000 values would exhaust memory.
  double count = 1;
  for (const auto& g : groups) count *= static_cast<double>(g.front().values.size());
  if (count > static_cast<double>(kMaxSweepScenarios)) {
    std::string product;
    for (const auto& g : groups) product += (product.empty() ? "" : " x ") + std::to_string(g.front().values.size());
    throw InputError(path, sweep_line, "sweep",
                     fmt::format("{} = {:.0f} scenarios, over the limit of {} per sweep: split it into several sweeps "
                                "(docs/limits.md)", product, count, kMaxSweepScenarios));
  }
  // Odometer over the groups: the last group varies fastest.
  std::vector<size_t> index(groups.size(), 0);
  std::vector<SweepScenario> out;
  const std::string base = fs::absolute(path).parent_path().string();  // scenario files live elsewhere
  for (;;) {
    pugi::xml_document doc;
    doc.append_copy(root);
    auto exp = doc.document_element();
    SweepScenario sc;
    std::map<Target, const Axis*> set_by;  // two spellings of one attribute ("peers/@count", "./peers/@count")
    for (size_t g = 0; g < groups.size(); ++g)
      for (const auto& axis : groups[g]) {
        const Target target = apply(xml, exp, axis, axis.values[index[g]]);
        if (target.first) {
          const auto [it, fresh] = set_by.emplace(target, &axis);
          if (!fresh)
            throw xml.error(axis.node, "axis/@select", "'" + axis.select + "' sets the same attribute as '" +
                                                           it->second->select + "': one axis per attribute");
        }
        sc.values.emplace_back(axis.select, axis.values[index[g]]);
        sc.value_lines.push_back(xml.line_of(axis.node));
      }
    // The id hashes the scenario as written, before paths become absolute: stable across checkouts.
    const std::string content = to_text(doc);
    sc.id = fmt::format("{:016x}", XXH64(content.data(), content.size(), 0));
    resolve_relative_paths(exp, base);
    sc.experiment_xml = to_text(doc);
    out.push_back(std::move(sc));
    size_t g = groups.size();
    while (g > 0 && ++index[g - 1] == groups[g - 1].front().values.size()) index[--g] = 0;
    if (g == 0) break;
  }
  // Two scenarios of the same text would be one run written twice (its rename would collide).
  std::map<std::string, const SweepScenario*> by_id;
  for (const auto& sc : out) {
    const auto [it, fresh] = by_id.emplace(sc.id, &sc);
    if (!fresh) {
      auto values = [](const SweepScenario& x) {
        std::string t;
        for (const auto& [select, value] : x.values) t += (t.empty() ? "" : ", ") + select + "=" + value;
        return t;
      };
      throw InputError(path, sweep_line, "sweep",
                       "two scenarios are the same experiment (" + values(*it->second) + " and " + values(sc) +
                           "): do two axes set the same value?");
    }
  }
  return out;
}

std::vector<SweepScenario> shard(const std::vector<SweepScenario>& all, int index, int count) {
  std::vector<SweepScenario> mine;
  for (size_t i = static_cast<size_t>(index); i < all.size(); i += static_cast<size_t>(count)) mine.push_back(all[i]);
  return mine;
}

}  // namespace p2psim
