// The peers' per-iteration workflows (paper-system.md §1.2 instance-based, §1.3 serverless) and the
// all-to-all gradient exchange they share.
#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "world.hpp"

namespace p2psim::simulation {
namespace {

double now() { return sg4::Engine::get_clock(); }


// Seconds of the kernels measured at one thread on the calibration CPU, on this peer's CPU.
double peer_kernel_seconds(const World& w, int peer, double calibration_seconds) {
  return calibration_seconds / w.s.peer_type.cpu_speed_factor * w.slowdown(peer);
}

// The peer's CPU busy for `full_speed_s`: longer once a burstable instance has run out of credits.
void peer_cpu(World& w, int peer, double full_speed_s) {
  sg4::this_actor::sleep_for(w.credits[peer].run(now(), full_speed_s));
}

/// Publishes the peer's gradient for `iteration`: inline through the broker, or as an S3 object whose key goes
/// through the broker.
void send_gradient(World& w, int peer, int iteration) {
  const double start = now();
  peer_cpu(w, peer, w.s.peer_encode_s * w.slowdown(peer));
  if (w.s.sends_inline(w.arch)) {
    wait_for_broker(w);
    sg4::Comm::sendto(w.hosts.peers[peer], w.hosts.broker, static_cast<uint64_t>(w.s.exchange_bytes));
  } else {
    storage_put(w, w.hosts.peers[peer], w.s.exchange_bytes);
    broker_request(w);
  }
  broker_process_message(w);
  {
    std::unique_lock<sg4::Mutex> lock(*w.board.mutex);
    w.board.progress[peer] = iteration + 1;  // published in order
    for (auto& row : w.presumed_dead) row[peer] = false;  // alive after all
  }
  w.board.changed->notify_all();
  w.trace(peer, iteration, Phase::Send, start);
}

/// Transfers producer's message for `iteration` to `peer` (the gradient itself, or the key then the object).
void fetch_gradient(World& w, int peer, int producer, int iteration) {
  if (w.s.sends_inline(w.arch)) {
    broker_process_message(w);
    sg4::Comm::sendto(w.hosts.broker, w.hosts.peers[peer], static_cast<uint64_t>(w.s.exchange_bytes));
  } else {
    storage_get(w, w.hosts.peers[peer], w.s.exchange_bytes);
  }
  peer_cpu(w, peer, w.s.peer_decode_s * w.slowdown(peer));
  w.out.deliveries.push_back({peer, producer, iteration});
}

/// Collects the other peers' gradients for `iteration`. Every gradient already published is fetched (in
/// order per producer); the peer goes on once it holds every gradient up to iteration - k, k being the
/// staleness bound: 0 when synchronous (all of this iteration's), so a peer is never more than k iterations
/// ahead of the slowest. Polling as the paper's code does (one basic_get per message and queue per round,
/// then a sleep), or pushed by the broker as soon as published.
void receive_gradients(World& w, int peer, int iteration) {
  const double start = now();
  const int n = w.peers();
  const int k = w.s.experiment.staleness_bound;
  auto& next = w.next_to_fetch[peer];  // per producer: the first iteration not fetched yet
  auto fetch_next = [&](int j) {
    w.out.staleness.push_back(std::max(0, iteration - next[j]));
    fetch_gradient(w, peer, j, next[j]++);
  };
  auto& dead = w.presumed_dead[peer];
  auto caught_up = [&] {
    for (int j = 0; j < n; ++j)
      if (j != peer && !dead[j] && next[j] < iteration + 1 - k) return false;
    return true;
  };
  // After waiting peer_timeout_s, whoever is still missing is presumed dead and left out (until it publishes).
  const double timeout_s = w.s.experiment.peer_timeout_s;
  const double timeout_at = timeout_s > 0 ? start + timeout_s : std::numeric_limits<double>::infinity();
  auto give_up = [&] {
    for (int j = 0; j < n; ++j)
      if (j != peer && !dead[j] && next[j] < iteration + 1 - k) dead[j] = true;
    w.out.failure_detection_wait_s += now() - start;
  };
  if (w.s.experiment.exchange.consume == Consume::Poll) {
    for (;;) {
      for (int j = 0; j < n; ++j) {
        if (j == peer) continue;
        broker_request(w);  // basic_get on j's queue
        while (next[j] < w.board.progress[j]) {
          fetch_next(j);
          broker_request(w);  // the next basic_get on the same queue
        }
      }
      if (caught_up()) break;
      if (now() >= timeout_at) {
        give_up();
        break;
      }
      sg4::this_actor::sleep_for(w.s.experiment.exchange.poll_interval_s);
    }
  } else {
    while (!caught_up()) {
      int ready = -1;
      {
        std::unique_lock<sg4::Mutex> lock(*w.board.mutex);
        for (;;) {
          for (int j = 0; j < n && ready < 0; ++j)
            if (j != peer && next[j] < w.board.progress[j]) ready = j;
          if (ready >= 0 || now() >= timeout_at) break;
          if (timeout_s > 0)
            w.board.changed->wait_until(lock, timeout_at);
          else
            w.board.changed->wait(lock);
        }
      }
      if (ready < 0) {
        give_up();
        break;
      }
      fetch_next(ready);
    }
  }
  w.trace(peer, iteration, Phase::Receive, start);
}

/// Equal-weight mean of the N gradients, then the SGD step (costed as one more two-gradient pass).
void aggregate_and_update(World& w, int peer, int iteration) {
  const double start = now();
  const double e = static_cast<double>(w.s.parameters);
  peer_cpu(w, peer,
           peer_kernel_seconds(w, peer, w.s.compute.average_seconds(e, w.peers()) + w.s.compute.average_seconds(e, 2)));
  w.trace(peer, iteration, Phase::AggregateUpdate, start);
}

/// The instance script's barrier: publish to a sync queue, wait, poll its count until it holds every peer,
/// settle, purge (paper-system.md §1.2 step 7).
void barrier(World& w, int peer, int iteration) {
  const auto& b = w.s.experiment.barrier;
  const double start = now();
  broker_request(w);
  ++w.barrier_arrivals[iteration];
  sg4::this_actor::sleep_for(b.initial_wait_s);
  for (;;) {
    broker_request(w);  // queue_declare(passive) -> message_count
    const int up = static_cast<int>(std::count(w.down.begin(), w.down.end(), false));
    if (w.barrier_arrivals[iteration] >= up) break;
    sg4::this_actor::sleep_for(b.poll_interval_s);
  }
  sg4::this_actor::sleep_for(b.settle_s);
  w.trace(peer, iteration, Phase::Barrier, start);
}

bool barrier_enabled(const World& w) {
  return w.arch == Architecture::Instance ? w.s.experiment.barrier.instance : w.s.experiment.barrier.serverless;
}

void finish_iteration(World& w, int peer, int iteration) {
  receive_gradients(w, peer, iteration);
  aggregate_and_update(w, peer, iteration);
  if (barrier_enabled(w)) barrier(w, peer, iteration);
}

// ---- serverless: one workflow execution per peer and iteration -------------------------------------------

struct Execution {
  int remaining = 0;
  double end_s = -1;    // when the workflow reports success or failure; -1 while running
  std::string failure;  // why the execution failed; empty when it succeeded
};

std::string gb(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

/// A step that cannot fit runs until its memory crosses the limit, then dies. Memory above the runtime's own
/// footprint is taken to grow evenly over the step, so it dies after that share of the step's time.
double seconds_until_out_of_memory(const World& w, double step_s, double need_bytes, double limit_bytes) {
  const double runtime = w.s.profile.runtime_baseline_mb * 1024 * 1024;
  return step_s * std::clamp((limit_bytes - runtime) / (need_bytes - runtime), 0.0, 1.0);
}

void function_invocation(World& w, int peer, int iteration, int k, double start_delay_s, Execution* exec) {
  sg4::this_actor::sleep_for(start_delay_s);
  const auto& fs = w.s.profile.functions;
  const auto& batches = w.s.invocations[k];
  const bool fits = w.s.invocation_fits(k);
  const double failure_probability = w.s.experiment.function_failure_probability;
  const int attempts = 1 + w.s.profile.workflow.task_retry_attempts;
  std::string error;  // the last attempt's, when none succeeded
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) w.out.ledger.workflow_transitions += w.s.profile.workflow.transitions_per_branch;  // retry
    const FunctionPool::Lease lease = w.pool.acquire();
    sg4::Host* host = w.hosts.function_slots[lease.slot];
    FunctionRun run;
    if (lease.cold) {
      const double start = now();
      const double image_s = fs.cold_start_image_median_s * std::exp(fs.cold_start_image_sigma * w.standard_normal());
      run.init_s = image_s + fs.runtime_import_s_at_1_vcpu / std::min(1.0, w.s.function_vcpus);
      sg4::this_actor::sleep_for(run.init_s);
      w.trace(peer, iteration, Phase::ColdStart, start, k);
      ++w.out.cold_starts;
    } else {
      ++w.out.warm_starts;
    }
    const double run_start = now();
    long long samples = 0;
    for (long long b : batches) samples += b;
    storage_get(w, host, static_cast<double>(samples * w.s.sample_bytes));
    w.trace(peer, iteration, Phase::DataFetch, run_start, k);

    const double compute_start = now();
    double compute_s = 0;
    for (long long b : batches)
      compute_s += w.s.step_seconds(b, w.s.function_vcpus, w.s.function_speed_factor) * w.step_noise();
    // How the attempt ends: out of memory part-way, a crash at a uniform point, the timeout, or success.
    double run_for = compute_s;
    Phase ending = Phase::Compute;
    if (!fits) {
      run_for = seconds_until_out_of_memory(w, compute_s, w.s.invocation_need_bytes[k], w.s.function_memory_bytes);
      ending = Phase::OutOfMemory;
      error = fmt::format(
          "serverless: out of memory: a function invocation of peer {} needs {} for its {}-sample {} step but has "
          "{} ({} MB); {} attempt(s); the smallest function that fits has {} MB",
          peer, gb(w.s.invocation_need_bytes[k]), *std::max_element(batches.begin(), batches.end()),
          w.s.experiment.workload.model, gb(w.s.function_memory_bytes), w.s.experiment.functions.memory_mb, attempts,
          w.s.smallest_function_memory_mb() > 0 ? std::to_string(w.s.smallest_function_memory_mb()) : "no size");
    } else if (failure_probability > 0 && w.uniform() < failure_probability) {
      run_for = w.uniform() * compute_s;
      ending = Phase::FunctionFailure;
      error = fmt::format("serverless: a function invocation of peer {} failed {} time(s) (failure probability {})",
                          peer, attempts, failure_probability);
    }
    const double timeout_left = fs.max_timeout_s - (now() - run_start);
    if (run_for > timeout_left) {
      run_for = std::max(0.0, timeout_left);
      ending = Phase::FunctionFailure;
      error = fmt::format("serverless: a function invocation of peer {} ran past the {} s timeout, {} time(s)", peer,
                          fs.max_timeout_s, attempts);
    }
    sg4::this_actor::sleep_for(run_for);
    w.trace(peer, iteration, ending, compute_start, k);
    if (ending != Phase::Compute) {  // the container is gone; the attempt is billed
      run.run_s = now() - run_start;
      w.out.ledger.function_runs.push_back(run);
      w.pool.discard(lease.slot);
      continue;
    }

    const double upload_start = now();
    sg4::this_actor::sleep_for(w.s.function_encode_s);
    storage_put(w, host, w.s.function_gradient_bytes);
    broker_request(w);  // publish the key to the peer's lambda queue
    broker_process_message(w);
    w.trace(peer, iteration, Phase::FunctionUpload, upload_start, k);

    run.run_s = now() - run_start;
    w.out.ledger.function_runs.push_back(run);
    w.pool.release(lease.slot);
    error.clear();
    break;
  }
  if (!error.empty() && exec->failure.empty()) exec->failure = error;
  if (--exec->remaining == 0) exec->end_s = now() + w.s.profile.workflow.transition_latency_s;
}

/// The declared crash: at the peer's first step boundary at or after crash_at_s it goes down. Returns -1 when
/// it stays down (the peer ends), otherwise the iteration it rejoins at: the others' furthest, after reloading
/// its shard from storage. The others presume it dead after their timeout and leave it out until it publishes.
int crash_if_due(World& w, int peer, int iteration, bool& crashed) {
  const auto& e = w.s.experiment;
  if (crashed || peer != e.crash_peer || now() < e.crash_at_s) return iteration;
  crashed = true;
  w.down[peer] = true;
  const double start = now();
  if (e.rejoin_after_s <= 0) {
    w.trace(peer, iteration, Phase::Down, start);
    return -1;
  }
  sg4::this_actor::sleep_until(e.crash_at_s + e.rejoin_after_s);
  w.trace(peer, iteration, Phase::Down, start);
  w.down[peer] = false;
  if (w.arch == Architecture::Instance) {
    const double fetch_start = now();
    storage_get(w, w.hosts.peers[peer], static_cast<double>(w.s.shard_samples * w.s.sample_bytes));
    w.trace(peer, iteration, Phase::DataFetch, fetch_start);
  }
  int rejoin = iteration;
  for (int j = 0; j < w.peers(); ++j) rejoin = std::max(rejoin, w.board.progress[j]);
  rejoin = std::min(rejoin, static_cast<int>(e.workload.iterations) - 1);
  w.board.progress[peer] = rejoin;  // it skipped the iterations it missed: nobody waits for those
  for (auto& row : w.next_to_fetch) row[peer] = std::max(row[peer], rejoin);
  return rejoin;
}

}  // namespace

