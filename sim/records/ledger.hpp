// What a simulated run used, as the cloud would meter it. Usage only: no price travels through the simulation;
// pricing.hpp turns a Ledger into dollars with the profile's prices.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace p2psim {

struct FunctionRun {
  // All five fields or none: a brace list that leaves one out (the four values of the layout before billed_init_s
  // existed) would otherwise compile and shift the handler's duration into billed INIT.
  FunctionRun() = default;
  FunctionRun(int memory_mb, std::string arch, double init_s, double billed_init_s, double run_s)
      : memory_mb(memory_mb), arch(std::move(arch)), init_s(init_s), billed_init_s(billed_init_s), run_s(run_s) {}

  int memory_mb = 0;   // each function of a design has its own size, billed at it
  std::string arch;    // x86 | arm: priced differently
  double init_s = 0;   // a cold start's whole time before the handler: the platform's start, then INIT (0 when warm)
  // ... of which INIT as the provider meters it: the runtime's own initialisation (its import). The platform's
  // start of the execution environment before INIT is not billed.
  double billed_init_s = 0;
  double run_s = 0;    // handler duration
};

/// The memory sizes `runs` ran at, smallest first (a design may size its functions apart from the experiment's).
inline std::vector<int> memory_sizes_mb(const std::vector<FunctionRun>& runs) {
  std::set<int> sizes;
  for (const auto& f : runs) sizes.insert(f.memory_mb);
  return {sizes.begin(), sizes.end()};
}

/// Those sizes as text, '/' between them ("448/3008"), or `none` when `runs` is empty.
inline std::string memory_sizes_text(const std::vector<FunctionRun>& runs, const std::string& none) {
  std::string text;
  for (int mb : memory_sizes_mb(runs)) text += (text.empty() ? "" : "/") + std::to_string(mb);
  return text.empty() ? none : text;
}

struct InstanceRun {
  std::string type;  // an instance type of the profile
  double uptime_s = 0;
};

struct Ledger {
  std::vector<FunctionRun> function_runs;  // one per invocation (retries included)
  long long workflow_transitions = 0;
  long long storage_gets = 0, storage_puts = 0;
  long long function_storage_requests = 0;  // of those (GET- and PUT-class), the ones functions made
  long long storage_throttled_requests = 0;  // served after the second they were asked in (S3's request rate)
  double storage_throttle_wait_s = 0;         // their waits, summed
  std::vector<InstanceRun> instances;  // peers, servers
  double broker_uptime_s = 0;          // 0 when the design does not use the broker
  double surplus_credits = 0;  // CPU credits spent beyond earnings by unlimited-mode burstable instances
};

/// The cloud usage metered so far, at one moment of a run: the ledger's counts then. With the moment's time it
/// prices the run up to that moment exactly (schedule.cpp), which a ledger of the whole run cannot.
struct UsageMark {
  long long function_runs = 0, workflow_transitions = 0, storage_gets = 0, storage_puts = 0;
};

}  // namespace p2psim
