// Entry points of the torch-free subcommands; each takes the argv that starts at its own name.
#pragma once
#include <string>

namespace p2psim::cli {

int cmd_fit(int argc, char** argv);
int cmd_run(int argc, char** argv);
/// Set in a sweep's worker, a forked process that ends after its one `run`: that run simulates its last system in
/// the process itself instead of in a forked copy of it (SimGrid allows one engine per process, and no other
/// follows). A crash of that system then ends the worker, which the sweep records as the scenario's failure.
extern bool run_last_system_in_process;
/// Set in a sweep's worker: the sweep's memo folder, through which its scenarios share the simulations of systems
/// that run no function (run_memo.hpp). Empty: every system is simulated.
extern std::string run_memo_dir;
int cmd_sweep(int argc, char** argv);
int cmd_merge(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_recommend(int argc, char** argv);
int cmd_validate(int argc, char** argv);

}  // namespace p2psim::cli