void instance_peer(World& w, int peer) {
  const double fetch_start = now();
  storage_get(w, w.hosts.peers[peer], static_cast<double>(w.s.shard_samples * w.s.sample_bytes));
  w.trace(peer, 0, Phase::DataFetch, fetch_start);
  if (!w.s.peer_fits()) {  // its first minibatch dies: the instance-based run cannot train
    const double start = now();
    const long long b = *std::max_element(w.s.minibatches.begin(), w.s.minibatches.end());
    const double step_s = w.s.step_seconds(b, w.s.peer_type.vcpus, w.s.peer_type.cpu_speed_factor);
    sg4::this_actor::sleep_for(
        seconds_until_out_of_memory(w, step_s, w.s.peer_need_bytes, w.s.peer_memory_bytes));
    w.trace(peer, 0, Phase::OutOfMemory, start);
    if (w.out.failure.empty())
      w.out.failure = fmt::format("instance: out of memory: a {}-sample {} step needs {} but a {} peer has {}", b,
                                  w.s.experiment.workload.model, gb(w.s.peer_need_bytes), w.s.peer_type.name,
                                  gb(w.s.peer_memory_bytes));
    w.out.peer_end_s[peer] = now();
    return;
  }
  bool crashed = false;
  for (int it = 0; it < w.s.experiment.workload.iterations; ++it) {
    if ((it = crash_if_due(w, peer, it, crashed)) < 0) break;
    const double start = now();
    double compute_s = 0;  // every minibatch one after another on the peer's own CPU
    for (long long b : w.s.minibatches)
      compute_s += w.s.step_seconds(b, w.s.peer_type.vcpus, w.s.peer_type.cpu_speed_factor) * w.step_noise() *
                   w.slowdown(peer);
    compute_s += peer_kernel_seconds(w, peer, w.s.compute.average_seconds(static_cast<double>(w.s.parameters), 2)) *
                 static_cast<double>(w.s.minibatches.size() - 1);  // the running sum of minibatch gradients
    peer_cpu(w, peer, compute_s);
    w.trace(peer, it, Phase::Compute, start);
    send_gradient(w, peer, it);
    finish_iteration(w, peer, it);
  }
  w.out.peer_end_s[peer] = now();
}

