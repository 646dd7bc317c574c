// `p2psim sweep X.xml --out DIR [-j N] [--timeout S] [--shard i/n]`: every scenario of a sweep in its own
// process, results written atomically per scenario, resumable, interruptible; `p2psim merge` joins folders.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <set>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "../app/run_memo.hpp"
#include "../inputs/cloud_profile.hpp"
#include "../inputs/experiment.hpp"
#include "../results/results.hpp"
#include "../scenario/scenario.hpp"
#include "../scenario/sweep.hpp"
#include "../simulation/simulate.hpp"
#include "../util/atomic_file.hpp"
#include "../util/input_error.hpp"
#include "../util/json_text.hpp"
#include "../util/parse_number.hpp"
#include "../util/read_text.hpp"
#include "../util/temporary_folder.hpp"
#include <fmt/core.h>

#include "../results/replicate_bands.hpp"
#include "../util/args.hpp"
#include "../util/isolate.hpp"
#include "child_command.hpp"
#include "commands.hpp"
#include "sweep_results.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace p2psim::cli {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

using Clock = std::chrono::steady_clock;

struct Running {
  SweepScenario scenario;
  Clock::time_point started;
  bool timed_out = false;
  double timeout_s = 0;  // the --timeout it ran past
};

class Progress {
 public:
  Progress(int total, int skipped) : total_(total), skipped_(skipped), tty_(isatty(STDERR_FILENO)) {}
  void update(int done, int failed, bool force = false) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (!force && !tty_ && now - last_ < std::chrono::seconds(10)) return;
    if (!force && tty_ && now - last_ < std::chrono::milliseconds(200)) return;
    const int finished = done + failed, todo = total_ - skipped_;
    // A log (not a terminal) gets a line only when something ended since the last: the final forced line would
    // repeat the one just written.
    if (!tty_ && last_ != Clock::time_point{} && finished == last_finished_ && failed == last_failed_) return;
    last_ = now, last_finished_ = finished, last_failed_ = failed;
    const double rate = elapsed > 0 ? finished / elapsed : 0;
    const double eta = rate > 0 ? (todo - finished) / rate : 0;
    // No rate before the first scenario ends: no time to finish either, rather than "0.00 s".
    const std::string pace = finished == 0 && todo > 0
                                 ? "ETA unknown until a scenario ends"
                                 : fmt_number(rate) + " scenarios/s, ETA " + fmt_number(eta) + " s";
    std::string line = "[" + std::to_string(finished + skipped_) + "/" + std::to_string(total_) + "] " + pace + ", " +
                       std::to_string(failed) + " failed";
    if (tty_) {
      const int width = 30, filled = todo > 0 ? width * finished / todo : width;
      line = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + line;
      std::fprintf(stderr, "\r%s\033[K", line.c_str());
      if (force) std::fputc('\n', stderr);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }

 private:
  static std::string fmt_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
  }
  int total_, skipped_;
  bool tty_;
  int last_finished_ = -1, last_failed_ = -1;  // what the last line said
  Clock::time_point start_ = Clock::now(), last_{};
};

// "systems/system[@name='x']/@shards" -> "systems/system/@shards": the field an error about that value names.
std::string field_of(const std::string& select) {
  std::string out;
  int depth = 0;
  for (char ch : select) {
    if (ch == '[') ++depth;
    if (depth == 0) out += ch;
    if (ch == ']') --depth;
  }
  return out;
}

// Whether an error's text is about the value `select` sets: it names the field as the experiment reader does
// ("workload/@iterations") or as a system's strategy does ("systems/system[@name='x']/@shards", whichever quotes
// the axis used).
bool error_names(const std::string& what, const std::string& select) {
  std::string quoted = select;
  std::replace(quoted.begin(), quoted.end(), '"', '\'');
  for (const std::string& field : {field_of(select), quoted, "./" + quoted})
    if (what.find("field '" + field + "'") != std::string::npos) return true;
  return false;
}

