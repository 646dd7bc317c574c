// JSON as p2psim writes it: bytes that are not UTF-8 (a Linux path may hold any) become U+FFFD instead of
// aborting the write of results already computed.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace p2psim {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace p2psim
