// Turning a Ledger into dollars with a price book (inputs/price_book.hpp): every price and billing rule is the
// book's, none is here. Pure.
#pragma once
#include <vector>

#include "../inputs/price_book.hpp"
#include "../records/ledger.hpp"

namespace p2psim {

struct Cost {
  double function_compute_usd = 0, function_requests_usd = 0, workflow_usd = 0, storage_usd = 0,
         instances_usd = 0, broker_usd = 0, cpu_credits_usd = 0;
  double total_usd() const {
    return function_compute_usd + function_requests_usd + workflow_usd + storage_usd + instances_usd + broker_usd +
           cpu_credits_usd;
  }
  // The bill by role. Published studies differ on whether shared infrastructure (the broker, which a team may
  // already run) belongs to a training run's cost; <cost include_broker> chooses what the cost ratio counts.
  double compute_usd() const { return instances_usd + cpu_credits_usd + function_compute_usd + function_requests_usd; }
  double orchestration_usd() const { return workflow_usd; }
  double shared_infrastructure_usd() const { return broker_usd; }
  double counted_usd(bool include_broker) const { return total_usd() - (include_broker ? 0.0 : broker_usd); }
};

/// `seconds` rounded up to a whole number of `granularity_s` (robust to floating-point noise just above).
double round_up(double seconds, double granularity_s);

/// Billed seconds of a meter's `seconds`: rounded up to its granularity, at least its minimum.
double billed_seconds(double seconds, const BillingRule& rule);

/// Billed seconds of one function run: INIT counted when the book bills it, then its billing rule.
double billed_function_seconds(const FunctionRun& run, const PriceBook::Functions& prices);

/// What each function run's compute costs, in order: its billed seconds x its memory x its architecture's GB-s
/// price, less what is left of the book's free GB-seconds (taken by the first runs).
std::vector<double> function_runs_compute_usd(const std::vector<FunctionRun>& runs, const PriceBook::Functions& prices);

/// What `requests` function requests cost, less the book's free requests.
double function_requests_usd(double requests, const PriceBook::Functions& prices);

Cost price(const Ledger& ledger, const PriceBook& prices);

/// What a run had cost at a moment of it: if it had stopped then. Instances and the broker are billed for their
/// uptime until then (minimums and granularity applied), function runs, transitions and storage requests as
/// metered until then (the moment's UsageMark). Surplus CPU credits, which the ledger keeps as a total, are
/// spread evenly over the run.
class CostTimeline {
 public:
  CostTimeline(const Ledger& ledger, const PriceBook& prices);
  Cost at(double time_s, const UsageMark& usage) const;

 private:
  const Ledger& ledger_;
  const PriceBook& prices_;
  std::vector<double> function_compute_before_usd_;  // [k]: the first k function runs' compute
  double end_s_ = 0;                                 // the longest instance uptime
};

}  // namespace p2psim
