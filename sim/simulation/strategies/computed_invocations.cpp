#include "computed_invocations.hpp"

namespace p2psim::simulation {
namespace {
bool computed_enabled = true;
}

void set_computed_invocations(bool enabled) { computed_enabled = enabled; }

bool invocations_computable(const Scenario& s, const PlatformNeeds& needs, const sg::PlatformSpec& spec) {
  const auto& e = s.experiment;
  if (!computed_enabled || !sg::function_routes_private(spec)) return false;
  if (needs.functions_only_aggregators) return true;  // actors that wait like any; their transfers are computed
  // A peer runs one execution at a time, and a failed attempt's container is gone before its retry takes one:
  // at most peers x invocations containers are alive. Under the limit, the slots bound the invocations running.
  const auto containers = s.invocations_per_iteration();
  return needs.functions_only_gradient_tasks &&
         e.broker_outages.empty() && !(e.crash_peer >= 0 && e.rejoin_after_s > 0) &&
         spec.function_slots >= containers && spec.function_slots < s.profile.functions.concurrency_limit;
}

void ComputedInvocations::submit(int peer, std::int64_t instance, int iteration, int branches, double fan_out_s,
                                 const std::shared_ptr<Execution>& exec) {
  for (int k = 0; k < branches; ++k) {
    auto inv = std::make_shared<Invocation>();
    inv->peer = peer;
    inv->iteration = iteration;
    inv->k = k;
    inv->instance = instance;
    inv->exec = exec;
    schedule(c_.workflow.branch_start_s(fan_out_s, k), Kind::Start, std::move(inv));
  }
  if (!driving_) {
    driving_ = true;
    sg::run_task("invocations", c_.hosts.storage, [this] { drive(); });
  }
}

void ComputedInvocations::schedule(double at_s, Kind kind, std::shared_ptr<Invocation> invocation) {
  events_.push({at_s, next_order_++, kind, std::move(invocation)});
  if (sleeping_until_s_ >= 0 && at_s < sleeping_until_s_) {  // the task sleeps past it: wake it once
    sleeping_until_s_ = -1;
    wake_.release();
  }
}

void ComputedInvocations::drive() {
  while (!events_.empty()) {
    const double next_s = events_.top().at_s;
    if (next_s > sg::now()) {
      sleeping_until_s_ = next_s;
      const bool woken = wake_.acquire_until(next_s);
      sleeping_until_s_ = -1;
      if (woken) continue;  // an earlier event came: look again
    }
    // The events due at next_s (the clock may stand an ulp off it: SimGrid adds the sleep to its own clock),
    // and those they make for next_s, in the order they were made. Their own times, not the clock, time them.
    if (!c_.pending.settle(next_s, c_.out)) sg::abandon_simulation();  // the storage link could have bound
    while (!events_.empty() && events_.top().at_s <= next_s) {
      const Event e = events_.top();
      events_.pop();
      switch (e.kind) {
        case Kind::Start: start(e.at_s, e.invocation); break;
        case Kind::AtBroker: at_broker(e.at_s, e.invocation); break;
        case Kind::End: end(e.at_s, e.invocation); break;
      }
    }
  }
  driving_ = false;
}

void ComputedInvocations::start(double now_s, const std::shared_ptr<Invocation>& inv) {
  const auto& s = c_.s;
  const int peer = inv->peer, iteration = inv->iteration, k = inv->k;
  if (inv->attempt > 0) c_.workflow.retry_branch();
  // As gradient.cpp: a first attempt's cold start is the fan-out's draw, a retry's its own.
  const int memory_mb = s.experiment.functions.memory_mb;
  inv->container = inv->attempt == 0
                       ? c_.functions.take_now("gradient", memory_mb, {peer, iteration, 0}, inv->instance, now_s)
                       : c_.functions.take_now("gradient", memory_mb, {peer, iteration, inv->attempt, k}, inv->instance,
                                               now_s);
  const auto& container = inv->container;
  double t = now_s;
  if (container.cold) {
    t = now_s + container.init_s;
    c_.trace_ahead(peer, iteration, Phase::ColdStart, now_s, t, k);
  }
  inv->run_start_s = t;
  inv->client = c_.function_client(container, gradient_request_draws(c_, peer, inv->instance, iteration, k, inv->attempt));
  long long samples = 0;
  for (long long b : s.group_of_peer_data(peer).invocations[k]) samples += b;
  auto get = [&](double bytes, double start_s) {
    return c_.computed_function_transfer(inv->client, false, bytes, start_s);
  };
  double fetched_s = get(static_cast<double>(samples * s.sample_bytes), t);
  c_.trace_ahead(peer, iteration, Phase::DataFetch, t, fetched_s, k);
  if (must_fetch_model(c_, container, peer, inv->instance, iteration)) {
    const double got_s = get(static_cast<double>(s.gradient_bytes), fetched_s);
    const double deserialized_s = got_s + c_.functions.compute_s(function_deserialize_model_s(s));
    c_.trace_ahead(peer, iteration, Phase::Deserialize, got_s, deserialized_s, k);
    c_.trace_ahead(peer, iteration, Phase::ModelFetch, fetched_s, deserialized_s, k);
    fetched_s = deserialized_s;
  }

  const auto plan = plan_attempt(c_, peer, inv->instance, iteration, k, inv->attempt, fetched_s - t);
  const double computed_s = fetched_s + c_.functions.compute_s(plan.run_for_s * s.function_speed_factor);
  c_.trace_ahead(peer, iteration, plan.ending, fetched_s, computed_s, k);
  if (plan.ending != Phase::Compute) {  // the container is gone at computed_s; the attempt is billed
    inv->died = true;
    inv->error = plan.error;
    schedule(computed_s, Kind::End, inv);
    return;
  }
  inv->died = false;
  inv->upload_start_s = computed_s;
  double u = computed_s;
  if (s.function_encode_s > 0) u += c_.functions.compute_s(s.function_encode_s);
  const double serialized_s = u + c_.functions.compute_s(function_serialize_s(s));
  c_.trace_ahead(peer, iteration, Phase::Serialize, u, serialized_s, k);
  u = c_.computed_function_transfer(inv->client, true, s.function_gradient_bytes, serialized_s);
  schedule(u + c_.broker.request_latency_s(), Kind::AtBroker, inv);  // publishes the key to the peer's queue
}

void ComputedInvocations::at_broker(double now_s, const std::shared_ptr<Invocation>& inv) {
  schedule(c_.broker.reserve_message_cpu(now_s), Kind::End, inv);
}

void ComputedInvocations::end(double now_s, const std::shared_ptr<Invocation>& inv) {
  const auto& s = c_.s;
  c_.functions.finish_at(inv->container, now_s - inv->run_start_s, s.experiment.functions.arch, inv->died, now_s);
  if (!inv->died) {
    c_.trace_ahead(inv->peer, inv->iteration, Phase::FunctionUpload, inv->upload_start_s, now_s, inv->k);
    c_.workflow.branch_done_at(*inv->exec, "", now_s);
    return;
  }
  if (++inv->attempt < 1 + c_.workflow.retry_attempts()) {
    schedule(now_s, Kind::Start, inv);  // retried at once, as function_invocation's loop does
    return;
  }
  c_.workflow.branch_done_at(*inv->exec, inv->error, now_s);
}

}  // namespace p2psim::simulation
