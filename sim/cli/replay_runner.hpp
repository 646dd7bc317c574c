// `p2psim run` with <accuracy>: the schedule is written, replayed by p2psim-torch (a child process, so that the
// simulator never loads LibTorch), and the accuracy joined to the results.
#pragma once
#include <string>

#include "../results.hpp"

namespace p2psim::cli {

/// Writes `dir`/schedule.json, runs `p2psim-torch replay` on it into `dir`/accuracy.csv (progress on stderr) and
/// attaches the accuracy to `r`. Throws UsageError when the replay fails (it has printed why).
void replay_accuracy(Result& r, const std::string& dir);

}  // namespace p2psim::cli
