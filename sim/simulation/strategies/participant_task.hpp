// The one task that drives a design's computed participants (computed_participants.hpp for the designs that
// exchange through object storage, computed_server_peers.hpp for a parameter server): their next steps in a queue
// ordered by time, then by the order they were made; the flows whose ends it waits for; and the rounds whose
// result the design has published, with the participants waiting for each. It sleeps until the earliest of
// them, unless a step is scheduled earlier from another actor (the design's), which wakes it.
#pragma once
#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "../context.hpp"
#include "../peer_storage_flows.hpp"

namespace p2psim::simulation {

class ParticipantTask {
 public:
  /// Flows the task waits for: when the next of them ends, and ending those due at an instant.
  struct Flows {
    std::function<double()> next_s;
    std::function<void(double now_s)> advance;
    /// Participants' storage flows: each that ends is handed to `ended` with its participant, found (and then
    /// forgotten) in `owners`.
    static Flows of_storage(PeerStorageFlows& flows, std::unordered_map<std::int64_t, int>& owners,
                            std::function<void(int peer, double now_s)> ended);
  };
  /// Takes step `kind` of `peer`, due at `at_s` (the clock may stand an ulp off it).
  using Step = std::function<void(int kind, int peer, double at_s)>;

  ParticipantTask(Context& c, int peers, int rounds);
  /// Starts the task on the storage host; it ends once every participant has finished().
  void start(std::vector<Flows> flows, Step step);
  void schedule(double at_s, int kind, int peer);
  void finished() { --running_; }

  /// Whether round `iteration`'s result is published.
  bool ready(int iteration) const { return ready_[static_cast<size_t>(iteration)] != 0; }
  /// `peer` waits for round `iteration`'s result, published later.
  void wait(int iteration, int peer) { waiting_[static_cast<size_t>(iteration)].push_back(peer); }
  /// The round's result is published (called by the design, from its actor, at that instant): every peer waiting
  /// for it takes step `kind` now, in the order they came.
  void round_ready(int iteration, int kind);

 private:
  struct Event {
    double at_s;
    std::uint64_t order;
    int kind;
    int peer;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.at_s != b.at_s ? a.at_s > b.at_s : a.order > b.order; }
  };
  void drive();

  Context& c_;
  std::vector<Flows> flows_;
  Step step_;
  std::vector<char> ready_;                // per round: its result is published
  std::vector<std::vector<int>> waiting_;  // per round: peers waiting for it
  int running_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::uint64_t next_order_ = 0;
  double sleeping_until_s_ = -1;  // the task waits for this instant (infinity: for a round); an earlier step wakes it
  sg::Semaphore wake_{0};
};

}  // namespace p2psim::simulation
