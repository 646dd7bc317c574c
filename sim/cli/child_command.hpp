// A CLI command run in a forked child as a fresh process would run it: the default signal dispositions, its
// output to /dev/null, its errors to a file, its exit code the child's. Shared by the sweep's workers and the
// Python module's runs and sweeps.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "../util/args.hpp"

namespace p2psim::cli {

/// Runs `body` as `p2psim NAME` would (run_reporting_errors) in this process, a forked child, with the default
/// signal dispositions, its output to /dev/null and its errors to `stderr_path`, and ends it with its exit code.
/// Not exit(): the parent's atexit handlers and static destructors (an interpreter's) are the parent's.
[[noreturn]] inline void run_in_child(const std::string& name, const std::function<int()>& body,
                                      const std::string& stderr_path) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const int out = ::open("/dev/null", O_WRONLY), err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(kExitInternal);
  const int rc = run_reporting_errors(name, body);
  std::cout.flush();
  std::fflush(nullptr);
  ::_exit(rc);
}

/// A command (`command`, args[0] its name) run in a forked child (run_in_child) as a fresh process would run it.
[[noreturn]] inline void run_command_in_child(int (*command)(int, char**), std::vector<std::string> args,
                                              const std::string& stderr_path) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  run_in_child(args.front(), [&] { return command(static_cast<int>(args.size()), argv.data()); }, stderr_path);
}

}  // namespace p2psim::cli
