#include "pricing.hpp"

#include <algorithm>
#include <cmath>

namespace p2psim {

double round_up(double seconds, double granularity_s) {
  const double units = seconds / granularity_s;
  // 0.0030000000000000001 s must bill 3 ms, not 4: ignore excess below a millionth of a unit.
  return std::ceil(units - 1e-6) * granularity_s;
}

double billed_function_seconds(const FunctionRun& run, const FunctionService& service) {
  return round_up(run.run_s + (service.init_billed ? run.init_s : 0), service.billing_granularity_s);
}

double function_run_compute_usd(const FunctionRun& run, const FunctionService& f) {
  const double per_gb_s = run.arch == "arm" ? f.price_per_gb_s_arm_usd : f.price_per_gb_s_x86_usd;
  return billed_function_seconds(run, f) * (run.memory_mb / 1024.0) * per_gb_s;
}

Cost price(const Ledger& l, const CloudProfile& p) {
  Cost c;
  for (const auto& run : l.function_runs) c.function_compute_usd += function_run_compute_usd(run, p.functions);
  c.function_requests_usd = static_cast<double>(l.function_runs.size()) * p.functions.price_per_request_usd;
  c.workflow_usd = static_cast<double>(l.workflow_transitions) * p.workflow.price_per_transition_usd;
  c.storage_usd = static_cast<double>(l.storage_gets) * p.storage.price_per_get_usd +
                  static_cast<double>(l.storage_puts) * p.storage.price_per_put_usd;
  for (const auto& instance : l.instances) {
    const double billed =
        std::max(p.instance_billing_minimum_s, round_up(instance.uptime_s, p.instance_billing_granularity_s));
    c.instances_usd += billed / 3600.0 * p.instance_types.at(instance.type).price_per_hour_usd;
  }
  // One surplus credit is one vCPU-minute.
  c.cpu_credits_usd = l.surplus_credits / 60.0 * p.surplus_credit_price_per_vcpu_hour_usd;
  if (l.broker_uptime_s > 0)
    c.broker_usd = round_up(l.broker_uptime_s, p.broker.billing_granularity_s) / 3600.0 * p.broker.price_per_hour_usd;
  return c;
}

}  // namespace p2psim
