#include "participant_task.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace p2psim::simulation {

ParticipantTask::ParticipantTask(Context& c, int peers, int rounds)
    : c_(c), ready_(static_cast<size_t>(rounds), 0), waiting_(static_cast<size_t>(rounds)), running_(peers) {}

void ParticipantTask::start(std::vector<Flows> flows, Step step) {
  flows_ = std::move(flows);
  step_ = std::move(step);
  sg::run_task("participants", c_.hosts.storage, [this] { drive(); });
}

void ParticipantTask::schedule(double at_s, int kind, int peer) {
  events_.push({at_s, next_order_++, kind, peer});
  if (sleeping_until_s_ >= 0 && at_s < sleeping_until_s_) {  // the task sleeps past it: wake it once
    sleeping_until_s_ = -1;
    wake_.release();
  }
}

void ParticipantTask::round_ready(int iteration, int kind) {
  ready_[static_cast<size_t>(iteration)] = 1;
  auto& waiting = waiting_[static_cast<size_t>(iteration)];
  const double now_s = sg::now();
  for (int peer : waiting) schedule(now_s, kind, peer);
  waiting.clear();
  waiting.shrink_to_fit();
}

void ParticipantTask::drive() {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (running_ > 0) {
    double next_s = events_.empty() ? kNever : events_.top().at_s;
    for (const auto& f : flows_) next_s = std::min(next_s, f.next_s());
    if (next_s > sg::now()) {
      sleeping_until_s_ = next_s;
      const bool woken = std::isinf(next_s) ? (wake_.acquire(), true) : wake_.acquire_until(next_s);
      sleeping_until_s_ = -1;
      if (woken) continue;  // an earlier step came: look again
    }
    // What is due at next_s, and what that makes due at next_s, in order: the flows that end (in the order the
    // flows were given), then the steps in the order they were made. Their own times, not the clock, time them.
    if (!c_.pending.settle(next_s, c_.out)) sg::abandon_simulation();  // the storage link could have bound
    for (;;) {
      const auto due = std::find_if(flows_.begin(), flows_.end(), [&](const Flows& f) { return f.next_s() <= next_s; });
      if (due != flows_.end()) {
        due->advance(next_s);
        continue;
      }
      if (events_.empty() || events_.top().at_s > next_s) break;
      const Event e = events_.top();
      events_.pop();
      step_(e.kind, e.peer, e.at_s);
    }
  }
}

ParticipantTask::Flows ParticipantTask::Flows::of_storage(PeerStorageFlows& flows,
                                                         std::unordered_map<std::int64_t, int>& owners,
                                                         std::function<void(int peer, double now_s)> ended) {
  return {[&flows] { return flows.next_s(); },
          [&flows, &owners, ended = std::move(ended)](double now_s) {
            for (std::int64_t id : flows.advance(now_s)) {
              const auto it = owners.find(id);
              const int peer = it->second;
              owners.erase(it);
              ended(peer, now_s);
            }
          }};
}

}  // namespace p2psim::simulation
