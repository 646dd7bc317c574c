#include "replay_command.hpp"

#include <fmt/core.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "../sim/inputs/limits.hpp"
#include "../sim/records/accuracy_columns.hpp"
#include "../sim/util/atomic_file.hpp"
#include "../sim/util/read_text.hpp"
#include "replay.hpp"
#include "schedule_check.hpp"

namespace p2psim::models {
namespace {

namespace fs = std::filesystem;

// Bump when the replay's arithmetic changes, so that old cache entries are not reused.
constexpr const char* kReplayAlgorithm = "replay/3";

// The schedule and the dataset's files: both a user's input, read within the schedule's size limit.
std::string read_file(const std::string& path) { return read_input_file(path, kMaxScheduleFileBytes); }

std::string hash_hex(const std::string& bytes) { return fmt::format("{:016x}", XXH64(bytes.data(), bytes.size(), 0)); }

// What a system's training depends on, and nothing else: simulated times, costs, prices and memory sizes are
// left out, so that a sweep over them replays once.
// `data_hashes`: the content hashes of the dataset's files (the data, wherever it lies).
std::string cache_key(const nlohmann::json& schedule, const nlohmann::json& system, int threads,
                      const nlohmann::json& data_hashes) {
  nlohmann::json training = schedule.at("training");
  training.erase("target_accuracy");
  training.erase("data_dir");
  nlohmann::json gradients = nlohmann::json::array();
  for (const auto& u : system.at("updates")) gradients.push_back({u.at(0), u.at(1), u.at(4)});
  const nlohmann::json key{{"algorithm", kReplayAlgorithm}, {"seed", schedule.at("seed")}, {"training", training},
                           {"data", data_hashes}, {"threads", threads}, {"updates", gradients}};
  return hash_hex(key.dump());
}

// Cache entries: the points with every digit, so that a cached replay writes what a fresh one writes.
std::string points_csv(const std::vector<ReplayPoint>& points) {
  std::string s = "iteration,train_loss,evaluated,test_loss,test_accuracy,peers_evaluated\n";
  for (const auto& p : points)
    s += fmt::format("{},{:.17g},{},{:.17g},{:.17g},{}\n", p.iteration, p.train_loss, p.evaluated ? 1 : 0, p.test_loss,
                     p.test_accuracy, p.peers_evaluated);
  return s;
}

std::optional<std::vector<ReplayPoint>> read_points(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  std::vector<ReplayPoint> points;
  while (std::getline(in, line)) {
    ReplayPoint p;
    int evaluated = 0;
    if (std::sscanf(line.c_str(), "%d,%lf,%d,%lf,%lf,%d", &p.iteration, &p.train_loss, &evaluated, &p.test_loss,
                    &p.test_accuracy, &p.peers_evaluated) != 6)
      return std::nullopt;  // a damaged entry is replayed again
    p.evaluated = evaluated != 0;
    points.push_back(p);
  }
  return points;
}

std::string csv_number(double v) { return fmt::format("{:.9g}", v); }

}  // namespace

std::string default_replay_cache_dir() {
  if (const char* d = std::getenv("P2PSIM_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "p2psim" / "replay").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "p2psim" / "replay").string();
  return "";
}

void replay(const ReplayOptions& o, std::ostream& log) {
  nlohmann::json schedule;
  try {
    schedule = nlohmann::json::parse(read_file(o.schedule_path));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(o.schedule_path + ": not a schedule (malformed JSON: " + e.what() + ")");
  }
  check_schedule(schedule, o.schedule_path, limits::available_memory_bytes());
  for (const auto& name : o.systems) {
    bool found = false;
    for (const auto& s : schedule.at("systems")) found = found || s.at("name") == name;
    if (!found) throw std::invalid_argument("--system: '" + name + "' is not in " + o.schedule_path);
  }
  const auto& t = schedule.at("training");
  const unsigned long long seed = schedule.at("seed");
  nlohmann::json data_hashes = nlohmann::json::array();  // read once, for every system's cache key
  for (const auto& f : replay_data_files(t.at("dataset"), t.at("data_dir")))
    data_hashes.push_back(hash_hex(read_file(f)));
  std::optional<ReplayData> data;  // read only when something is not cached
  torch::set_num_threads(o.threads);
  std::string csv = accuracy_csv_header();  // and each row in kAccuracyColumns' order
  for (const auto& system : schedule.at("systems")) {
    const std::string name = system.at("name");
    if (!o.systems.empty() && std::find(o.systems.begin(), o.systems.end(), name) == o.systems.end()) continue;
    if (!system.at("replayable").get<bool>()) {
      log << fmt::format("{}: not replayed: {}\n", name, system.at("why_not").get<std::string>());
      continue;
    }
    const std::string key = cache_key(schedule, system, o.threads, data_hashes);
    const fs::path entry = o.cache_dir.empty() ? fs::path() : fs::path(o.cache_dir) / (key + ".csv");
    std::optional<std::vector<ReplayPoint>> points;
    if (!o.cache_dir.empty()) points = read_points(entry);
    if (points) {
      log << fmt::format("{}: replay cached ({})\n", name, entry.string());
    } else {
      if (!data) {
        ReplayDataSpec spec;
        spec.dataset = t.at("dataset");
        spec.data_dir = t.at("data_dir");
        spec.input = parse_input_shape(t.at("input_shape"));
        spec.train_samples = t.at("train_samples");
        spec.test_samples = t.at("test_samples");
        for (const auto& shard : peer_shards(t)) spec.shard_samples.push_back(shard.samples);
        spec.seed = seed;
        data = load_replay_data(spec);
      }
      log << fmt::format("{}: replaying {} updates\n", name, system.at("updates").size());
      points = replay_updates(t, seed, system.at("updates"), *data, log);
      if (!o.cache_dir.empty()) {
        fs::create_directories(o.cache_dir);
        write_file_atomically(entry, points_csv(*points));
      }
    }
    // Simulated time and cost of an iteration: when its last update was applied, and the run's cost then.
    std::map<int, std::pair<double, double>> when;
    for (const auto& u : system.at("updates")) {
      auto& w = when[u.at(1).get<int>()];
      if (u.at(2).get<double>() >= w.first) w = {u.at(2).get<double>(), u.at(3).get<double>()};
    }
    for (const auto& p : *points) {
      auto it = when.find(p.iteration);
      if (it == when.end()) continue;  // gradients computed, no update applied (a run cut short)
      csv += fmt::format("{},{},{},{},{},{},{},{}\n", name, p.iteration, csv_number(it->second.first),
                         csv_number(it->second.second), csv_number(p.train_loss),
                         p.evaluated ? csv_number(p.test_loss) : "", p.evaluated ? csv_number(p.test_accuracy) : "",
                         p.peers_evaluated);
    }
  }
  write_file_atomically(o.out_csv, csv);
}

}  // namespace p2psim::models
