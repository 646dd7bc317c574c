#include "params.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "../../util/parse_number.hpp"

namespace p2psim::simulation {

namespace {

/// Edits (insertions, deletions, substitutions) from `a` to `b`.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

InputError StrategyParams::error(const std::string& name, const std::string& what) const {
  return InputError(system_.file, system_.line, "systems/system[@name='" + system_.name + "']/@" + name, what);
}

InputError StrategyParams::missing(const std::string& name, const std::string& what) {
  read_.insert(name);
  std::string message = "required: " + what;
  // It may be there misspelt, which only reject_unread() would name, after this error.
  for (const auto& [given, value] : system_.params)
    if (!read_.count(given) && edit_distance(given, name) <= 2) {
      message += "; '" + given + "' is not an attribute of strategy '" + system_.strategy + "': a misspelt " + name + "?";
      break;
    }
  return error(name, message);
}

const std::string* StrategyParams::raw(const std::string& name) {
  read_.insert(name);
  auto it = system_.params.find(name);
  return it == system_.params.end() ? nullptr : &it->second;
}

std::string StrategyParams::choice(const std::string& name, const std::vector<std::string>& choices,
                                   const std::string& fallback) {
  const std::string* v = raw(name);
  if (!v) return fallback;
  if (std::find(choices.begin(), choices.end(), *v) != choices.end()) return *v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw error(name, "expected one of " + list + ", got '" + *v + "'");
}

long long StrategyParams::integer(const std::string& name, long long min, long long max, long long fallback) {
  const std::string* v = raw(name);
  if (!v) return fallback;
  const auto x = parse_integer(*v);
  if (!x) throw error(name, "expected an integer, got '" + *v + "'");
  if (*x < min || *x > max)
    throw error(name, "expected " + std::to_string(min) + ".." + std::to_string(max) + ", got " + *v);
  return *x;
}

double StrategyParams::number(const std::string& name, double min, double max, double fallback) {
  const std::string* v = raw(name);
  if (!v) return fallback;
  const auto x = parse_real(*v);
  if (!x) throw error(name, "expected a number, got '" + *v + "'");
  if (*x < min || *x > max) throw error(name, fmt::format("expected a value in [{}, {}], got {}", min, max, *v));
  return *x;
}

bool StrategyParams::boolean(const std::string& name, bool fallback) {
  return choice(name, {"true", "false"}, fallback ? "true" : "false") == "true";
}

void refuse_unmodelled(const StrategyParams& params, const Experiment& e, const std::string& strategy, unsigned what) {
  auto refuse = [&](const std::string& why) { throw params.error("strategy", strategy + " " + why); };
  if ((what & kAsync) && e.asynchronous) refuse("is synchronous: remove <synchronization mode=\"async\">");
  if ((what & kCrash) && e.crash_peer >= 0) refuse("does not model peer crashes (<failures crash_peer>)");
  if ((what & kCompression) && e.exchange.compression != "none")
    refuse("does not model compressed gradients: set compression=\"none\"");
  if ((what & kTopK) && e.exchange.compression == "topk")
    refuse("does not model sparse (top-k) gradients, which cannot be summed in place: choose another compression");
  if ((what & kFunctionFailures) && e.function_failure_probability > 0)
    refuse("does not model function failures: set function_failure_probability=\"0\"");
  if ((what & kPeerGroups) && e.peer_groups.size() > 1)
    refuse("runs no peer instance (its workers are functions): groups of peers of several instance types mean "
           "nothing to it; give <peers count=\"..\"> (the workers) instead");
}

void StrategyParams::reject_unread() const {
  for (const auto& [name, value] : system_.params)
    if (!read_.count(name)) throw error(name, "unknown attribute for strategy '" + system_.strategy + "'");
}

}  // namespace p2psim::simulation
