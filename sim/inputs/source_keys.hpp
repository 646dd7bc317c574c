// Every constant's source is a key of the file's <sources>: a `source` attribute that names a key the file does not
// define is a typo that would leave a constant unsourced without anyone noticing.
#pragma once
#include <pugixml.hpp>

#include "xml_reader.hpp"

namespace p2psim {

/// Reads `root`'s <sources> (each <source> with a unique `key` and a `url`) and checks every `source` and
/// `scalar_source` attribute below `root`: each word shaped like a key (capitals, an optional "-" part, then digits:
/// S64, WF-M3) outside parentheses (which say what the source gives) must be one of them, and the attribute must name at least one, or begin "none:" with why (a test
/// profile's values). Throws InputError naming the file, line and attribute.
void check_source_keys(const XmlFile& xml, const pugi::xml_node& root);

}  // namespace p2psim
