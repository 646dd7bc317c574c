// `p2psim report` and `p2psim recommend`: this process becomes the analysis layer's (app/analysis.hpp).
#include <string>
#include <vector>

#include "../app/analysis.hpp"
#include "commands.hpp"

namespace p2psim::cli {

int cmd_report(int argc, char** argv) { app::exec_analysis("report", std::vector<std::string>(argv + 1, argv + argc)); }
int cmd_recommend(int argc, char** argv) {
  app::exec_analysis("recommend", std::vector<std::string>(argv + 1, argv + argc));
}

}  // namespace p2psim::cli