void serverless_peer(World& w, int peer) {
  const auto& wf = w.s.profile.workflow;
  const int invocations = static_cast<int>(w.s.invocations.size());
  bool crashed = false;
  for (int it = 0; it < w.s.experiment.workload.iterations; ++it) {
    if ((it = crash_if_due(w, peer, it, crashed)) < 0) break;
    const double start = now();
    w.out.ledger.workflow_transitions += wf.transitions_per_execution + wf.transitions_per_branch * invocations;
    // StartExecution -> ProcessInput task -> Parallel state.
    sg4::this_actor::sleep_for(2 * wf.transition_latency_s);
    w.trace(peer, it, Phase::Orchestration, start);

    Execution exec{invocations, -1};
    for (int k = 0; k < invocations; ++k)
      sg4::Actor::create("fn-" + std::to_string(peer) + "-" + std::to_string(it) + "-" + std::to_string(k),
                         w.hosts.peers[peer], function_invocation, std::ref(w), peer, it, k,
                         wf.branch_start_delay_s(k), &exec);
    // DescribeExecution every poll interval from StartExecution on: completion is seen at the next poll.
    const double poll_s = w.s.experiment.workflow_status_poll_interval_s;
    double next_poll = start;
    while (exec.end_s < 0 || exec.end_s > now()) {
      next_poll += poll_s;
      sg4::this_actor::sleep_until(next_poll);
    }
    w.trace(peer, it, Phase::PollingWait, exec.end_s);
    if (!exec.failure.empty()) {  // the peer exits on any status other than SUCCEEDED (paper-system.md §1.3)
      if (w.out.failure.empty()) w.out.failure = exec.failure;
      w.out.peer_end_s[peer] = now();
      return;
    }

    const double collect_start = now();
    for (int k = 0; k < invocations; ++k) {
      broker_request(w);  // basic_get on the lambda queue: an S3 key
      storage_get(w, w.hosts.peers[peer], w.s.function_gradient_bytes);
      if (w.s.experiment.exchange.compress_functions) peer_cpu(w, peer, w.s.peer_decode_s * w.slowdown(peer));
    }
    w.trace(peer, it, Phase::Collect, collect_start);
    const double average_start = now();
    peer_cpu(w, peer,
             peer_kernel_seconds(w, peer, w.s.compute.average_seconds(static_cast<double>(w.s.parameters), invocations)));
    w.trace(peer, it, Phase::LocalAverage, average_start);

    send_gradient(w, peer, it);
    finish_iteration(w, peer, it);
  }
  w.out.peer_end_s[peer] = now();
}

}  // namespace p2psim::simulation
