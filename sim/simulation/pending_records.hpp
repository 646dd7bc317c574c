// Records of activities computed ahead of the simulated clock (function invocations whose every step is known
// when they start: strategies/computed_invocations.hpp), held until the clock reaches them. Whatever reads the
// records during the run (an update's usage mark, Context::complete_iteration) then sees what a simulated
// activity would have recorded by that instant, and a run cut at a horizon keeps none from beyond it. The
// storage link's watch is told of the computed transfers the same way, in time order.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "../records/run_output.hpp"
#include "sg/storage_link_watch.hpp"

namespace p2psim::simulation {

class PendingRecords {
 public:
  enum class Kind { Trace, StorageRequests, SlotTransferStarts, SlotTransferEnds };
  explicit PendingRecords(sg::StorageLinkWatch& watch) : watch_(watch) {}
  /// Records `kind` once the clock reaches `at_s`: a trace row (`row`, ending at `at_s`), storage requests
  /// (`gets` GET-class and `puts` PUT-class), or a transfer of function slot `slot` to (`upload`) or from storage
  /// starting or ending.
  void add(double at_s, Kind kind, const PhaseRecord& row = {}) { queue_.push({at_s, next_order_++, kind, row, 0, false}); }
  void add_requests(double at_s, long long gets, long long puts) {
    queue_.push({at_s, next_order_++, Kind::StorageRequests, {}, 0, false, gets, puts});
  }
  void add_slot_transfer(double at_s, Kind kind, int slot, bool upload) {
    queue_.push({at_s, next_order_++, kind, {}, slot, upload});
  }
  /// Applies to `out` and the watch, in time order (then in the order they were added), every record due by
  /// `now_s`. Returns false once the watched transfers could have exceeded the storage link: the run is void
  /// (a caller inside an actor ends the simulation, sg::abandon_simulation).
  [[nodiscard]] bool settle(double now_s, RunOutput& out) {
    while (!queue_.empty() && queue_.top().at_s <= now_s) {
      const Entry& e = queue_.top();
      bool within_link = true;
      switch (e.kind) {
        case Kind::Trace: out.trace.push_back(e.row); break;
        case Kind::StorageRequests:
          out.ledger.storage_gets += e.gets;
          out.ledger.storage_puts += e.puts;
          break;
        case Kind::SlotTransferStarts: within_link = watch_.slot_transfer_begins(e.slot, e.upload); break;
        case Kind::SlotTransferEnds: watch_.slot_transfer_ends(e.slot, e.upload); break;
      }
      queue_.pop();
      if (!within_link) return false;
    }
    return !watch_.exceeded();
  }

 private:
  struct Entry {
    double at_s;
    std::uint64_t order;
    Kind kind;
    PhaseRecord row;
    int slot;
    bool upload;
    long long gets = 0, puts = 0;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.at_s != b.at_s ? a.at_s > b.at_s : a.order > b.order; }
  };
  sg::StorageLinkWatch& watch_;
  std::priority_queue<Entry, std::vector<Entry>, Later> queue_;
  std::uint64_t next_order_ = 0;
};

}  // namespace p2psim::simulation
