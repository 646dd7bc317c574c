// `p2psim run` with <accuracy>: the schedule is written, replayed by p2psim-torch (a child process, so that the
// simulator never loads LibTorch), and the accuracy joined to the results.
#pragma once
#include <cstddef>
#include <string>

#include "../results/results.hpp"

namespace p2psim::app {

/// Writes `dir`/schedule.json, runs `p2psim-torch replay` on it into `dir`/accuracy.csv (progress on stderr) and
/// attaches the accuracy to `r`. Throws InputError when a replay refuses the schedule, runtime_error when one
/// fails otherwise (it has printed why). At most `at_once`
/// replays run at the same time (0: one per core); each dies with this process.
void replay_accuracy(Result& r, const std::string& dir, size_t at_once);

/// Thrown by replay_accuracy when SIGINT or SIGTERM arrived while replays ran: they are killed and their partial
/// files removed; the caller removes what else it made, then ends by `signal` (end_by_signal).
struct ReplayInterrupted {
  int signal = 0;
};

/// Ends this process as `signal` would have (its default action), once the caller has cleaned up.
[[noreturn]] void end_by_signal(int signal);

}  // namespace p2psim::app
