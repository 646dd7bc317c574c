#include "analysis.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "../util/data_dir.hpp"

namespace p2psim::app {
namespace {

const char* const kPython = "/usr/bin/python3";

std::vector<std::string> command_line(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> line{kPython, data_dir() + "/notebooks/p2psim_plots.py", command};
  line.insert(line.end(), args.begin(), args.end());
  return line;
}

[[noreturn]] void exec(std::vector<std::string> line) {
  std::vector<char*> argv;
  for (auto& a : line) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(kPython, argv.data());
  throw std::runtime_error("cannot run " + line[0] + " " + line[1] + ": " + std::strerror(errno));
}

}  // namespace

void exec_analysis(const std::string& command, const std::vector<std::string>& args) {
  exec(command_line(command, args));
}

void run_analysis(const std::string& command, const std::vector<std::string>& args) {
  const auto line = command_line(command, args);
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      exec(line);
    } catch (...) {
    }
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("could not run " + line[0] + " " + line[1] + " " + command);
}

}  // namespace p2psim::app
