#include "gradient.hpp"

#include "computed_invocations.hpp"
#include "json_gradient.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace p2psim::simulation {
namespace {

std::string gb(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

/// A step that cannot fit runs until its memory crosses the limit, then dies. Memory above the runtime's own
/// footprint is taken to grow evenly over the step, so it dies after that share of the step's time.
double seconds_until_out_of_memory(const Context& c, double step_s, double need_bytes, double limit_bytes) {
  const double runtime = c.s.profile.runtime_baseline_mb * 1024 * 1024;
  return step_s * std::clamp((limit_bytes - runtime) / (need_bytes - runtime), 0.0, 1.0);
}

/// One function task of a peer's workflow execution, from its branch's start at `start_s`: invocation k handles
/// its minibatches; failed attempts (out of memory, a crash, the timeout) are billed and retried as the
/// workflow's retry policy says. computed_invocations.cpp computes the same steps without an actor, when it can.
void function_invocation(Context& c, int peer, std::int64_t instance, int iteration, int k, double start_s,
                         const std::shared_ptr<Execution>& exec, KvStore* database) {
  sg::sleep_until(start_s);
  const auto& s = c.s;
  const auto& batches = s.group_of_peer_data(peer).invocations[k];
  const int attempts = 1 + c.workflow.retry_attempts();
  std::string error;  // the last attempt's, when none succeeded
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) c.workflow.retry_branch();
    // A first attempt's cold start is drawn once a fan-out (no k): in WF-M3's fan-outs of 50 branches, 28 of them
    // cold, the branches started at the all-warm runs' offsets (platforms/aws_us_east_1.xml, cold_start). A retry
    // starts on its own, at its own time: its own draw.
    const int memory_mb = s.experiment.functions.memory_mb;
    const auto container = attempt == 0 ? c.functions.start("gradient", memory_mb, {peer, iteration, 0}, instance)
                                        : c.functions.start("gradient", memory_mb, {peer, iteration, attempt, k}, instance);
    if (container.cold) c.trace(peer, iteration, Phase::ColdStart, container.init_started_s, k);
    auto client = c.function_client(container, gradient_request_draws(c, peer, instance, iteration, k, attempt));
    const double run_start = sg::now();
    long long samples = 0;
    for (long long b : batches) samples += b;
    c.storage.get(client, static_cast<double>(samples * s.sample_bytes));
    if (database) database->read(container.host, static_cast<double>(s.gradient_bytes));  // the parameters
    c.trace(peer, iteration, Phase::DataFetch, run_start, k);
    if (!database && must_fetch_model(c, container, peer, instance, iteration)) {
      const double model_start = sg::now();
      c.storage.get(client, static_cast<double>(s.gradient_bytes));
      const double deserialize_start = sg::now();
      c.functions.compute(container, function_deserialize_model_s(s));
      c.trace(peer, iteration, Phase::Deserialize, deserialize_start, k);
      c.trace(peer, iteration, Phase::ModelFetch, model_start, k);
    }

    const double compute_start = sg::now();
    const auto plan = plan_attempt(c, peer, instance, iteration, k, attempt, compute_start - run_start);
    c.functions.compute(container, plan.run_for_s * s.function_speed_factor);
    c.trace(peer, iteration, plan.ending, compute_start, k);
    if (plan.ending != Phase::Compute) {  // the container is gone; the attempt is billed
      error = plan.error;
      c.functions.finish(container, sg::now() - run_start, s.experiment.functions.arch, true);
      continue;
    }

    const double upload_start = sg::now();
    if (s.function_encode_s > 0) c.functions.compute(container, s.function_encode_s);
    const double serialize_start = sg::now();
    const JsonCodecParams* json = database ? database->json() : nullptr;
    // dill.dumps of the gradient; SPIRT's json.dumps(gradient.tolist())
    c.functions.compute(container, json ? function_json_encode_s(s, *json) : function_serialize_s(s));
    c.trace(peer, iteration, Phase::Serialize, serialize_start, k);
    if (database) {
      database->write(container.host, function_gradient_value_bytes(s, *database));  // RPUSH onto the iteration's list
    } else {
      c.storage.put(client, s.function_gradient_bytes);
      c.broker.request();  // publish the key to the peer's lambda queue
      c.broker.process_message();
    }
    c.trace(peer, iteration, Phase::FunctionUpload, upload_start, k);
    c.functions.finish(container, sg::now() - run_start, s.experiment.functions.arch, false);
    error.clear();
    break;
  }
  c.workflow.branch_done(*exec, error);
}

