// Every constant's source is a key of the file's <sources>: a `source` attribute that names a key the file does not
// define is a typo that would leave a constant unsourced without anyone noticing.
#pragma once
#include <pugixml.hpp>

#include "xml_reader.hpp"

namespace p2psim {

/// Reads `root`'s <sources> (each <source> with a unique `key` of a key's shape, capitals, an optional "-" part,
/// then digits: S64, WF-M3, and a `url`) and checks every attribute below `root` whose name ends in "source"
/// (source, cpu_source, nic_source, ...): each word of a key's shape outside parentheses (which say what the
/// source gives) must be one of those keys, and the attribute must cite at least one, or begin "assumption:" or
/// "none:" (a test profile's values). Throws InputError naming the file, line and attribute.
void check_source_keys(const XmlFile& xml, const pugi::xml_node& root);

}  // namespace p2psim
