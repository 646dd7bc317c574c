// A strategy's own parameters (the attributes of its <system>), read with types and bounds. Every attribute
// must be read: one the strategy does not know is an error, never silently ignored.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "../../inputs/experiment.hpp"
#include "../../util/input_error.hpp"

namespace p2psim::simulation {

/// Experiment settings a strategy may not model (combine with |).
enum Unmodelled : unsigned {
  kAsync = 1,             // <synchronization mode="async">
  kCrash = 2,             // <failures crash_peer>
  kCompression = 4,       // any <exchange compression>
  kTopK = 8,              // top-k compression only
  kFunctionFailures = 16,  // <failures function_failure_probability>
  kPeerGroups = 32         // <peers><group> of several instance types or speeds
};

class StrategyParams;
/// Refuses, naming the system's line, each of `what` that the experiment sets: the strategy does not model
/// it, and ignoring it silently would mislead.
void refuse_unmodelled(const StrategyParams& params, const Experiment& e, const std::string& strategy, unsigned what);

class StrategyParams {
 public:
  explicit StrategyParams(const SystemSpec& system) : system_(system) {}
  std::string choice(const std::string& name, const std::vector<std::string>& choices, const std::string& fallback);
  long long integer(const std::string& name, long long min, long long max, long long fallback);
  double number(const std::string& name, double min, double max, double fallback);
  bool boolean(const std::string& name, bool fallback);
  bool has(const std::string& name) const { return system_.params.count(name) > 0; }
  /// Throws for any attribute not read so far.
  void reject_unread() const;
  /// An error about attribute `name` of this <system>.
  InputError error(const std::string& name, const std::string& what) const;
  /// The error for a required attribute `name` the system lacks ("required: `what`"), naming an attribute not read so
  /// far that is within two edits of it as a likely misspelling. A valid attribute the strategy reads later and that
  /// close to `name` would be named too: no strategy has such a pair (shards and reducer_buffers are far apart).
  InputError missing(const std::string& name, const std::string& what);

 private:
  const std::string* raw(const std::string& name);
  const SystemSpec& system_;
  std::set<std::string> read_;
};

}  // namespace p2psim::simulation
