#include "workflow.hpp"

#include <algorithm>

#include "../../inputs/limits.hpp"

namespace p2psim::simulation {

Execution WorkflowService::start(int branches) {
  ledger_.workflow_transitions += params_.transitions_per_execution + params_.transitions_per_branch * branches;
  sg::sleep_for(2 * params_.transition_latency_s);  // StartExecution -> ProcessInput task -> Parallel state
  Execution e;
  e.remaining = branches;
  return e;
}

void WorkflowService::fan_out(int branches, sg::Host* host, std::function<void(int k, double start_s)> start) {
  const double fan_out_s = sg::now();
  const int group = std::max(1, params_.parallel_burst_branches);
  // Group g is handed out when group g - 1 starts, so that each branch's task waits for its own start date as
  // it would if all were handed out now.
  auto hand_out = [this, branches, group, fan_out_s](int g, const std::function<void(int, double)>& start) {
    for (int k = g * group; k < std::min(branches, (g + 1) * group); ++k) start(k, branch_start_s(fan_out_s, k));
  };
  hand_out(0, start);
  if (branches <= group) return;
  hand_out(1, start);
  if (branches <= 2 * group) return;
  sg::run_task("workflow", host, [this, branches, group, fan_out_s, hand_out, start = std::move(start)] {
    for (int g = 2; g * group < branches; ++g) {
      sg::sleep_until(fan_out_s + params_.branch_start_delay_s((g - 1) * group));
      hand_out(g, start);
    }
  });
}

void WorkflowService::branch_done_at(Execution& e, const std::string& failure, double now_s) {
  if (!failure.empty() && e.failure.empty()) e.failure = failure;
  if (--e.remaining == 0) {
    e.end_s = now_s + params_.transition_latency_s;
    e.branches_done.notify_all();
  }
}

void WorkflowService::poll_until_done(Execution& e, double started_s, double poll_s) {
  // A poll sees the execution ended at the first poll date on or after its end (the same dates, summed poll by
  // poll, a loop of polls visits), so wait for the end to be known and wake once there, rather than once a poll: a
  // stalled execution (its functions waiting out a broker outage) cost a wake-up every 2 simulated seconds, two
  // minutes of wall time for a year. The deadline past p2psim's horizon keeps an execution that never ends
  // reported as still running after a year, as the polls left it, not as a deadlock.
  if (e.end_s >= 0 && e.end_s <= sg::now()) return;  // seen ended at the first look
  e.branches_done.wait_for([&e] { return e.end_s >= 0; }, limits::kMaxSimulatedSeconds + poll_s);
  if (e.end_s < 0) return;
  double next_poll = started_s;
  while (next_poll < e.end_s) next_poll += poll_s;
  sg::sleep_until(next_poll);
}

void WorkflowService::enter_next_task_state(Execution& e) {
  e.branches_done.wait_for([&e] { return e.end_s >= 0; });
  sg::sleep_until(e.end_s);
  if (e.failure.empty()) ledger_.workflow_transitions += 1;  // a failed execution never enters it
}

}  // namespace p2psim::simulation
