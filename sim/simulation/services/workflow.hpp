// A Step Functions-like workflow service: an execution starts (StartExecution, a ProcessInput task), fans out
// one parallel branch per function task (burst then ramp), ends one transition after its last branch, and is
// seen finished only at the caller's next DescribeExecution poll; or, where a design's state machine goes on
// (SPIRT's), enters its next Task state at that transition. Transitions are metered.
#pragma once
#include <functional>
#include <string>

#include "../../inputs/cloud_profile.hpp"
#include "../../records/ledger.hpp"
#include "../sg/adapter.hpp"

namespace p2psim::simulation {

struct Execution {
  int remaining = 0;    // branches still running
  double end_s = -1;    // when the Parallel state is left (success or failure); -1 while running
  std::string failure;  // why it failed; empty when it succeeded
  sg::Signal branches_done;  // the last branch ended
};

class WorkflowService {
 public:
  WorkflowService(const p2psim::WorkflowServiceParams& params, Ledger& ledger) : params_(params), ledger_(ledger) {}
  /// Starts an execution of `branches` function tasks and waits through the states before the Parallel state.
  Execution start(int branches);
  /// Starts the Parallel state's `branches`: `start(k, start_s)` (which must not block) is called for each
  /// branch k before its start date `start_s`. The first two bursts' worth of branches are handed out now, each
  /// next group when the one before it starts, by a task of the service's own on `host` (it goes on if the
  /// caller crashes, as the execution does): a long ramp keeps only its next branches waiting, not all of them
  /// (the paper grid's heaviest scenario created 948 function task actors, now 720; docs/architecture.md, "Scale").
  void fan_out(int branches, sg::Host* host, std::function<void(int k, double start_s)> start);
  void retry_branch() { ledger_.workflow_transitions += params_.transitions_per_branch; }
  /// A branch ended (its failure, if any, fails the execution); the last one ends the execution.
  void branch_done(Execution& e, const std::string& failure) { branch_done_at(e, failure, sg::now()); }
  /// The same at `now_s` (a computed invocation's clock).
  void branch_done_at(Execution& e, const std::string& failure, double now_s);
  /// When branch k of an execution whose Parallel state began at `fan_out_s` starts (the burst, then the ramp).
  double branch_start_s(double fan_out_s, int k) const { return fan_out_s + params_.branch_start_delay_s(k); }
  /// DescribeExecution every `poll_s` from `started_s` on, until the execution is seen ended.
  void poll_until_done(Execution& e, double started_s, double poll_s);
  int retry_attempts() const { return params_.task_retry_attempts; }
  /// The execution goes on from its Parallel state into a Task state of the design's own (SPIRT's averaging
  /// function) rather than ending: returns when that state is entered, one transition after the last branch, with
  /// no poll in between; the Task state is metered unless the execution failed.
  void enter_next_task_state(Execution& e);

 private:
  const p2psim::WorkflowServiceParams& params_;
  Ledger& ledger_;
};

}  // namespace p2psim::simulation