// Every axis value tried once, in the first scenario that has it, before anything runs: a value that is wrong
// on its own (an unknown instance type, a bad number, an override matching nothing, a strategy's parameter) is
// reported at the user's file and axis line, not as a failure of every scenario that carries it. An error about
// another field (a batch outside the calibration at one peer count, say) depends on the combination: that
// scenario's own failure, when it runs. Returns every input file the probed scenarios read: with the
// experiment's own text, what the sweep's results depend on.
// The probed scenarios are written to a temporary folder (their paths are absolute already), so that a sweep
// refused here leaves no output folder behind.
std::set<std::string> check_axis_values(const std::string& experiment_path,
                                        const std::vector<SweepScenario>& scenarios) {
  std::set<std::pair<std::string, std::string>> seen;
  std::set<std::string> inputs{default_experiment_defaults_path()};
  const TemporaryFolder probes("p2psim-sweep-check");
  for (const auto& s : scenarios) {
    bool probe = false;
    for (const auto& v : s.values) probe |= seen.insert(v).second;
    if (!probe && &s != &scenarios.front()) continue;
    const fs::path xml = probes.path() / (s.id + ".xml");
    write_file_atomically(xml, s.experiment_xml);
    try {
      const Experiment e = load_experiment(xml.string(), default_experiment_defaults_path());
      const Scenario scenario = resolve_scenario(e);
      check_systems(scenario);
      // Hashed here once, for the provenance of every scenario's process forked from this one (file_stamp.hpp).
      for (const auto& f : scenario.input_files()) inputs.insert(f);
      for (const auto& f : inputs) file_hash(f);
    } catch (const InputError& e) {
      std::string what = e.what();
      if (what.rfind(xml.string() + ":", 0) == 0) what = what.substr(what.find(": ", xml.string().size()) + 2);
      for (size_t k = 0; k < s.values.size(); ++k) {
        const auto& [select, value] = s.values[k];
        // An axis that names what an experiment cannot have (a misspelt attribute or element): its select is
        // wrong, whatever its values.
        const std::string field = field_of(select), element = field.substr(0, field.find('/'));
        if ((error_names(what, select) && e.message.rfind("unknown attribute", 0) == 0) ||
            (!is_override_axis(select) && e.message.rfind("unknown element <" + element + ">", 0) == 0))
          throw InputError(experiment_path, s.value_lines[k], "axis/@select", "'" + select + "': " + e.message);
        if ((is_override_axis(select) && what.find("override") != std::string::npos) || error_names(what, select)) {
          // The inner error's own field only where it is not the axis's ("field 'peers/@count'" twice, otherwise).
          const bool own_field = !e.field.empty() && e.field != select;
          throw InputError(experiment_path, s.value_lines[k], "axis/@values",
                           "the value '" + value + "' of " + select + ": " +
                               (e.file.empty() ? what : (own_field ? "field '" + e.field + "': " : "") + e.message));
        }
      }
      // Wrong in the first scenario and about no axis: most likely the experiment itself, which every
      // scenario inherits; refused now rather than once per scenario. Where the sweep's own file, read as an
      // experiment, says the same of the same field, that error names the user's line (the scenario's text is
      // generated: its lines are not the user's).
      if (&s == &scenarios.front()) {
        try {
          check_systems(resolve_scenario(
              load_experiment(experiment_path, default_experiment_defaults_path(), /*sweep_file=*/true)));
        } catch (const InputError& own) {
          // The same complaint, not one about the file's own values that an axis replaces in every scenario (a
          // batch computed from a peer count no scenario has); a <sweep> left in a scenario is the file's second.
          if (own.field == e.field && (own.message == e.message || e.field == "sweep")) throw;
        }
        throw InputError(experiment_path, 0, "", "its first scenario is not a valid experiment: " + what);
      }
    }
  }
  return inputs;
}

