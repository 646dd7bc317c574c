// Records of activities computed ahead of the simulated clock (function invocations whose every step is known
// when they start: strategies/computed_invocations.hpp), held until the clock reaches them. Whatever reads the
// records during the run (an update's usage mark, Context::complete_iteration) then sees what a simulated
// activity would have recorded by that instant, and a run cut at a horizon keeps none from beyond it.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "run_output.hpp"

namespace p2psim::simulation {

class PendingRecords {
 public:
  enum class Kind { Trace, StorageGet, StoragePut };
  /// Records `kind` (a trace row: `row`, ending at `at_s`) once the clock reaches `at_s`.
  void add(double at_s, Kind kind, const PhaseRecord& row = {}) { queue_.push({at_s, next_order_++, kind, row}); }
  /// Applies to `out`, in time order (then in the order they were added), every record due by `now_s`.
  void settle(double now_s, RunOutput& out) {
    while (!queue_.empty() && queue_.top().at_s <= now_s) {
      const Entry& e = queue_.top();
      switch (e.kind) {
        case Kind::Trace: out.trace.push_back(e.row); break;
        case Kind::StorageGet: ++out.ledger.storage_gets; break;
        case Kind::StoragePut: ++out.ledger.storage_puts; break;
      }
      queue_.pop();
    }
  }

 private:
  struct Entry {
    double at_s;
    std::uint64_t order;
    Kind kind;
    PhaseRecord row;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.at_s != b.at_s ? a.at_s > b.at_s : a.order > b.order; }
  };
  std::priority_queue<Entry, std::vector<Entry>, Later> queue_;
  std::uint64_t next_order_ = 0;
};

}  // namespace p2psim::simulation
