// Running a function in a forked child process and returning what it printed: SimGrid holds one engine per
// process, and a crash in one simulation must not take the caller down.
#pragma once
#include <functional>
#include <string>

namespace p2psim {

/// Runs `fn` in a child process and returns its result. An InputError thrown in the child is rethrown as an
/// InputError (message preserved); any other failure, including a crash, as std::runtime_error.
std::string run_isolated(const std::function<std::string()>& fn);

}  // namespace p2psim
