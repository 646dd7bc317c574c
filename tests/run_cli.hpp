// Runs the real p2psim binary, as a user would, and captures its exit code and output.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + " " P2PSIM_BIN " " + args + " 2>&1";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}