// The experiment a sweep folder belongs to: its file's text and every input file's content. A folder of another
// version of them is refused, never mixed with this one (a stale row would be read as a result of this one).
void claim_folder(const fs::path& dir, const std::string& experiment_path, const std::set<std::string>& inputs) {
  nlohmann::ordered_json identity;
  identity["format"] = "p2psim-sweep/1";
  identity["experiment"] = fs::absolute(experiment_path).lexically_normal().string();
  identity["experiment_xxh64"] = file_hash(experiment_path);
  nlohmann::ordered_json hashes = nlohmann::ordered_json::object();
  for (const auto& f : inputs) hashes[fs::absolute(f).lexically_normal().string()] = file_hash(f);
  identity["inputs_xxh64"] = hashes;
  const fs::path path = dir / "sweep.json";
  if (fs::exists(path)) {
    nlohmann::ordered_json before;
    try {
      before = nlohmann::ordered_json::parse(read_input_file(path, kMaxXmlFileBytes));
    } catch (const nlohmann::json::exception&) {
      throw InputError(path.string(), 0, "", "not a sweep folder's identity (malformed JSON): remove it, or give another --out");
    }
    // The same text resumes wherever it is (the Python package writes it to a new temporary file each time), and
    // the folder then names where it is now; another text is another sweep, named by its file while that file is
    // there, else this file's other version.
    const std::string owner = before.value("experiment", "");
    if (before.value("experiment_xxh64", "") != identity["experiment_xxh64"] &&
        owner != identity["experiment"].get<std::string>() && !owner.empty() && fs::exists(owner))
      throw InputError(experiment_path, 0, "",
                       "the folder " + dir.string() + " holds the results of another sweep (" +
                           owner + "): give another --out, or remove the folder to start again");
    std::string changed;
    if (before.value("experiment_xxh64", "") != identity["experiment_xxh64"]) changed = "the experiment file " + experiment_path;
    else if (before.value("inputs_xxh64", nlohmann::ordered_json::object()) != hashes) {
      for (const auto& [file, hash] : hashes.items())
        if (!before["inputs_xxh64"].contains(file) || before["inputs_xxh64"][file] != hash) changed = file;
      if (changed.empty()) changed = "the set of input files";
    }
    if (!changed.empty())
      throw InputError(experiment_path, 0, "",
                       "the folder " + dir.string() + " holds the results of another version of this sweep (" + changed +
                           " changed since): give another --out, or remove the folder to start again");
    if (owner != identity["experiment"].get<std::string>()) write_file_atomically(path, json_text(identity, 2) + "\n");
    return;
  }
  // Not a sweep's folder yet: a merge's table or a run's results there would be replaced or read as this sweep's.
  for (const char* table : {"results.csv", "result.csv"})
    if (fs::exists(dir / table))
      throw UsageError("--out: '" + dir.string() + "' holds results that are not this sweep's (" + table +
                       ", of a merge or a run): give another --out, or remove them");
  write_file_atomically(path, json_text(identity, 2) + "\n");
}

// Runs `p2psim run` on one scenario into DIR/runs/.<id>.partial, stderr to DIR/runs/.<id>.stderr, in a forked
// copy of this process: a crash or a timeout kills only the copy, and the copy starts without loading and
// linking the binary's libraries again (SimGrid brings ns-3's): 56 ms of a small scenario's 100 ms.
pid_t spawn_run(const fs::path& dir, const SweepScenario& s, bool memo, int replicates, int lock,
                const fs::path& experiment_dir) {
  const fs::path xml = dir / "scenarios" / (s.id + ".xml");
  if (!fs::exists(xml)) write_file_atomically(xml, s.experiment_xml);
  const fs::path partial = dir / "runs" / ("." + s.id + ".partial");
  fs::remove_all(partial);
  const std::string stderr_path = (dir / "runs" / ("." + s.id + ".stderr")).string();
  app::RunOptions options;
  options.experiment_path = xml.string();
  options.provenance_base = experiment_dir.string();
  options.replicates = replicates;
  options.replay_dir = partial.string();
  options.replays_at_once = 1;  // a worker holds one of the sweep's -j slots: its replays run one at a time
  options.last_system_in_process = true;  // this copy ends after the run
  if (memo) options.memo_dir = (dir / "memo").string();
  // The child dies with the sweep, however the sweep ends (its replays die with it in turn), and does not hold the
  // sweep's lock: a killed sweep's folder can be resumed at once.
  const pid_t pid = fork_tied_to_parent("cannot start a scenario");
  if (pid > 0) return pid;
  ::close(lock);
  run_in_child("run", [&] { return run_into(options, partial.string()); }, stderr_path);
}

