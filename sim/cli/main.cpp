// p2psim: one command, git-style subcommands. Subcommands that run LibTorch kernels live in the separate
// p2psim-torch binary and are exec'd, so the simulator itself starts without loading libtorch.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "../util/args.hpp"
#include "../util/data_dir.hpp"
#include "commands.hpp"

using namespace p2psim;

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // nullptr: provided by p2psim-torch
};

const std::vector<Command>& commands() {
  static const std::vector<Command> list{
      {"run", "simulate an experiment: the time and cost of each training system it compares", cli::cmd_run},
      {"sweep", "run every scenario of an experiment's <sweep>, resumably, in parallel processes", cli::cmd_sweep},
      {"merge", "merge sweep result folders (e.g. Slurm shards) into one results.csv", cli::cmd_merge},
      {"report", "render the figures and an HTML report of a results folder into DIR/report/", cli::cmd_report},
      {"recommend", "the cheapest configuration within --deadline-s, or the fastest within --budget-usd",
       cli::cmd_recommend},
      {"models", "list the model zoo with parameter counts and gradient sizes (runs LibTorch)", nullptr},
      {"calibrate", "time real LibTorch kernels and write calibration CSVs (runs LibTorch)", nullptr},
      {"replay", "train the model for real on a run's schedule.json: accuracy against time and cost (runs LibTorch)",
       nullptr},
      {"fit", "show the compute model fitted to calibration CSVs", cli::cmd_fit},
      {"validate", "hold predictions against published measurements of real cloud runs (validation/)",
       cli::cmd_validate},
      {"schema", "print the result tables' columns and the phases, with what each means, as JSON", cli::cmd_schema},
  };
  return list;
}

void print_help(std::ostream& out) {
  out << "usage: p2psim <command> [options]     (p2psim <command> --help for its options)\n\n"
         "p2psim predicts the time and cost of distributed ML training on a cloud: peer-to-peer training whose\n"
         "peers offload gradient computation to serverless functions, and the designs it is compared with\n"
         "(ring all-reduce, parameter servers, serverless trees and sharded aggregation, LambdaML, SPIRT).\n\n"
         "commands:\n";
  for (const auto& c : commands()) out << "  " << c.name << std::string(12 - std::string(c.name).size(), ' ') << c.summary << '\n';
  out << "\nexit codes: 0 success; 1 internal error, or a sweep with a failed scenario; 2 bad input;\n"
         "3 a check that did not pass (run --check, recommend without an answer, validate --check-recorded)\n";
}

int exec_torch_binary(char** argv) {
  auto self = std::filesystem::read_symlink("/proc/self/exe");
  auto torch_bin = self.parent_path() / "p2psim-torch";
  argv[0] = const_cast<char*>("p2psim-torch");
  ::execv(torch_bin.c_str(), argv);
  std::cerr << "p2psim: internal error: cannot run " << torch_bin << ": " << std::strerror(errno) << '\n';
  return kExitInternal;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return kExitBadInput;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_help(std::cout);
    return kExitOk;
  }
  if (name == "--version") {
    std::cout << "p2psim " << P2PSIM_VERSION << "\ndata: " << p2psim::data_dir() << '\n';
    return kExitOk;
  }
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    if (!c.run) return exec_torch_binary(argv);
    return run_reporting_errors(name, [&] { return c.run(argc - 1, argv + 1); });
  }
  std::cerr << "p2psim: unknown command '" << name << "'\n\n";
  print_help(std::cerr);
  return kExitBadInput;
}
