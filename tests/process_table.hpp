// The machine's processes whose command line holds a given text (from /proc): how a test sees which children
// a p2psim command left running.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

inline std::vector<pid_t> processes_with(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmdline(std::istreambuf_iterator<char>(in), {});
    // A zombie has an empty command line: it is no longer running.
    if (cmdline.find(text) != std::string::npos) found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}
