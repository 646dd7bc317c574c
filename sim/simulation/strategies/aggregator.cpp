#include "aggregator.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace p2psim::simulation {

constexpr double kMiB = 1024.0 * 1024.0;  // Lambda's "MB" of memory are MiB

int aggregator_memory_mb(const Scenario& s, double buffers, double buffer_bytes) {
  return std::max(s.profile.functions.memory_min_mb,
                  static_cast<int>(std::ceil(s.profile.runtime_baseline_mb + buffers * buffer_bytes / kMiB)));
}

int aggregator_memory_param(StrategyParams& params, const std::string& name, const Scenario& s, int fallback,
                            double buffer_bytes) {
  const auto& fs = s.profile.functions;
  const int mb = static_cast<int>(params.integer(name, fs.memory_min_mb, fs.memory_max_mb, 0));
  if (mb == 0) return fallback;
  const int need_mb = static_cast<int>(std::ceil(s.profile.runtime_baseline_mb + buffer_bytes / kMiB));
  if (mb < need_mb)
    throw params.error(name, fmt::format("{} MB cannot hold the runtime ({} MB before any model) and one buffer of "
                                         "{:.0f} MB: at least {} MB",
                                         mb, s.profile.runtime_baseline_mb, buffer_bytes / kMiB, need_mb));
  return mb;
}

std::string aggregator_too_large(const Context& c, const std::string& what, int memory_mb) {
  const int max_mb = c.s.profile.functions.memory_max_mb;
  if (memory_mb <= max_mb) return "";
  return fmt::format("{}: out of memory: {} needs {} MB (runtime {} MB + its buffers), over the function service's "
                     "maximum of {} MB",
                     c.system.name, what, memory_mb, c.s.profile.runtime_baseline_mb, max_mb);
}

namespace {

// The same run as the loop in run_aggregator, computed: the container's slot is virtual, so its route to storage
// is its own and each transfer takes SimGrid's time for its flows alone (Context::computed_function_transfer);
// its work is sleeps. Returns when the PUT of the sum ends; its rows and requests are recorded as the clock
// reaches them. No SimGrid activity per input: a reducer of 10,000 participants' shards made 10,000 comms.
double computed_run_end_s(Context& c, const AggregatorJob& job, StorageClient& client, double share, double add_s) {
  const PendingRecords::Sequence records(c.pending);  // its rows and requests take one place in the queue
  double t = sg::now();
  auto cpu = [&](Phase phase, double reference_s) {
    const double end_s = t + c.functions.compute_s(reference_s / share);
    c.trace_ahead(-1, job.iteration, phase, t, end_s, job.index);
    t = end_s;
  };
  for (int i = 0; i < job.inputs; ++i) {
    t = c.computed_function_transfer(client, false, job.input_bytes, t);
    cpu(Phase::Deserialize, c.s.deserialize_s(job.input_bytes));
    if (i > 0) t += c.functions.compute_s(add_s);  // the running sum
  }
  cpu(Phase::Serialize, c.s.serialize_s(job.input_bytes));
  return c.computed_function_transfer(client, true, job.input_bytes, t);
}

}  // namespace

void run_aggregator(Context& c, const AggregatorJob& job) {
  const auto container = c.functions.start(job.function, job.memory_mb, {job.iteration, job.index});
  if (container.cold) c.trace(-1, job.iteration, Phase::ColdStart, container.init_started_s, job.index);
  auto client = c.function_client(
      container, c.random.stream(Draw::StorageRequest, {job.iteration, job.index}, Random::id_of(job.function)));
  const double run_start = sg::now();
  // Single-threaded kernels, time-sliced below one vCPU: the sum, and each input's unpickling and the output's
  // pickling (numpy arrays through S3, as GradsSharding's aggregators do).
  const double share = std::min(1.0, c.functions.vcpus(job.memory_mb));
  const double add_s = c.s.average_seconds(job.elements, 2) / share;
  if (c.hosts.function_slots_virtual) {
    sg::sleep_until(computed_run_end_s(c, job, client, share, add_s));
  } else {
    auto cpu = [&](Phase phase, double reference_s) {
      const double start = sg::now();
      c.functions.compute(container, reference_s / share);
      c.trace(-1, job.iteration, phase, start, job.index);
    };
    for (int i = 0; i < job.inputs; ++i) {
      c.storage.get(client, job.input_bytes);
      cpu(Phase::Deserialize, c.s.deserialize_s(job.input_bytes));
      if (i > 0) c.functions.compute(container, add_s);  // the running sum
    }
    cpu(Phase::Serialize, c.s.serialize_s(job.input_bytes));
    c.storage.put(client, job.input_bytes);
  }
  c.trace(-1, job.iteration, Phase::Reduce, run_start, job.index);
  const double run_s = sg::now() - run_start, timeout_s = c.s.profile.functions.max_timeout_s;
  if (run_s > timeout_s) {  // the platform would have killed it at the timeout: the design cannot work so
    if (c.out.failure.empty())
      c.out.failure = fmt::format("{}: an aggregator function ({} inputs of {:.1f} MB) needs {:.1f} s, over the "
                                  "function timeout of {} s", c.system.name, job.inputs, job.input_bytes / 1e6,
                                  run_s, timeout_s);
    c.functions.finish(container, timeout_s, c.s.experiment.functions.arch, true);
    return;
  }
  c.functions.finish(container, run_s, c.s.experiment.functions.arch, false);
}

}  // namespace p2psim::simulation
