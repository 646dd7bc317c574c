// A strategy's own parameters (the attributes of its <system>), read with types and bounds. Every attribute
// must be read: one the strategy does not know is an error, never silently ignored.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "../../experiment.hpp"
#include "../../input_error.hpp"

namespace p2psim::simulation {

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

 private:
  const std::string* raw(const std::string& name);
  const SystemSpec& system_;
  std::set<std::string> read_;
};

}  // namespace p2psim::simulation
