// The machine's processes whose command line holds a given text (from /proc): how a test sees which children
// a p2psim command left running.
#pragma once
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

/// A process's command line, arguments separated by NULs; empty once it has ended (a process can end between
/// listing /proc and reading it: reading its file then fails with ESRCH) or while it is a zombie.
inline std::string cmdline_of(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/cmdline";
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "";
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

inline std::vector<pid_t> processes_with(const std::string& text) {
  std::vector<pid_t> found;
  std::error_code ec;
  // Incremented with an error code: an entry may vanish while the listing is read.
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (cmdline_of(pid).find(text) != std::string::npos) found.push_back(pid);
  }
  return found;
}
