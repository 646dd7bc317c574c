// A CLI command run in a forked child as a fresh process would run it: the default signal dispositions, its
// output to /dev/null, its errors to a file, its exit code the child's. Shared by the sweep's workers and the
// Python module's runs and sweeps.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"

namespace p2psim::cli {

/// Runs `command` with `args` (args[0] its name) in this process, a forked child, and ends it with the command's
/// exit code. Not exit(): the parent's atexit handlers and static destructors (an interpreter's) are the parent's.
[[noreturn]] inline void run_command_in_child(int (*command)(int, char**), std::vector<std::string> args,
                                              const std::string& stderr_path) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const int out = ::open("/dev/null", O_WRONLY), err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(kExitInternal);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = run_reporting_errors(args.front(), command, static_cast<int>(args.size()), argv.data());
  std::cout.flush();
  std::fflush(nullptr);
  ::_exit(rc);
}

}  // namespace p2psim::cli
