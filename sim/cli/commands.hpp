// Entry points of the torch-free subcommands; each takes the argv that starts at its own name.
#pragma once

namespace p2psim::cli {

int cmd_fit(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_merge(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_recommend(int argc, char** argv);
int cmd_validate(int argc, char** argv);

}  // namespace p2psim::cli
