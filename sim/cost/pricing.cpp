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

CostTimeline::CostTimeline(const Ledger& ledger, const CloudProfile& profile) : ledger_(ledger), profile_(profile) {
  function_compute_before_usd_.reserve(ledger.function_runs.size() + 1);
  double sum = 0;
  function_compute_before_usd_.push_back(0);
  for (const auto& run : ledger.function_runs)
    function_compute_before_usd_.push_back(sum += function_run_compute_usd(run, profile.functions));
  for (const auto& i : ledger.instances) end_s_ = std::max(end_s_, i.uptime_s);
}

Cost CostTimeline::at(double time_s, const UsageMark& usage) const {
  Ledger so_far;
  so_far.workflow_transitions = usage.workflow_transitions;
  so_far.storage_gets = usage.storage_gets;
  so_far.storage_puts = usage.storage_puts;
  for (const auto& i : ledger_.instances) so_far.instances.push_back({i.type, std::min(i.uptime_s, time_s)});
  so_far.broker_uptime_s = std::min(ledger_.broker_uptime_s, time_s);
  so_far.surplus_credits = end_s_ > 0 ? ledger_.surplus_credits * std::min(1.0, time_s / end_s_) : 0;
  Cost c = price(so_far, profile_);
  const auto runs = static_cast<size_t>(usage.function_runs);
  c.function_compute_usd = function_compute_before_usd_.at(runs);
  c.function_requests_usd = static_cast<double>(runs) * profile_.functions.price_per_request_usd;
  return c;
}

}  // namespace p2psim