void compute_on_peer(Context& c, int peer, int iteration) {
  const double start = sg::now();
  const PeerWork work = peer_gradient_work(c, peer, iteration);
  peer_cpu(c, peer, work.reference_s, work.busy_vcpus);
  c.trace(peer, iteration, Phase::Compute, start);
}

bool compute_on_functions(Context& c, int peer, int iteration, KvStore* database, bool average_in_database) {
  const auto& s = c.s;
  const int invocations = static_cast<int>(s.group_of_peer_data(peer).invocations.size());
  if (c.functions_fetch_model && !database) {  // the current model, where the functions fetch it
    const double upload_start = sg::now();
    serialize(c, peer, iteration, static_cast<double>(s.gradient_bytes));
    c.storage.put(c.storage_client(peer), static_cast<double>(s.gradient_bytes));
    c.trace(peer, iteration, Phase::ModelUpload, upload_start);
  }
  const double start = sg::now();
  // Shared with the function tasks: they run on even if the peer crashes meanwhile.
  auto exec = std::make_shared<Execution>(c.workflow.start(invocations));
  c.trace(peer, iteration, Phase::Orchestration, start);
  const std::int64_t instance = c.instance_of(peer);  // the functions' draws stay this instance's if it crashes
  if (c.hosts.function_slots_virtual) {  // computed rather than simulated (computed_invocations.hpp)
    if (database) throw std::logic_error("computed function invocations cannot use a database");
    if (!c.computed_invocations) c.computed_invocations = std::make_shared<ComputedInvocations>(c);
    c.computed_invocations->submit(peer, instance, iteration, invocations, sg::now(), exec);
  } else {
    c.workflow.fan_out(invocations, c.hosts.peers[peer], [&c, peer, instance, iteration, exec, database](int k, double start_s) {
      sg::run_task("fn", c.hosts.peers[peer], [&c, peer, instance, iteration, k, start_s, exec, database] {
        function_invocation(c, peer, instance, iteration, k, start_s, exec, database);
      });
    });
  }
  const bool averaging_task_next = database && average_in_database;
  if (averaging_task_next) {  // SPIRT's state machine goes on into its averaging Task, which the strategy runs
    c.workflow.enter_next_task_state(*exec);
  } else {
    c.workflow.poll_until_done(*exec, start, s.experiment.workflow_status_poll_interval_s);
    c.trace(peer, iteration, Phase::PollingWait, exec->end_s);
  }
  if (!exec->failure.empty()) {  // the peer exits on any status other than SUCCEEDED (the paper's peer script)
    if (c.out.failure.empty()) c.out.failure = exec->failure;
    return false;
  }
  if (averaging_task_next) return true;
  const double average_elements = static_cast<double>(s.parameters);
  const JsonCodecParams* json = database ? database->json() : nullptr;
  if (database) {  // the peer reads every gradient out, averages them, and writes the average back
    const double collect_start = sg::now();
    for (int k = 0; k < invocations; ++k) {
      database->read(c.hosts.peers[peer], function_gradient_value_bytes(s, *database));
      if (json) {
        const double start_decode = sg::now();
        peer_cpu(c, peer, instance_json_decode_gradient_s(s, *json, s.peer_type(peer)));
        c.trace(peer, iteration, Phase::Deserialize, start_decode);
      } else {
        deserialize(c, peer, iteration, s.function_gradient_bytes);
      }
    }
    c.trace(peer, iteration, Phase::Collect, collect_start);
    const double average_start = sg::now();
    peer_cpu(c, peer, s.average_seconds(average_elements, invocations));
    serialize(c, peer, iteration, static_cast<double>(s.gradient_bytes));
    database->write(c.hosts.peers[peer], static_cast<double>(s.gradient_bytes));
    c.trace(peer, iteration, Phase::LocalAverage, average_start);
    return true;
  }
  const double collect_start = sg::now();
  for (int k = 0; k < invocations; ++k) {
    c.broker.request();  // basic_get on the lambda queue: an S3 key
    c.storage.get(c.storage_client(peer), s.function_gradient_bytes);
    deserialize(c, peer, iteration, s.function_gradient_bytes);  // dill.loads, as the paper's peer does
    if (s.experiment.exchange.compress_functions) peer_cpu(c, peer, s.decode_s);
  }
  c.trace(peer, iteration, Phase::Collect, collect_start);
  const double average_start = sg::now();
  peer_cpu(c, peer, s.average_seconds(average_elements, invocations));
  c.trace(peer, iteration, Phase::LocalAverage, average_start);
  return true;
}

}  // namespace