// Moves a finished run into place (a directory rename: all or nothing), or records its failure.
bool finish(const fs::path& dir, const Running& r, int status) {
  const auto& s = r.scenario;
  const fs::path partial = dir / "runs" / ("." + s.id + ".partial");
  const fs::path err = dir / "runs" / ("." + s.id + ".stderr");
  const bool ok = !r.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok) {
    write_file_atomically(partial / "scenario.json", json_text(scenario_json(s), 2) + "\n");
    fs::rename(partial, dir / "runs" / s.id);
    fs::remove(dir / "failed" / (s.id + ".json"));
  } else {
    nlohmann::ordered_json f = scenario_json(s);
    f["error"] = r.timed_out                ? fmt::format("timed out after {:g} s (--timeout)", r.timeout_s)
                 : WIFSIGNALED(status)      ? "killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exit code " + std::to_string(WEXITSTATUS(status));
    f["stderr"] = read_text(err);
    write_file_atomically(dir / "failed" / (s.id + ".json"), json_text(f, 2) + "\n");
    fs::remove_all(partial);
  }
  fs::remove(err);
  return ok;
}

// The systems of finished runs that could not run (out of memory, past a limit, ...): rows of results.csv whose
// status is not "ok". A result.json that cannot be read counts none: the rows themselves come from result.csv.
int infeasible_rows(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) {
    const fs::path result = entry.path() / "result.json";
    if (!entry.is_directory() || entry.path().filename().string().front() == '.' || !fs::exists(result)) continue;
    try {
      const auto run = nlohmann::json::parse(read_text(result));  // kept: items() refers into it
      for (const auto& [name, system] : run.at("systems").items())
        if (system.value("status", "") != "ok") ++count;
    } catch (const std::exception&) {
    }
  }
  return count;
}

// Says why scenarios failed, for the first `shown` of DIR/failed/ by id: each one's axis values and its run's error
// line (a value refused only beside the others' is named there, not at the sweep file's line), else the last line it
// wrote (a warning may come first).
void print_failures(const fs::path& dir, size_t shown = 3) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir / "failed"))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i < std::min(shown, files.size()); ++i) {
    std::string axes, why;
    try {
      const auto f = nlohmann::ordered_json::parse(read_text(files[i]));  // the axes in the sweep's order
      const auto values = f.value("axes", nlohmann::ordered_json::object());
      for (const auto& [select, value] : values.items())
        axes += (axes.empty() ? "" : ", ") + select + "=" + value.get<std::string>();
      std::string said, line;
      std::istringstream lines(f.value("stderr", ""));
      while (std::getline(lines, line))  // its error, else its last line (a warning is no reason it failed)
        if (!line.empty() && line.find(": warning: ") == std::string::npos &&
            (said.find("error:") == std::string::npos || line.find("error:") != std::string::npos))
          said = line;
      why = f.value("error", "") + (said.empty() ? "" : ": " + said);
    } catch (const std::exception& e) {  // a record someone edited: the sweep's outcome stands
      why = std::string("(unreadable record: ") + e.what() + ")";
    }
    std::fprintf(stderr, "  failed %s (%s): %s\n", files[i].stem().c_str(), axes.c_str(), why.c_str());
  }
  if (files.size() > shown)
    std::fprintf(stderr, "  and %zu more: %s\n", files.size() - shown, (dir / "failed").c_str());
}

