#include "replay_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "../records/accuracy_columns.hpp"
#include "../results/schedule.hpp"
#include "../util/atomic_file.hpp"
#include "../util/exit_codes.hpp"
#include "../util/input_error.hpp"
#include "../util/isolate.hpp"
#include "../util/json_text.hpp"
#include "../util/read_text.hpp"

namespace p2psim::app {
namespace {

namespace fs = std::filesystem;

// fork and exec rather than posix_spawn: the replay must die with the process that started it, whatever ends
// that one (SIGKILL included), instead of training on at full CPU into a folder that is gone.
pid_t spawn(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork_tied_to_parent("cannot run " + args[0]);
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(kExitInternal);
  }
  return pid;
}

volatile std::sig_atomic_t g_interrupt = 0;
void on_interrupt(int signal) { g_interrupt = signal; }

// While replays run, SIGINT and SIGTERM are noted (the wait for a replay returns) instead of ending the process
// before it has removed what it wrote; the dispositions before come back after.
class InterruptWatch {
 public:
  InterruptWatch() {
    g_interrupt = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;  // no SA_RESTART: waitpid returns EINTR
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptWatch() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace

void end_by_signal(int signal) {
  std::fflush(nullptr);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
  ::_exit(128 + signal);  // (a blocked signal)
}

void replay_accuracy(Result& r, const std::string& dir, size_t at_once) {
  fs::create_directories(dir);
  const auto schedule = (fs::path(dir) / "schedule.json").string();
  const auto accuracy = fs::path(dir) / "accuracy.csv";
  write_file_atomically(schedule, json_text(schedule_json(r)) + "\n");
  // Beside this binary; from the Python module (whose process is python3), where $P2PSIM_BIN_DIR says.
  const char* bin_dir = std::getenv("P2PSIM_BIN_DIR");
  const auto torch_bin = ((bin_dir && *bin_dir ? fs::path(bin_dir) : fs::read_symlink("/proc/self/exe").parent_path()) /
                          "p2psim-torch").string();
  // One single-threaded replay per system, as many at once as there are cores: a replay's arithmetic depends on
  // its thread count, one thread gives the same bytes in a run and in a sweep of parallel runs, and a second
  // thread gained only 1.3x (docs/time_to_accuracy.md).
  std::vector<std::string> names;
  for (const auto& a : r.systems)
    if (schedule_not_replayable(*r.scenario, a).empty()) names.push_back(a.name);
  const size_t parallel = at_once > 0 ? at_once : std::max(1u, std::thread::hardware_concurrency());
  std::map<pid_t, size_t> running;  // pid -> system index
  std::string failure;
  bool refused = false;
  auto part = [&](size_t i) { return (fs::path(dir) / (".accuracy." + std::to_string(i) + ".csv")).string(); };
  const InterruptWatch watch;
  auto stop_all = [&] {  // interrupted: the replays go, and what they had written
    for (const auto& [pid, i] : running) ::kill(pid, SIGKILL);
    for (const auto& [pid, i] : running) waitpid(pid, nullptr, 0);
    for (size_t i = 0; i < names.size(); ++i) fs::remove(part(i));
    throw ReplayInterrupted{static_cast<int>(g_interrupt)};
  };
  auto wait_one = [&] {
    int status = 0;
    pid_t pid;
    // Polled, not blocked in: a signal that lands between two waits (while a replay is being started, say) is
    // seen at the next look, where a blocking wait would sleep through it until the replays had all finished.
    for (;;) {
      if (g_interrupt) stop_all();
      pid = waitpid(-1, &status, WNOHANG);
      if (pid > 0 || (pid < 0 && errno != EINTR)) break;
      ::usleep(20000);  // a replay takes seconds; a signal cuts the sleep short
    }
    auto it = running.find(pid);
    if (it == running.end()) return;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      refused = refused || (WIFEXITED(status) && WEXITSTATUS(status) == kExitBadInput);
      failure = "the replay of " + names[it->second] + " (" + schedule + ") failed (" +
                (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                   : "signal " + std::to_string(WTERMSIG(status))) +
                "; its error is above)";
    }
    running.erase(it);
  };
  for (size_t i = 0; i < names.size() && failure.empty(); ++i) {
    while (running.size() >= parallel) wait_one();
    running[spawn({torch_bin, "replay", schedule, "--system", names[i], "--threads", "1", "--out", part(i)})] = i;
  }
  while (!running.empty()) wait_one();
  std::string csv;
  for (size_t i = 0; i < names.size() && failure.empty(); ++i) {
    const std::string rows = read_text(part(i));
    csv += csv.empty() ? rows : rows.substr(rows.find('\n') + 1);  // the header once
  }
  for (size_t i = 0; i < names.size(); ++i) fs::remove(part(i));
  if (!failure.empty()) {
    if (refused) throw InputError("", 0, "", failure);  // already names the schedule
    throw std::runtime_error(failure);
  }
  if (csv.empty()) csv = accuracy_csv_header();
  write_file_atomically(accuracy, csv);
  attach_replay(r, accuracy.string());
}

}  // namespace p2psim::app