bool must_fetch_model(Context& c, const FunctionService::Container& container, int peer, std::int64_t instance,
                      int iteration) {
  if (!c.functions_fetch_model) return false;
  auto& held = c.slot_model.at(static_cast<size_t>(container.slot));
  const std::array<std::int64_t, 3> current{peer, instance, iteration};
  if (!container.cold && held == current) return false;  // a warm container of this very execution has it
  held = current;
  return true;
}

double function_one_thread_s(const Scenario& s, double reference_s) {
  return reference_s / std::min(1.0, s.function_vcpus);
}

double function_deserialize_model_s(const Scenario& s) {
  return function_one_thread_s(s, s.deserialize_s(static_cast<double>(s.gradient_bytes)));
}

double function_serialize_s(const Scenario& s) {
  return function_one_thread_s(s, s.serialize_s(s.function_gradient_bytes));
}

Random::Stream gradient_request_draws(const Context& c, int peer, std::int64_t instance, int iteration, int k,
                                      int attempt) {
  return c.random.stream(Draw::StorageRequest, {peer, iteration, k, attempt}, Random::id_of("gradient") ^ instance);
}

AttemptPlan plan_attempt(Context& c, int peer, std::int64_t instance, int iteration, int k, int attempt,
                         double fetched_after_s) {
  const auto& s = c.s;
  const int group = s.group_of(peer);
  const auto& batches = s.peer_groups[static_cast<size_t>(group)].invocations[k];
  const double failure_probability = s.experiment.function_failure_probability;
  const int attempts = 1 + c.workflow.retry_attempts();
  double compute_s = 0;  // wall seconds on the function's CPU share
  auto step_draws = c.random.stream(Draw::FunctionStep, {peer, iteration, k, attempt}, instance);
  for (long long b : batches) compute_s += s.wall_step_s(StepTarget::Function, b) * c.step_noise(StepTarget::Function, step_draws);
  // How the attempt ends: out of memory part-way, a crash at a uniform point, the timeout, or success.
  AttemptPlan plan{compute_s, Phase::Compute, {}};
  if (!s.invocation_fits(group, k)) {
    const double need_bytes = s.peer_groups[static_cast<size_t>(group)].invocation_need_bytes[k];
    plan.run_for_s = seconds_until_out_of_memory(c, compute_s, need_bytes, s.function_memory_bytes);
    plan.ending = Phase::OutOfMemory;
    plan.error = fmt::format(
        "{}: out of memory: a function invocation of peer {} needs {} for its {}-sample {} step but has "
        "{} ({} MB); {} attempt(s); the smallest function that fits has {} MB",
        c.system.name, peer, gb(need_bytes), *std::max_element(batches.begin(), batches.end()),
        s.experiment.workload.model, gb(s.function_memory_bytes), s.experiment.functions.memory_mb, attempts,
        s.smallest_function_memory_mb() > 0 ? std::to_string(s.smallest_function_memory_mb()) : "no size");
  } else if (auto failure_draws = c.random.stream(Draw::FunctionFailure, {peer, iteration, k, attempt}, instance);
             failure_probability > 0 && failure_draws.uniform() < failure_probability) {
    plan.run_for_s = failure_draws.uniform() * compute_s;
    plan.ending = Phase::FunctionFailure;
    plan.error = fmt::format("{}: a function invocation of peer {} failed {} time(s) (failure probability {})",
                             c.system.name, peer, attempts, failure_probability);
  }
  const double max_timeout_s = s.profile.functions.max_timeout_s;
  const double timeout_left = max_timeout_s - fetched_after_s;
  if (plan.run_for_s > timeout_left) {
    plan.run_for_s = std::max(0.0, timeout_left);
    plan.ending = Phase::FunctionFailure;
    plan.error = fmt::format("{}: a function invocation of peer {} ran past the {} s timeout, {} time(s)",
                             c.system.name, peer, max_timeout_s, attempts);
  }
  return plan;
}

