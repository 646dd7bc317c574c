// A sweep's memo of simulated systems. Scenarios of one sweep that differ only in what a system cannot use give
// that system the same simulation; it runs once and the other scenarios read its output. What a system cannot
// use, by construction: a system on a platform without function slots runs no function, so nothing of the
// experiment's <functions> reaches it (the paper grid's five function memory sizes share one instance-based
// simulation); and a system's simulation reads its own <system> only, not the others' (its random streams are
// named by the experiment's seed and its participants alone). Everything else of the scenario, and every input
// file's hash, is in the key.
//
// The paper's serverless all-to-all reads the function memory size only through what its
// Strategy::function_memory_timing() lists (step times, the vCPU share below one, fitting) and the size it
// bills: two sizes that give the same list give the same simulation but for the billed size, which the reader
// writes back. Where a model's step is
// no faster above one vCPU (MobileNet's in the paper grid), 1,769 to 10,240 MB share one simulation.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "../inputs/experiment.hpp"
#include "../records/run_output.hpp"
#include "../scenario/scenario.hpp"

namespace p2psim {

/// The experiment file's text without what a system that runs no function cannot depend on: <functions>, and the
/// list of systems (<systems>, <architectures>; the key adds the system's own). Equal texts: one memo group.
std::string text_without_functions_and_systems(const std::string& experiment_xml);

class RunMemo {
 public:
  /// Outputs live in `dir` (created), one file per key, for as long as the sweep that owns it runs.
  explicit RunMemo(std::filesystem::path dir);

  /// The key of a system that runs no function: the scenario's text without <functions> and systems, the hashes
  /// of the files it reads (not the experiment file's own: its text is in the key), the system (its name,
  /// strategy and parameters) and the storage sharing. With `function_timing`, the key
  /// of a function system: the text keeps <functions> but its memory size, which the timing stands for
  /// (Strategy::function_memory_timing).
  static std::string key(const std::string& experiment_xml, const std::map<std::string, std::string>& file_hashes,
                         const SystemSpec& system, bool exact_storage_sharing, const std::string& function_timing = "");

  /// The output stored under `key` by another scenario's run, if any (counted as reused).
  std::optional<RunOutput> find(const std::string& key) const;
  /// Stores `out` under `key`, atomically: a reader sees all of it or nothing (two runs may store one key at once).
  void store(const std::string& key, const RunOutput& out) const;
  /// How many outputs were read back from this memo's folder so far, by every process.
  static long long reused(const std::filesystem::path& dir);

 private:
  std::filesystem::path dir_;
};

}  // namespace p2psim
