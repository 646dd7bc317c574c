// `p2psim replay SCHEDULE.json`: trains each replayable system of a schedule for real (replay.hpp), cached on
// disk by the content hash of what the training depends on, and writes loss and accuracy per iteration against
// the schedule's simulated time and cost.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace p2psim::models {

struct ReplayOptions {
  std::string schedule_path;
  std::vector<std::string> systems;  // empty: every replayable system
  std::string out_csv;
  std::string cache_dir;  // empty: no cache
  int threads = 1;        // LibTorch intra-op threads (part of the cache key: sums may round differently)
};

/// The default cache folder: $P2PSIM_CACHE_DIR, else $XDG_CACHE_HOME/p2psim/replay, else ~/.cache/p2psim/replay.
std::string default_replay_cache_dir();

/// Runs the replay and writes out_csv atomically. Throws std::invalid_argument for a bad schedule or option
/// and data::DataError for missing data files, each naming the file.
void replay(const ReplayOptions& o, std::ostream& log);

}  // namespace p2psim::models
