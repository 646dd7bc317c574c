// Writing a file so that readers see the old content or the new one, never a part: write beside, then rename.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace p2psim {

inline void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  // A name of this process's own: two processes may write the same file at once (e.g. a sweep's memo).
  const std::filesystem::path tmp = path.string() + "." + std::to_string(::getpid()) + ".partial";
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    written = static_cast<bool>(out.flush());
  }
  if (!written) {  // e.g. a full disk: leave nothing half-written behind
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + tmp.string() + " (disk full or not writable?)");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace p2psim
