#include "workflow.hpp"

namespace p2psim::simulation {

Execution WorkflowService::start(int branches) {
  ledger_.workflow_transitions += params_.transitions_per_execution + params_.transitions_per_branch * branches;
  sg::sleep_for(2 * params_.transition_latency_s);  // StartExecution -> ProcessInput task -> Parallel state
  Execution e;
  e.remaining = branches;
  return e;
}

void WorkflowService::branch_done(Execution& e, const std::string& failure) {
  if (!failure.empty() && e.failure.empty()) e.failure = failure;
  if (--e.remaining == 0) e.end_s = sg::now() + params_.transition_latency_s;
}

void WorkflowService::poll_until_done(const Execution& e, double started_s, double poll_s) {
  double next_poll = started_s;
  while (e.end_s < 0 || e.end_s > sg::now()) {
    next_poll += poll_s;
    sg::sleep_until(next_poll);
  }
}

}  // namespace p2psim::simulation