GradientCompute read_gradient_compute(StrategyParams& params, const Scenario& s, const std::string& fallback) {
  if (params.choice("compute", {"peer", "functions"}, fallback) == "peer") return GradientCompute::Peer;
  for (const auto& group : s.peer_groups)
    for (const auto& inv : group.invocations) {
      double seconds = 0;
      for (long long b : inv) seconds += s.wall_step_s(StepTarget::Function, b);
      if (seconds > s.profile.functions.max_timeout_s)
        throw params.error("compute", fmt::format("an invocation would compute for {} s, over the function timeout of "
                                                  "{} s (functions/@memory_mb {} is too small)",
                                                  seconds, s.profile.functions.max_timeout_s,
                                                  s.experiment.functions.memory_mb));
    }
  return GradientCompute::Functions;
}

PlatformNeeds gradient_needs(const Scenario& s, GradientCompute how, int other_functions) {
  PlatformNeeds n;
  n.broker = how == GradientCompute::Functions;
  const int gradient_containers =
      how == GradientCompute::Functions ? static_cast<int>(s.invocations_per_iteration()) : 0;
  n.function_slots = std::min(s.profile.functions.concurrency_limit, gradient_containers + other_functions);
  n.functions_only_gradient_tasks = how == GradientCompute::Functions && other_functions == 0;
  n.functions_only_aggregators = how != GradientCompute::Functions && other_functions > 0;
  n.steps_on_peers = how == GradientCompute::Peer;
  n.steps_on_gradient_functions = how == GradientCompute::Functions;
  return n;
}

Footprint gradient_functions_footprint(const Scenario& s, GradientCompute how) {
  Footprint f;
  if (how != GradientCompute::Functions) return f;
  const double peers = s.experiment.peers, invocations = static_cast<double>(s.invocations_per_iteration());
  f.actors = invocations;
  f.trace_rows = s.experiment.workload.iterations * (7 * invocations + 6 * peers) + invocations;
  return f;
}

PeerWork peer_gradient_work(Context& c, int peer, int iteration) {
  const auto& s = c.s;
  double reference_s = 0;   // every minibatch one after another on the peer's own CPU
  double busy_vcpu_s = 0;   // reference seconds x the vCPUs they keep busy, for the credits
  auto draws = c.random.stream(Draw::PeerStep, {peer, iteration}, c.instance_of(peer));
  const int group = s.group_of(peer);
  const auto& minibatches = s.group_of_peer_data(peer).minibatches;
  for (long long b : minibatches) {
    const double step_s = s.reference_step_s(StepTarget::Peer, b, group) * c.step_noise(StepTarget::Peer, draws, group);
    reference_s += step_s;
    busy_vcpu_s += step_s * s.step_busy_vcpus(StepTarget::Peer, b, group);
  }
  // The running sum of the minibatch gradients, on one thread.
  const double sum_s =
      s.average_seconds(static_cast<double>(s.parameters), 2) * static_cast<double>(minibatches.size() - 1);
  reference_s += sum_s;
  busy_vcpu_s += sum_s;
  return {reference_s, reference_s > 0 ? busy_vcpu_s / reference_s : 1.0};
}

PeerCpuSplit plan_peer_cpu(Context& c, int peer, double start_s, double reference_s, double busy_vcpus) {
  // The credits say how much of the work runs at full speed; the host runs the rest at its baseline speed.
  auto& credits = c.credits[peer];
  const double full_speed_s = reference_s * c.slowdown(peer) / c.s.peer_type(peer).cpu_speed_factor;
  credits.run(start_s, full_speed_s, busy_vcpus);
  const double full_share = full_speed_s > 0 ? std::min(1.0, credits.last_full_speed_s() / full_speed_s) : 1.0;
  return {full_share > 0 ? reference_s * full_share : 0, full_share < 1 ? reference_s * (1 - full_share) : 0};
}

