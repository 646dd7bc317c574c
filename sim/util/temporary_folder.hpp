#pragma once
// A folder of one's own under the system's temporary directory, removed with everything in it when the owner goes.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace p2psim {

class TemporaryFolder {
 public:
  /// `prefix`: the folder's name before its random part, e.g. "p2psim-replay".
  explicit TemporaryFolder(const std::string& prefix) {
    std::string name = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("cannot create a temporary folder " + name);
    path_ = name;
  }
  ~TemporaryFolder() {
    std::error_code ignored;  // a destructor reports nothing: what is left is in the temporary directory
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace p2psim
