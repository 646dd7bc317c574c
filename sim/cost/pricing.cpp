#include "pricing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace p2psim {

double round_up(double seconds, double granularity_s) {
  const double units = seconds / granularity_s;
  // 0.0030000000000000001 s must bill 3 ms, not 4: ignore excess below a millionth of a unit.
  return std::ceil(units - 1e-6) * granularity_s;
}

double billed_seconds(double seconds, const BillingRule& rule) {
  return std::max(rule.minimum_s, round_up(seconds, rule.granularity_s));
}

double billed_function_seconds(const FunctionRun& run, const PriceBook::Functions& f) {
  return billed_seconds(run.run_s + (f.init_billed ? run.billed_init_s : 0), f.billing);
}

std::vector<double> function_runs_compute_usd(const std::vector<FunctionRun>& runs, const PriceBook::Functions& f) {
  std::vector<double> usd;
  usd.reserve(runs.size());
  double free_gb_s = f.free_gb_s;
  for (const auto& run : runs) {
    const auto price = f.per_gb_s_usd.find(run.arch);
    if (price == f.per_gb_s_usd.end()) throw std::logic_error("a function run of no priced architecture: " + run.arch);
    const double gb_s = billed_function_seconds(run, f) * (run.memory_mb / 1024.0);
    const double free = std::min(free_gb_s, gb_s);
    free_gb_s -= free;
    usd.push_back((gb_s - free) * price->second);
  }
  return usd;
}

double function_requests_usd(double requests, const PriceBook::Functions& f) {
  return std::max(0.0, requests - f.free_requests) * f.per_request_usd;
}

Cost price(const Ledger& l, const PriceBook& p) {
  Cost c;
  for (double usd : function_runs_compute_usd(l.function_runs, p.functions)) c.function_compute_usd += usd;
  c.function_requests_usd = function_requests_usd(static_cast<double>(l.function_runs.size()), p.functions);
  c.workflow_usd = static_cast<double>(l.workflow_transitions) * p.workflow_per_transition_usd;
  c.storage_usd = static_cast<double>(l.storage_gets) * p.storage_per_get_usd +
                  static_cast<double>(l.storage_puts) * p.storage_per_put_usd;
  for (const auto& instance : l.instances)
    c.instances_usd +=
        billed_seconds(instance.uptime_s, p.instances.billing) / 3600.0 * p.instance_per_hour_usd(instance.type);
  // One surplus credit is one vCPU-minute.
  c.cpu_credits_usd = l.surplus_credits / 60.0 * p.instances.surplus_credit_per_vcpu_hour_usd;
  if (l.broker_uptime_s > 0)
    c.broker_usd = billed_seconds(l.broker_uptime_s, p.broker.billing) / 3600.0 * p.broker.per_hour_usd;
  return c;
}

CostTimeline::CostTimeline(const Ledger& ledger, const PriceBook& prices) : ledger_(ledger), prices_(prices) {
  function_compute_before_usd_.reserve(ledger.function_runs.size() + 1);
  double sum = 0;
  function_compute_before_usd_.push_back(0);
  for (double usd : function_runs_compute_usd(ledger.function_runs, prices.functions))
    function_compute_before_usd_.push_back(sum += usd);
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
  Cost c = price(so_far, prices_);
  const auto runs = static_cast<size_t>(usage.function_runs);
  c.function_compute_usd = function_compute_before_usd_.at(runs);
  c.function_requests_usd = function_requests_usd(static_cast<double>(runs), prices_.functions);
  return c;
}

}  // namespace p2psim
