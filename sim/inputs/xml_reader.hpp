// Reading our XML inputs (experiments, cloud profiles) with errors that name file, line and field.
// Unknown elements and attributes are errors too: a typo must never silently fall back to a default.
#pragma once
#include <pugixml.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../util/input_error.hpp"
#include "spread.hpp"

namespace p2psim {

class XmlFile {
 public:
  /// Parses `path`; throws InputError (with the line of the syntax error) when missing or malformed.
  explicit XmlFile(const std::string& path);
  /// Parses XML text; `name` stands for the file in messages.
  XmlFile(const std::string& name, const std::string& text);

  const std::string& path() const { return path_; }
  pugi::xml_node root(const char* expected_name) const;
  long line_of(const pugi::xml_node& node) const;
  pugi::xml_document& document() { return *doc_; }

  /// An error about `field` (e.g. "peers/@count") of `node`.
  InputError error(const pugi::xml_node& node, const std::string& field, const std::string& what) const;

  /// Rejects attributes of `node` not in `allowed`, child elements not in `children`, and text inside it; a child
  /// given twice, unless it is one every schema repeats (override, system, ...) or in `repeatable` here.
  void check_names(const pugi::xml_node& node, const std::set<std::string>& allowed,
                   const std::set<std::string>& children = {}, const std::set<std::string>& repeatable = {}) const;
  /// Rejects text inside `node` (white space and comments aside): no p2psim element reads its text.
  void check_no_text(const pugi::xml_node& node) const;
  /// Rejects any element or text inside `node`; `why` says where its content goes instead.
  void check_empty(const pugi::xml_node& node, const std::string& why) const;

  // Typed attribute access. `required` variants throw when absent; the others return `fallback`.
  std::string text(const pugi::xml_node& node, const char* attr) const;
  std::string text_or(const pugi::xml_node& node, const char* attr, const std::string& fallback) const;
  double number(const pugi::xml_node& node, const char* attr, double min, double max) const;
  double number_or(const pugi::xml_node& node, const char* attr, double min, double max, double fallback) const;
  long long integer(const pugi::xml_node& node, const char* attr, long long min, long long max) const;
  long long integer_or(const pugi::xml_node& node, const char* attr, long long min, long long max,
                       long long fallback) const;
  bool boolean(const pugi::xml_node& node, const char* attr) const;
  bool boolean_or(const pugi::xml_node& node, const char* attr, bool fallback) const;
  /// One of `choices`.
  std::string choice(const pugi::xml_node& node, const char* attr, const std::vector<std::string>& choices) const;

  /// "parent/child/@attr" style name of an attribute, for messages.
  static std::string field_name(const pugi::xml_node& node, const char* attr);

  /// Lets every number of this file carry a spread (spread.hpp): `X_sd`, or `X_p10` with `X_p90`, beside a
  /// number `X`. Call before reading; check_names then allows those names, and number() records them.
  void allow_spreads() { spreads_allowed_ = true; }
  /// The spreads read so far, one per number that has one.
  const std::vector<Spread>& spreads() const { return spreads_; }
  /// Throws InputError for a spread attribute beside something that was not read as a number.
  void check_spreads_read() const;

 private:
  void note_spread(const pugi::xml_node& node, const char* attr, double value, double min, double max) const;

  void parse(const char* data, size_t size);
  /// Throws InputError when `node` is a comment XML forbids (one holding "--" or ending in "-").
  void check_comment(const pugi::xml_node& node) const;
  std::string path_;
  std::vector<size_t> line_starts_;
  std::unique_ptr<pugi::xml_document> doc_;
  bool spreads_allowed_ = false;
  mutable std::vector<Spread> spreads_;
  mutable std::set<std::pair<const void*, std::string>> numbers_read_;  // (node, attribute)
};

}  // namespace p2psim
