// The exit codes every p2psim process keeps to (its commands, a sweep's workers, p2psim-torch's replays), so that
// a parent can tell a user's mistake from a bug in what it started.
#pragma once

namespace p2psim {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;  // bad input: one clear error naming file, line and field

}  // namespace p2psim
