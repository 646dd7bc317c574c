// What a process computed from input files, remembered while the files stay as they were. A sweep reads and
// checks its scenarios before it forks their processes: each inherits what was computed from the calibration,
// the profile and the defaults, instead of reading, parsing and hashing them again (bench/README.md, "A ninth
// pass"). A file rewritten since (another size or modification time) is read again.
#pragma once
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace p2psim {

struct FileStamp {
  std::string path;
  std::uintmax_t size_bytes = 0;
  std::filesystem::file_time_type modified;
  bool operator==(const FileStamp& o) const {
    return path == o.path && size_bytes == o.size_bytes && modified == o.modified;
  }
};

/// The files' stamps; empty when one cannot be stamped (missing): nothing is remembered for it, and computing
/// it again reports the file.
inline std::vector<FileStamp> stamps_of(const std::vector<std::string>& paths) {
  std::vector<FileStamp> stamps;
  std::error_code ec;
  for (const auto& p : paths) {
    const auto size = std::filesystem::file_size(p, ec);
    if (ec) return {};
    const auto modified = std::filesystem::last_write_time(p, ec);
    if (ec) return {};
    stamps.push_back({p, size, modified});
  }
  return stamps;
}

/// Values computed from files (and a key of other inputs), by the files' stamps: one entry per files and key, its
/// value replaced once the files change. A few entries per process: a linear list.
template <class Key, class Value>
class FileMemo {
 public:
  template <class Compute>
  Value get(const std::vector<std::string>& paths, const Key& key, Compute compute) {
    const auto stamps = stamps_of(paths);
    auto entry = std::find_if(entries_.begin(), entries_.end(),
                              [&](const Entry& e) { return e.key == key && e.paths == paths; });
    if (!stamps.empty() && entry != entries_.end() && entry->stamps == stamps) return entry->value;
    Value value = compute();
    if (stamps.empty()) return value;
    if (entry == entries_.end()) entry = entries_.insert(entries_.end(), Entry{paths, key, {}, value});
    entry->stamps = stamps;
    entry->value = value;
    return value;
  }

 private:
  struct Entry {
    std::vector<std::string> paths;
    Key key;
    std::vector<FileStamp> stamps;
    Value value;
  };
  std::vector<Entry> entries_;
};

}  // namespace p2psim