// Scenarios whose texts differ only in <functions> or in their systems share the simulations of systems that run
// no function (run_memo.hpp): one of each group runs before the others, so that with several jobs the others find
// it done instead of simulating it beside it. Only the order changes; results are sorted by scenario id.
std::deque<SweepScenario> first_of_each_memo_group_first(std::deque<SweepScenario> todo) {
  std::map<std::string, int> seen;
  std::vector<std::pair<int, size_t>> order;  // (rank in its group, position)
  for (size_t i = 0; i < todo.size(); ++i)
    order.emplace_back(seen[text_without_functions_and_systems(todo[i].experiment_xml)]++, i);
  std::sort(order.begin(), order.end());
  std::deque<SweepScenario> sorted;
  for (const auto& [rank, i] : order) sorted.push_back(std::move(todo[i]));
  return sorted;
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw UsageError("--shard: expected i/n, got '" + text + "'");
  const int n = static_cast<int>(parse_int(text.substr(slash + 1), "shard", 1, 1 << 20));
  const int i = static_cast<int>(parse_int(text.substr(0, slash), "shard", 0, n - 1));
  return {i, n};
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("experiment", po::value<std::string>()->required(),
                                                  "experiment file with a <sweep>")(
      "out,o", po::value<std::string>(), "result folder (created; rerun to resume); not needed with --list")(
      "jobs,j", po::value<std::string>()->default_value(std::to_string(std::thread::hardware_concurrency())),
      "scenarios run at once")("timeout", po::value<std::string>()->default_value("0"),
                               "seconds before a scenario is killed and recorded as failed (0: none)")(
      "shard", po::value<std::string>(), "run only share i of n (0-based), e.g. 0/4")(
      "no-memo", "simulate every system of every scenario (by default a system that runs no function is simulated "
                 "once per group of scenarios that differ only in <functions> or in their other systems, and the "
                 "serverless all-to-all once per group that differ only in function memory sizes with the same "
                 "timing: docs/architecture.md, \"Scale\")")(
      "replicates", po::value<std::string>(),
      "also simulate N replicates of every scenario (p10/p50/p90 of time and cost in results.csv; p2psim run "
      "--help)")(
      "list", "list the scenarios and exit");
  po::positional_options_description pos;
  pos.add("experiment", 1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim sweep EXPERIMENT.xml --out DIR [-j N] [--timeout S] [--shard i/n]\n"
                     "Runs every scenario of the experiment's <sweep> in its own process; results land in\n"
                     "DIR/runs/<id>/ (atomically), failures in DIR/failed/<id>.json, all rows in DIR/results.csv.\n"
                     "Rerunning skips finished scenarios. Exit code 0 when every scenario succeeded, 1 otherwise.",
                     vm, &pos))
    return kExitOk;
  const int jobs = static_cast<int>(parse_int(vm["jobs"].as<std::string>(), "jobs", 1, 4096));
  const auto timeout = parse_real(vm["timeout"].as<std::string>());
  if (!timeout || *timeout < 0)
    throw UsageError("--timeout: expected seconds >= 0 (0: none), got '" + vm["timeout"].as<std::string>() + "'");
  const double timeout_s = *timeout;
  // Checked here, not in every scenario: a bad count is one error, before any run.
  const int replicates = vm.count("replicates") ? parse_replicates(vm["replicates"].as<std::string>()) : 0;
  std::vector<SweepScenario> scenarios;
  try {
    scenarios = expand_sweep(vm["experiment"].as<std::string>());
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  if (vm.count("shard")) {
    auto [i, n] = parse_shard(vm["shard"].as<std::string>());
    scenarios = shard(scenarios, i, n);
  }
  if (!vm.count("list") && !vm.count("out")) throw UsageError("--out: required (the result folder), except with --list");
  if (vm.count("list")) {
    // The scenarios listed are the ones a run would accept: a bad axis value is refused here as there.
    try {
      check_axis_values(vm["experiment"].as<std::string>(), scenarios);
    } catch (const InputError& e) {
      throw UsageError(e.what());
    }
    for (const auto& s : scenarios) std::printf("%s\n", json_text(scenario_json(s)).c_str());
    return kExitOk;
  }
  check_output_dir(vm["out"].as<std::string>());
  const fs::path dir = vm["out"].as<std::string>();
  std::set<std::string> inputs;
  try {
    inputs = check_axis_values(vm["experiment"].as<std::string>(), scenarios);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  for (const char* sub : {"scenarios", "runs", "failed"}) fs::create_directories(dir / sub);
  // One sweep per folder at a time: a second one would race the first for the same scenarios.
  const int lock = ::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0)
    throw UsageError("another sweep is running on " + dir.string() + " (it holds " + (dir / ".lock").string() +
                     "); wait for it, or give another --out");
  try {
    claim_folder(dir, vm["experiment"].as<std::string>(), inputs);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  // What a killed sweep left half-written is discarded (never read as a result); its scenarios run again.
  for (const char* sub : {"runs", "failed"})
    for (const auto& e : fs::directory_iterator(dir / sub))
      if (e.path().filename().string().find(".partial") != std::string::npos) fs::remove_all(e.path());

  std::deque<SweepScenario> todo;
  int skipped = 0;
  for (auto& s : scenarios) {
    if (fs::is_directory(dir / "runs" / s.id)) ++skipped;
    else todo.push_back(std::move(s));
  }
  // The memo lives as long as this sweep: outputs of another binary or other input files are never read.
  const bool memo = !vm.count("no-memo");
  fs::remove_all(dir / "memo");
  if (memo) todo = first_of_each_memo_group_first(std::move(todo));
  prepare_simulations();  // SimGrid started once here, not in each scenario's process
  g_stop_signal = 0;
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  const fs::path experiment_dir = fs::absolute(vm["experiment"].as<std::string>()).parent_path();
  Progress progress(static_cast<int>(scenarios.size()), skipped);
  std::map<pid_t, Running> running;
  int done = 0, failed = 0;
  while ((!todo.empty() || !running.empty()) && !g_stop_signal) {
    while (!todo.empty() && static_cast<int>(running.size()) < jobs) {
      pid_t pid = spawn_run(dir, todo.front(), memo, replicates, lock, experiment_dir);
      running[pid] = {std::move(todo.front()), Clock::now()};
      todo.pop_front();
    }
    int status = 0;
    // Without a timeout nothing needs watching meanwhile: wait for the next child (a signal interrupts the wait).
    // A 20 ms poll would leave a job slot idle for half of it on average, 10 % of a 100 ms scenario.
    pid_t pid = waitpid(-1, &status, timeout_s > 0 ? WNOHANG : 0);
    if (pid > 0 && running.count(pid)) {
      if (g_stop_signal) break;  // a child killed by the user's Ctrl-C is not a failure: leave it undone
      (finish(dir, running[pid], status) ? done : failed)++;
      running.erase(pid);
      progress.update(done, failed);
      continue;
    }
    if (timeout_s > 0)
      for (auto& [p, r] : running)
        if (!r.timed_out && Clock::now() - r.started > std::chrono::duration<double>(timeout_s)) {
          r.timed_out = true;
          r.timeout_s = timeout_s;
          kill(p, SIGKILL);
        }
    progress.update(done, failed);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (g_stop_signal) {
    // Stop the workers; what they had not finished leaves no trace, finished results stay.
    for (auto& [p, r] : running) kill(p, SIGKILL);
    for (auto& [p, r] : running) {
      waitpid(p, nullptr, 0);
      fs::remove_all(dir / "runs" / ("." + r.scenario.id + ".partial"));
      fs::remove(dir / "runs" / ("." + r.scenario.id + ".stderr"));
    }
    fs::remove_all(dir / "memo");
    progress.update(done, failed, true);
    std::fprintf(stderr, "interrupted: %d done, %d failed, %d skipped, %zu not run; rerun to finish\n", done, failed,
                 skipped, todo.size() + running.size());
    return 128 + g_stop_signal;
  }
  progress.update(done, failed, true);
  const long long reused = RunMemo::reused(dir / "memo");
  fs::remove_all(dir / "memo");
  int rows = 0;
  try {
    rows = merge_results({dir}, dir);
  } catch (const InputError& e) {  // a run folder someone edited or truncated
    throw UsageError(e.what());
  }
  const int infeasible = infeasible_rows(dir);
  std::fprintf(stderr, "sweep: %d done, %d failed, %d skipped; %d rows in %s%s\n", done, failed, skipped, rows,
               (dir / "results.csv").c_str(),
               infeasible == 0 ? ""
                               : (", " + std::to_string(infeasible) + " of them infeasible (their status column says "
                                  "why; they are not failures)").c_str());
  if (reused > 0)
    std::fprintf(stderr, "sweep: %lld simulations were reused from scenarios that differ only in what those systems "
                         "cannot use (docs/architecture.md, \"Scale\"; --no-memo: simulate every one)\n",
                 reused);
  if (!fs::is_empty(dir / "failed")) print_failures(dir);
  return failed == 0 && fs::is_empty(dir / "failed") ? kExitOk : kExitInternal;
}

int cmd_merge(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("dirs", po::value<std::vector<std::string>>()->required(),
                                                  "sweep result folders")(
      "out,o", po::value<std::string>()->required(), "folder for the merged results.csv");
  po::positional_options_description pos;
  pos.add("dirs", -1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim merge DIR... --out OUT\n"
                     "Merges sweep result folders (e.g. shards) into OUT/results.csv, each scenario once.",
                     vm, &pos))
    return kExitOk;
  std::vector<fs::path> dirs;
  for (const auto& d : vm["dirs"].as<std::vector<std::string>>()) {
    if (!fs::is_directory(fs::path(d) / "runs")) throw UsageError(d + ": not a sweep result folder (no runs/)");
    dirs.emplace_back(d);
  }
  check_output_dir(vm["out"].as<std::string>());
  const fs::path out = vm["out"].as<std::string>();
  // A sweep's own folder holds a results.csv of its runs: a merge of other folders there would replace it with a
  // table that leaves its runs out. Named among the folders, its runs are merged too.
  const auto same_folder = [&](const fs::path& d) { return fs::exists(out) && fs::equivalent(d, out); };
  if (fs::is_directory(out / "runs") && std::none_of(dirs.begin(), dirs.end(), same_folder))
    throw UsageError("--out: '" + out.string() + "' is a sweep's result folder not among those merged: its results.csv "
                     "would lose its own runs (name it among the folders, or choose another --out)");
  const bool replacing = fs::exists(out / "results.csv");
  fs::create_directories(out);
  int rows = 0;
  try {
    rows = merge_results(dirs, out);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  // The folders' failed scenarios are in no row: carried over, so that report and recommend on the merge name them
  // (a Slurm array's shards each hold their own). A previous merge's list goes with its table.
  const fs::path failed = out / "failed";
  if (std::none_of(dirs.begin(), dirs.end(), same_folder)) fs::remove_all(failed);
  int failures = 0;
  for (const auto& d : dirs) {
    if (same_folder(d) || !fs::is_directory(d / "failed")) continue;
    for (const auto& entry : fs::directory_iterator(d / "failed"))
      if (entry.path().extension() == ".json") {
        fs::create_directories(failed);
        fs::copy_file(entry.path(), failed / entry.path().filename(), fs::copy_options::overwrite_existing);
        ++failures;
      }
  }
  std::fprintf(stderr, "merge: %d rows in %s%s%s\n", rows, (out / "results.csv").c_str(),
               replacing ? " (replaced the table there)" : "",
               failures ? (", " + std::to_string(failures) + " failed scenario(s) in " + failed.string()).c_str() : "");
  return kExitOk;
}

}  // namespace p2psim::cli
