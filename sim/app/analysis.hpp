// The analysis layer is Python (notebooks/p2psim_plots.py, run with Debian's /usr/bin/python3, which sees
// python3-matplotlib and python3-pandas). This is the one place that starts it: `p2psim report` and `recommend`
// become it, `p2psim validate` waits for its figure.
#pragma once
#include <string>
#include <vector>

namespace p2psim::app {

/// Replaces this process by `p2psim_plots.py COMMAND ARGS...`; throws only when it cannot.
[[noreturn]] void exec_analysis(const std::string& command, const std::vector<std::string>& args);

/// Runs `p2psim_plots.py COMMAND ARGS...` in a child and waits for it; throws when it fails.
void run_analysis(const std::string& command, const std::vector<std::string>& args);

}  // namespace p2psim::app
