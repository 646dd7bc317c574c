// Writing a file so that readers see the old content or the new one, never a part: write beside, then rename.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

/// Several files of one folder as one set: every file is written beside its place first, and only when all are
/// written are they renamed into place, so that a full disk leaves the folder as it was, not a result.json
/// without its trace.
inline void write_files_atomically(const std::filesystem::path& dir,
                                   const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::filesystem::path> written;
  auto discard = [&] {
    std::error_code ignored;
    for (const auto& tmp : written) std::filesystem::remove(tmp, ignored);
  };
  for (const auto& [name, content] : files) {
    const std::filesystem::path tmp = dir / ("." + name + "." + std::to_string(::getpid()) + ".partial");
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    written.push_back(tmp);
    if (!out.flush()) {
      discard();
      throw std::runtime_error("cannot write " + tmp.string() + " (disk full or not writable?); nothing written");
    }
  }
  for (size_t i = 0; i < files.size(); ++i) std::filesystem::rename(written[i], dir / files[i].first);
}

}  // namespace p2psim
