// Records of activities computed ahead of the simulated clock (function invocations whose every step is known
// when they start: strategies/computed_invocations.hpp), held until the clock reaches them. Whatever reads the
// records during the run (an update's usage mark, Context::complete_iteration) then sees what a simulated
// activity would have recorded by that instant, and a run cut at a horizon keeps none from beyond it. The
// storage link's watch is told of the computed transfers the same way, in time order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <tuple>
#include <vector>

#include "../records/run_output.hpp"
#include "sg/storage_link_watch.hpp"

namespace p2psim::simulation {

class PendingRecords {
 public:
  enum class Kind { Trace, StorageRequests, SlotTransferStarts, SlotTransferEnds };
  explicit PendingRecords(sg::StorageLinkWatch& watch) : watch_(watch) {}
  /// Records `kind` once the clock reaches `at_s`: a trace row (`row`, ending at `at_s`), storage requests
  /// (`gets` GET-class and `puts` PUT-class, of function slot `slot`'s client, or an instance's: -1), or a transfer
  /// of function slot `slot` to (`upload`) or from storage starting or ending.
  void add(double at_s, Kind kind, const PhaseRecord& row = {}) { push({at_s, next_order_++, kind, row, 0, false}); }
  void add_requests(double at_s, long long gets, long long puts, int slot) {
    push({at_s, next_order_++, Kind::StorageRequests, {}, slot, false, gets, puts});
  }
  void add_slot_transfer(double at_s, Kind kind, int slot, bool upload) {
    push({at_s, next_order_++, kind, {}, slot, upload});
  }

  /// While it lives, what is added is one sequence: one place in the queue for all its records, which are
  /// applied in the same order as if each had its own. For an activity that records thousands at once (an
  /// aggregator of 10,000 inputs: a row and a request per input), whose places in one queue made every other
  /// record's cost grow with them.
  class Sequence {
   public:
    explicit Sequence(PendingRecords& records) : records_(records) { records_.collecting_ = true; }
    ~Sequence() { records_.end_sequence(); }
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;

   private:
    PendingRecords& records_;
  };

  /// Applies to `out` and the watch, in time order (then in the order they were added), every record due by
  /// `now_s`. Returns false once the watched transfers could have exceeded the storage link: the run is void
  /// (a caller inside an actor ends the simulation, sg::abandon_simulation).
  [[nodiscard]] bool settle(double now_s, RunOutput& out) {
    for (;;) {
      const Key* next = queue_.empty() ? nullptr : &queue_.top();
      const bool single = next && (sequences_queue_.empty() || earlier(*next, sequences_queue_.top()));
      if (!single) next = sequences_queue_.empty() ? nullptr : &sequences_queue_.top();
      if (!next || next->at_s > now_s) break;
      bool within_link;
      if (single) {
        within_link = apply(singles_[next->index], out);
        free_singles_.push_back(next->index);
        queue_.pop();
      } else {
        const size_t index = next->index;
        sequences_queue_.pop();
        auto& sequence = sequences_[index];
        within_link = apply(sequence.entries[sequence.next++], out);
        if (sequence.next < sequence.entries.size()) {
          const Entry& e = sequence.entries[sequence.next];
          sequences_queue_.push({e.at_s, e.order, index});
        } else {
          sequence.entries = {};
          free_sequences_.push_back(index);
        }
      }
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
  // A place in a queue: an entry of singles_, or the next entry of sequence `index`.
  struct Key {
    double at_s = 0;
    std::uint64_t order = 0;
    size_t index = 0;
  };
  // Time order, then the order they were added: of entries and of their places alike.
  template <class Record>
  static bool earlier(const Record& a, const Record& b) {
    return std::tie(a.at_s, a.order) < std::tie(b.at_s, b.order);
  }
  struct Later {
    bool operator()(const Key& a, const Key& b) const { return earlier(b, a); }
  };
  struct SequenceOfEntries {
    std::vector<Entry> entries;  // in time order, then the order they were added
    size_t next = 0;
  };

  void push(const Entry& e) {
    if (collecting_) {
      collected_.push_back(e);
      return;
    }
    size_t index = singles_.size();
    if (free_singles_.empty()) {
      singles_.push_back(e);
    } else {
      index = free_singles_.back();
      free_singles_.pop_back();
      singles_[index] = e;
    }
    queue_.push({e.at_s, e.order, index});
  }
  void end_sequence() {
    collecting_ = false;
    if (collected_.empty()) return;
    std::sort(collected_.begin(), collected_.end(), earlier<Entry>);
    size_t index = sequences_.size();
    if (free_sequences_.empty()) {
      sequences_.emplace_back();
    } else {
      index = free_sequences_.back();
      free_sequences_.pop_back();
    }
    sequences_[index] = {std::move(collected_), 0};
    collected_ = {};
    const Entry& first = sequences_[index].entries.front();
    sequences_queue_.push({first.at_s, first.order, index});
  }
  bool apply(const Entry& e, RunOutput& out) {
    switch (e.kind) {
      case Kind::Trace: out.trace.push_back(e.row); break;
      case Kind::StorageRequests:
        out.ledger.storage_gets += e.gets;
        out.ledger.storage_puts += e.puts;
        if (e.slot >= 0) out.ledger.function_storage_requests += e.gets + e.puts;
        break;
      case Kind::SlotTransferStarts: return watch_.slot_transfer_begins(e.slot, e.upload);
      case Kind::SlotTransferEnds: watch_.slot_transfer_ends(e.slot, e.upload); break;
    }
    return true;
  }

  sg::StorageLinkWatch& watch_;
  std::uint64_t next_order_ = 0;
  std::vector<Entry> singles_;  // the entries of queue_'s keys; freed places reused
  std::vector<size_t> free_singles_;
  std::priority_queue<Key, std::vector<Key>, Later> queue_;
  std::vector<SequenceOfEntries> sequences_;
  std::vector<size_t> free_sequences_;
  std::priority_queue<Key, std::vector<Key>, Later> sequences_queue_;
  bool collecting_ = false;
  std::vector<Entry> collected_;
};

}  // namespace p2psim::simulation
