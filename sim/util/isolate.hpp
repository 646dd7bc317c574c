// Running a function in a forked child process and returning what it printed: SimGrid holds one engine per
// process, and a crash in one simulation must not take the caller down.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>

namespace p2psim {

/// Runs `fn` in a child process and returns its result. An InputError thrown in the child is rethrown as an
/// InputError (message preserved); any other failure, including a crash, as std::runtime_error.
std::string run_isolated(const std::function<std::string()>& fn);

/// fork(), stdio flushed first (or buffered output would be written twice), the child tied to this process: it is
/// killed when this process ends, however it ends (PR_SET_PDEATHSIG), so no simulation, replay or sweep worker
/// outlives what started it. Returns 0 in the child, its pid in the parent; throws std::runtime_error naming
/// `what` when fork fails.
pid_t fork_tied_to_parent(const std::string& what);

}  // namespace p2psim
