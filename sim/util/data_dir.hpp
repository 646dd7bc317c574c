// Where p2psim's data (platforms/, calibration/, experiments/, notebooks/) lives: $P2PSIM_DATA_DIR when set;
// else share/p2psim beside an installed binary (PREFIX/bin/p2psim -> PREFIX/share/p2psim); else the source tree
// the binary was built from. So a build runs in place, and an installed copy runs wherever it is moved.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace p2psim {

inline std::string data_dir() {
  if (const char* dir = std::getenv("P2PSIM_DATA_DIR")) return dir;
  // Where this binary was installed does not change while it runs: looked up once per process.
  static const std::string from_binary = [] {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const auto installed = exe.parent_path().parent_path() / "share" / "p2psim";
      if (std::filesystem::is_regular_file(installed / "experiments" / "defaults.xml", ec)) return installed.string();
    }
    return std::string(P2PSIM_DATA_DIR);
  }();
  return from_binary;
}

}  // namespace p2psim
