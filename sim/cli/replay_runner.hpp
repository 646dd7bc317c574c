// `p2psim run` with <accuracy>: the schedule is written, replayed by p2psim-torch (a child process, so that the
// simulator never loads LibTorch), and the accuracy joined to the results.
#pragma once
#include <cstddef>
#include <string>

#include "../results.hpp"

namespace p2psim::cli {

/// Writes `dir`/schedule.json, runs `p2psim-torch replay` on it into `dir`/accuracy.csv (progress on stderr) and
/// attaches the accuracy to `r`. Throws UsageError when the replay fails (it has printed why). At most `at_once`
/// replays run at the same time (0: one per core); each dies with this process.
void replay_accuracy(Result& r, const std::string& dir, size_t at_once);

}  // namespace p2psim::cli
