#include "replay_runner.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <vector>

#include "../atomic_file.hpp"
#include "../schedule.hpp"
#include "args.hpp"

extern char** environ;

namespace p2psim::cli {

void replay_accuracy(Result& r, const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const auto schedule = (fs::path(dir) / "schedule.json").string();
  const auto accuracy = (fs::path(dir) / "accuracy.csv").string();
  write_file_atomically(schedule, schedule_json(r).dump() + "\n");
  const auto torch_bin = (fs::read_symlink("/proc/self/exe").parent_path() / "p2psim-torch").string();
  std::vector<std::string> args{torch_bin, "replay", schedule, "--out", accuracy};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, torch_bin.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot run " + torch_bin);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitBadInput)
    throw UsageError("the replay of " + schedule + " refused its input (its error is above)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the replay of " + schedule + " failed (" +
                     (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status))) +
                     "; its error is above)");
  attach_replay(r, accuracy);
}

}  // namespace p2psim::cli
