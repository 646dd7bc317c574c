// What a cloud charges, apart from how it performs: a price book per provider, region and date
// (platforms/prices/<provider>_<region>_<date>.xml), referenced by its platform file (<price_book file>) and
// swappable from an experiment (<prices file>, with overrides of its own). Prices and the billing rules that go
// with them (granularity, minimums, INIT billed or not, free allowances, per-request charges) are data: a second
// provider's instances and functions need a price book, not code (cost/pricing.cpp reads only these fields).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cloud_profile.hpp"

namespace p2psim {

/// Time billed by a meter: rounded up to `granularity_s`, at least `minimum_s`.
struct BillingRule {
  double granularity_s = 1, minimum_s = 0;
};

struct PriceBook {
  std::string path, provider, region, date;
  long instances_line = 0;  // where <instances> is, for the check that it prices every instance type
  struct Instances {
    BillingRule billing;
    std::map<std::string, double> per_hour_usd;  // by instance type
    double surplus_credit_per_vcpu_hour_usd = 0;  // unlimited-mode burstable CPU beyond the earned credits
  } instances;
  struct Functions {
    BillingRule billing;          // per run
    bool init_billed = true;      // a cold start's INIT billed with the run
    std::map<std::string, double> per_gb_s_usd;  // by architecture
    double per_request_usd = 0;
    /// Allowances free of charge, taken by a run's first function runs and requests (a monthly free tier, for a run
    /// that is all its account runs that month): 0 unless the book says so.
    double free_gb_s = 0, free_requests = 0;
  } functions;
  double workflow_per_transition_usd = 0;
  double storage_per_get_usd = 0, storage_per_put_usd = 0;
  struct Broker {
    BillingRule billing;
    double per_hour_usd = 0;
  } broker;

  /// The hourly price of `type`; throws std::out_of_range when the book has none.
  double instance_per_hour_usd(const std::string& type) const { return instances.per_hour_usd.at(type); }
};

/// Loads a price book, applying `overrides` (XPaths relative to <price_book>) first. Every instance type of
/// `profile` must have a price, and every function architecture one per GB-second. Throws InputError naming
/// the file (or the override), line and field.
PriceBook load_price_book(const std::string& path, const CloudProfile& profile,
                          const std::vector<ProfileOverride>& overrides = {});

}  // namespace p2psim
