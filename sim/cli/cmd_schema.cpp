// `p2psim schema`: the result tables' columns and the phases, with what each means, as JSON (results/columns.hpp).
// notebooks/result_schema.json is its output, read by the analysis layer; a test keeps the two equal.
#include <iostream>

#include "../results/columns.hpp"
#include "../util/args.hpp"
#include "../util/json_text.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace p2psim::cli {

int cmd_schema(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim schema\n"
                     "Prints the columns of result.csv, groups.csv, trace.csv, validation.csv, accuracy_by_design.csv and accuracy.csv, how a\n"
                     "sweep's results.csv begins, and the phases, with what each means, as JSON\n"
                     "(notebooks/result_schema.json is this output).",
                     vm))
    return kExitOk;
  std::cout << json_text(result_schema(), 2) << '\n';
  return kExitOk;
}

}  // namespace p2psim::cli