void peer_cpu(Context& c, int peer, double reference_s, double busy_vcpus) {
  sg::Host* host = c.hosts.peers[peer];
  const PeerCpuSplit split = plan_peer_cpu(c, peer, sg::now(), reference_s, busy_vcpus);
  if (c.credits[peer].throttles()) sg::set_throttled(host, false);
  if (split.full_reference_s > 0) sg::compute(host, split.full_reference_s);
  if (split.throttled_reference_s > 0) {
    sg::set_throttled(host, true);
    sg::compute(host, split.throttled_reference_s);
  }
}

double peer_cpu_end_s(Context& c, int peer, double start_s, double reference_s, double busy_vcpus) {
  const PeerCpuSplit split = plan_peer_cpu(c, peer, start_s, reference_s, busy_vcpus);
  sg::Host* host = c.hosts.peers[peer];
  double end_s = start_s;
  if (split.full_reference_s > 0) end_s += sg::compute_s(host, split.full_reference_s, false);
  if (split.throttled_reference_s > 0) end_s += sg::compute_s(host, split.throttled_reference_s, true);
  return end_s;
}

void database_cpu(Context& c, int peer, KvStore& database, double reference_s) {
  if (database.host() == c.hosts.peers[peer])
    peer_cpu(c, peer, reference_s);
  else
    database.run_kernel(reference_s);
}

void serialize(Context& c, int peer, int iteration, double bytes) {
  const double start = sg::now();
  peer_cpu(c, peer, c.s.serialize_s(bytes));
  c.trace(peer, iteration, Phase::Serialize, start);
}

void deserialize(Context& c, int peer, int iteration, double bytes) {
  const double start = sg::now();
  peer_cpu(c, peer, c.s.deserialize_s(bytes));
  c.trace(peer, iteration, Phase::Deserialize, start);
}

void load_shard(Context& c, int peer, int iteration) {
  const double start = sg::now();
  c.storage.get(c.storage_client(peer), static_cast<double>(c.s.group_of_peer_data(peer).shard_samples * c.s.sample_bytes));
  c.trace(peer, iteration, Phase::DataFetch, start);
}

// When the peer cannot hold its largest training step, runs that step until memory runs out and records why.
static bool peer_step_fits(Context& c, int peer) {
  const auto& s = c.s;
  const int group = s.group_of(peer);
  if (s.peer_fits(group)) return true;
  const double start = sg::now();
  const auto& g = s.peer_groups[static_cast<size_t>(group)];
  const long long b = *std::max_element(g.minibatches.begin(), g.minibatches.end());
  const double step_s = s.reference_step_s(StepTarget::Peer, b, group);
  const double memory_bytes = g.memory_bytes;
  sg::compute(c.hosts.peers[peer], seconds_until_out_of_memory(c, step_s, g.need_bytes, memory_bytes));
  c.trace(peer, 0, Phase::OutOfMemory, start);
  if (c.out.failure.empty())
    c.out.failure = fmt::format("{}: out of memory: a {}-sample {} step needs {} but a {} peer has {}", c.system.name, b,
                                s.experiment.workload.model, gb(g.need_bytes), s.peer_type(peer).name,
                                gb(memory_bytes));
  return false;
}

bool start_peer(Context& c, int peer, GradientCompute how) {
  if (how == GradientCompute::Functions) return true;
  load_shard(c, peer, 0);
  if (peer_step_fits(c, peer)) return true;
  c.out.peer_end_s[peer] = sg::now();
  return false;
}

void apply_update(Context& c, int peer, int iteration, std::vector<GradientVersion> gradients) {
  const double start = sg::now();
  peer_cpu(c, peer, c.s.average_seconds(static_cast<double>(c.s.parameters), 2));
  c.trace(peer, iteration, Phase::AggregateUpdate, start);
  c.complete_iteration(peer, iteration, std::move(gradients));
}

bool compute_gradient(Context& c, int peer, int iteration, GradientCompute how, KvStore* database,
                      bool average_in_database) {
  if (how == GradientCompute::Peer) {
    compute_on_peer(c, peer, iteration);
    return true;
  }
  return compute_on_functions(c, peer, iteration, database, average_in_database);
}

}  // namespace p2psim::simulation
