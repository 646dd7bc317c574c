// Billable usage recorded by the simulation, priced afterwards by pricing.hpp.
#pragma once
#include <vector>

namespace p2psim {

struct FunctionRun {
  double init_s = 0;  // cold-start INIT phase (0 when warm)
  double run_s = 0;   // handler duration
};

struct Ledger {
  int function_memory_mb = 0;
  double function_price_per_gb_s_usd = 0;  // x86 or arm, chosen by the scenario
  std::vector<FunctionRun> function_runs;  // one per invocation (retries included)
  long long workflow_transitions = 0;
  long long storage_gets = 0, storage_puts = 0;
  std::vector<double> peer_uptime_s;  // one per peer instance
  double instance_price_per_hour_usd = 0;
  double broker_uptime_s = 0;
  double surplus_credits = 0;  // CPU credits spent beyond earnings by unlimited-mode burstable peers
};

}  // namespace p2psim
