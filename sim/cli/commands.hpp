// Entry points of the torch-free subcommands; each takes the argv that starts at its own name.
#pragma once
#include <string>

#include "../app/run_experiment.hpp"

namespace p2psim::cli {

int cmd_fit(int argc, char** argv);
int cmd_run(int argc, char** argv);
/// `p2psim run` in a sweep's worker: the pipeline with `options` (its errors as `run`'s), its files into `dir`.
int run_into(const app::RunOptions& options, const std::string& dir);
/// --replicates N of `run` and `sweep`: 1 to kMaxReplicates, else a UsageError.
int parse_replicates(const std::string& text);
int cmd_sweep(int argc, char** argv);
int cmd_merge(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_recommend(int argc, char** argv);
int cmd_validate(int argc, char** argv);
int cmd_schema(int argc, char** argv);

}  // namespace p2psim::cli
