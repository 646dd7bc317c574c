// `p2psim report` and `p2psim recommend`: the analysis layer is Python (notebooks/p2psim_plots.py, run with
// Debian's /usr/bin/python3, which sees python3-matplotlib and python3-pandas); these commands exec it.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "../data_dir.hpp"
#include "args.hpp"
#include "commands.hpp"

namespace p2psim::cli {
namespace {

int exec_analysis(const char* command, int argc, char** argv) {
  const std::string python = "/usr/bin/python3";
  const std::string script = data_dir() + "/notebooks/p2psim_plots.py";
  std::vector<std::string> args{python, script, command};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execv(python.c_str(), cargs.data());
  throw std::runtime_error("cannot run " + python + " " + script + ": " + std::strerror(errno));
}

}  // namespace

int cmd_report(int argc, char** argv) { return exec_analysis("report", argc, argv); }
int cmd_recommend(int argc, char** argv) { return exec_analysis("recommend", argc, argv); }

}  // namespace p2psim::cli
