// A whole file's bytes as a string (empty when it cannot be read: callers that must tell check first).
#pragma once
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace p2psim {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace p2psim
