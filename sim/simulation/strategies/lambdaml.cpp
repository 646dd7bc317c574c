// LambdaML (Jiang et al., "Towards Demystifying Serverless Machine Learning Training", SIGMOD 2021,
// https://doi.org/10.1145/3448016.3459240; code https://github.com/DS3Lab/LambdaML): training by functions
// alone, no peer instance. W worker functions (W = peers/@count) each own a data partition in object storage,
// compute their minibatches, and synchronise through object storage with one of LambdaML's two patterns:
// - allreduce (communicator/s3_primitive_nn.py, reduce_batch; s3_primitive.py's is the same in structure): every
//   worker PUTs its pickled gradient; the master (worker 0) LISTs the bucket in a loop with no pause, GETs each
//   gradient a LIST shows, its own too, and deletes what each LIST showed with one request; it averages, PUTs the
//   merged gradient, LISTs the merged bucket and deletes earlier iterations' (delete_expired_batch). The others GET
//   it, trying every poll_interval_s until it is there (get_object_or_wait: each try before then a GET answered
//   NoSuchKey, its first byte), and fail after poll_timeout_s without it (get_object_or_wait gives up and the worker's
//   next call fails); the master reads it back as they do;
// - scatter_reduce (reduce_scatter_batch): every worker cuts its gradient into W chunks and PUTs the W-1 it does
//   not own, as raw float32 bytes; worker j LISTs the bucket in a loop, GETs each copy of chunk j a LIST shows,
//   adds it to its own and DELETEs it; it PUTs the merged chunk, then LISTs the merged bucket in a loop and GETs
//   the W-1 merged chunks it does not own as LISTs show them.
// A LIST answers after a GET's first byte, lists what is in the bucket then, a key at a time, at most a page of
// them (ObjectStorage::list). LISTs, DELETEs and empty polls draw their latencies from a stream of their own.
// Then each applies the update, and worker 0 LISTs the merged bucket and deletes earlier iterations' objects
// (dl_s3.py, after each pass), and at the end of each invocation LISTs both buckets and clears them. A worker
// whose next iteration would run past the function timeout ends and invokes itself again, worker 0 having saved
// the model to object storage (a checkpoint, dl_s3.py); the new invocation (warm when the container is still
// there) reloads the checkpoint and its partition. Every invocation is billed.
// Simplifications: the master's per-gradient additions are one average after the last GET (the same work); a
// LIST's time grows in proportion to its keys (measured at one key count); a LIST shows a worker every object it
// waits for even when the bucket holds more than a page (S3 answers with the first 1,000 keys in key order, and
// LambdaML does not page: scatter-reduce's W(W-1) chunks pass 1,000 at W = 33, where a real worker whose chunks
// sort late would wait for others' deletes); a re-invoked worker reloads the checkpoint without waiting for worker
// 0 to have saved it (as LambdaML's does); a multi-object delete is free as a DELETE is; the next iteration is
// estimated to last as long as the last one. LambdaML's public dl_s3.py (2021-05) calls reduce_batch for both
// patterns; the paper times the two differently, so its runs used other code: this follows its description
// (reduce_scatter_batch).
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "gradient.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class LambdaMl : public Strategy {
 public:
  LambdaMl(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    PlatformNeeds n;
    n.function_slots = std::min(s_.profile.functions.concurrency_limit, s_.experiment.peers);
    n.peers_are_instances = false;
    n.steps_on_worker_functions = true;
    return n;
  }
  // Per worker-iteration: scatter-reduce 4 rows (compute, send, receive, update); all-reduce 6 (compute, pickle,
  // send, receive, unpickle, update), and the master's unpickling of every gradient and pickling of the merged one.
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    Footprint f;
    f.actors = P + 1;
    f.trace_rows = 2 * P + (scatter_ ? 4 * P * T : (7 * P + 1) * T);
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return scatter_ ? "storage_scatter_reduce" : "storage_allreduce"; }

 private:
  void worker(Context& c, int w);
  /// False when the worker gave up waiting for the merged gradient.
  bool synchronise(Context& c, int w, int iteration, const FunctionService::Container& container,
                   StorageClient& host, StorageClient& control, double add_share, double deadline_s);
  /// LISTs the merged bucket and deletes earlier iterations' objects (delete_expired_batch): the all-reduce
  /// master in each round, and worker 0 at the end of each iteration.
  void clean_merged(Context& c, int iteration, StorageClient& control);
  /// Worker 0 at the end of an invocation: LISTs both buckets and deletes what each holds (storage.clear).
  void clear_buckets(Context& c, StorageClient& control);
  const Scenario& s_;
  const Scenario::PeerGroup& workers_;  // every worker's partition: one group (refused otherwise)
  bool scatter_ = false;
  double poll_interval_s_ = 0, poll_timeout_s_ = 0;  // set from the system's parameters
  std::vector<sg::Counter> uploaded_, merged_;  // per iteration: workers' uploads, merged results in storage
  std::vector<std::vector<int>> chunks_for_;    // per iteration and worker: the chunks others PUT for it
  int tmp_keys_ = 0, merged_keys_ = 0;          // objects in the two buckets now (what a LIST lists)
};

LambdaMl::LambdaMl(const SystemSpec& system, const Scenario& s) : s_(s), workers_(s.peer_groups[0]) {
  StrategyParams params(system);
  scatter_ = params.choice("pattern", {"allreduce", "scatter_reduce"}, "allreduce") == "scatter_reduce";
  // LambdaML's get_object_or_wait sleeps 0.1 s between tries (storage/s3/s3_type.py, DS3Lab/LambdaML).
  poll_interval_s_ = params.number("poll_interval_s", 0.001, 60, 0.1);
  poll_timeout_s_ = params.number("poll_timeout_s", 0, 900, 60);  // its time_out
  params.reject_unread();
  const auto& e = s.experiment;
  refuse_unmodelled(params, e, "lambdaml", kAsync | kCrash | kCompression | kFunctionFailures | kPeerGroups);
  if (s.profile.functions.concurrency_limit < e.peers)  // the workers wait for each other: all must run at once
    throw params.error("strategy", fmt::format("{} workers cannot all run within the function service's concurrency "
                                               "limit of {}", e.peers, s.profile.functions.concurrency_limit));
  // Checkpoints happen between iterations (a pass over the partition), so one pass must fit in an invocation.
  double pass_s = 0;
  for (long long b : workers_.minibatches) pass_s += s.wall_step_s(StepTarget::Function, b);
  if (pass_s > s.profile.functions.max_timeout_s)
    throw e.error("functions", "memory_mb", fmt::format("a worker's pass over its partition computes for {:.0f} s, over "
                                                        "the function timeout of {} s: use more workers or larger "
                                                        "functions", pass_s, s.profile.functions.max_timeout_s));
  uploaded_.resize(static_cast<size_t>(e.workload.iterations));
  merged_.resize(static_cast<size_t>(e.workload.iterations));
  chunks_for_.assign(static_cast<size_t>(e.workload.iterations), std::vector<int>(static_cast<size_t>(e.peers), 0));
}

void LambdaMl::launch(Context& c) {
  for (int w = 0; w < c.peers(); ++w) sg::spawn("worker-" + std::to_string(w), c.hosts.peers[w], [this, &c, w] { worker(c, w); });
}

bool LambdaMl::synchronise(Context& c, int w, int it, const FunctionService::Container& container,
                           StorageClient& host, StorageClient& control, double add_share, double deadline_s) {
  const int n = c.peers();
  const double bytes = static_cast<double>(s_.gradient_bytes);
  const double e = static_cast<double>(s_.parameters);
  // Pickling before each PUT and unpickling after each GET, on the function's CPU (LambdaML's all-reduce).
  auto pickle = [&](Phase phase, double of_bytes) {
    const double start = sg::now();
    c.functions.compute(container, (phase == Phase::Serialize ? s_.serialize_s(of_bytes) : s_.deserialize_s(of_bytes)) /
                                       add_share);
    c.trace(w, it, phase, start);
  };
  // LambdaML learns what is in a bucket by LISTing it in a loop with no pause; a LIST shows what is there when it
  // is answered. `shown` counts then the objects the worker waits for (those it took included), `taken` how many
  // it took, and `take` takes the next one; it LISTs until it has taken `wanted`, or, with `one_list`, once it has
  // taken what one LIST showed. It stops once the run has failed (what it waits for may never come), and past the
  // invocation's timeout, where the platform would end it.
  auto list_until = [&](int wanted, bool one_list, int& taken, int& keys_in_bucket, const std::function<int()>& shown,
                        const std::function<void()>& take) {
    while (taken < wanted) {
      if (!c.out.failure.empty()) return false;
      if (sg::now() > deadline_s) {
        c.out.failure = fmt::format("{}: worker {} ran past the function timeout of {} s LISTing for iteration {}'s "
                                    "objects", c.system.name, w, s_.profile.functions.max_timeout_s, it);
        return false;
      }
      int seen = 0;
      c.storage.list(control, [&] {
        seen = shown();
        return keys_in_bucket;
      });
      const bool any = taken < seen;
      for (; taken < seen; ++taken) take();
      if (one_list && any) break;
    }
    return true;
  };
  const double send_start = sg::now();
  if (!scatter_) {  // communicator/s3_primitive_nn.py, reduce_batch
    pickle(Phase::Serialize, bytes);
    c.storage.put(host, bytes);
    ++tmp_keys_;
    c.trace(w, it, Phase::Send, send_start);
    uploaded_[it].add();
    const double receive_start = sg::now();
    if (w == 0) {  // the master merges every gradient in the bucket, its own too, as its LISTs show them
      int taken = 0;
      while (taken < n) {
        const int before = taken;
        if (!list_until(n, true, taken, tmp_keys_, [&] { return uploaded_[it].value(); }, [&] {
              c.storage.get(host, bytes);
              pickle(Phase::Deserialize, bytes);
            }))
          return false;
        // What that LIST showed, deleted with one request (a LIST that shows nothing finds the bucket empty, and
        // LambdaML deletes only after a LIST that lists something).
        c.storage.remove(control);
        tmp_keys_ -= taken - before;
      }
      c.functions.compute(container, s_.average_seconds(e, n) / add_share);
      pickle(Phase::Serialize, bytes);
      c.storage.put(host, bytes);
      ++merged_keys_;
      merged_[it].add();
      clean_merged(c, it, control);  // delete_expired_batch
    } else {
      // get_object_or_wait: a try finds the merged object if it was there when the try began; one that does not
      // costs a GET's first byte and route (an empty answer), then a sleep. Past the time-out, no more tries.
      while (merged_[it].value() < 1) {
        if (sg::now() - receive_start > poll_timeout_s_) return false;
        c.storage.get(control, 0);
        sg::sleep_for(poll_interval_s_);
      }
    }
    c.storage.get(host, bytes);  // every worker reads the merged gradient, the master too
    pickle(Phase::Deserialize, bytes);
    c.trace(w, it, Phase::Receive, receive_start);
    return true;
  }
  // communicator/s3_primitive_nn.py, reduce_scatter_batch: chunks move as raw float32 bytes (tobytes, frombuffer).
  const double chunk = bytes / n;
  for (int j = 0; j < n; ++j) {
    if (j == w) continue;
    c.storage.put(host, chunk);
    ++tmp_keys_;
    ++chunks_for_[it][static_cast<size_t>(j)];
  }
  c.trace(w, it, Phase::Send, send_start);
  const double receive_start = sg::now();
  // The others' copies of my chunk: each GET, added to mine, and DELETEd with a request of its own.
  int copies = 0, merged_read = 0;
  if (!list_until(n - 1, false, copies, tmp_keys_, [&] { return chunks_for_[it][static_cast<size_t>(w)]; }, [&] {
        c.storage.get(host, chunk);
        c.functions.compute(container, s_.average_seconds(e / n, 2) / add_share);
        c.storage.remove(control);
        --tmp_keys_;
      }))
    return false;
  c.storage.put(host, chunk);  // my merged chunk
  ++merged_keys_;
  merged_[it].add();
  // The others' merged chunks, as LISTs of the merged bucket show them.
  if (!list_until(n - 1, false, merged_read, merged_keys_, [&] { return merged_[it].value() - 1; },
                  [&] { c.storage.get(host, chunk); }))
    return false;
  c.trace(w, it, Phase::Receive, receive_start);
  return true;
}

void LambdaMl::clean_merged(Context& c, int it, StorageClient& control) {
  // Earlier steps' objects: all but this iteration's merged gradient (all-reduce) or merged chunks (scatter-reduce).
  c.storage.list(control, [&] { return merged_keys_; });
  const int older = merged_keys_ - (scatter_ ? merged_[it].value() : 1);
  if (older > 0) c.storage.remove(control), merged_keys_ -= older;
}

void LambdaMl::clear_buckets(Context& c, StorageClient& control) {
  for (int* keys : {&tmp_keys_, &merged_keys_}) {  // s3_operator.clear_bucket: a LIST, then one delete of all
    c.storage.list(control, [&] { return *keys; });
    if (*keys > 0) c.storage.remove(control), *keys = 0;
  }
}

void LambdaMl::worker(Context& c, int w) {
  const auto& fs = s_.profile.functions;
  const int memory_mb = s_.experiment.functions.memory_mb;
  const std::string& arch = s_.experiment.functions.arch;
  const double add_share = std::min(1.0, s_.function_vcpus);  // a single-threaded kernel, time-sliced below 1 vCPU
  const double partition_bytes = static_cast<double>(workers_.shard_samples * s_.sample_bytes);
  const double model_bytes = static_cast<double>(s_.gradient_bytes);
  const int iterations = static_cast<int>(s_.experiment.workload.iterations);
  double last_iteration_s = 0;
  bool timed_out = false;
  for (int it = 0, invocation = 0; it < iterations; ++invocation) {
    const int first_of_invocation = it;
    const auto container = c.functions.start("lambdaml-worker", memory_mb, {w, invocation});
    if (container.cold) c.trace(w, it, Phase::ColdStart, container.init_started_s);  // the worker's own row
    auto client = c.function_client(
        container, c.random.stream(Draw::StorageRequest, {w, invocation}, Random::id_of("lambdaml-worker")));
    // LISTs, DELETEs and empty polls draw from a stream of their own: how many a worker makes depends on the
    // others' timing, and its transfers' draws must not.
    auto control = c.function_client(
        container, c.random.stream(Draw::StorageRequest, {w, invocation}, Random::id_of("lambdaml-worker-control")));
    control.transfers.max_streams = 1;  // get_object and list_objects, whatever the design's transfers: no HEAD
    const double run_start = sg::now();
    const double load_start = sg::now();
    if (invocation > 0) c.storage.get(client, model_bytes);  // the checkpoint
    c.storage.get(client, partition_bytes);
    c.trace(w, it, Phase::DataFetch, load_start);
    if (invocation == 0 && s_.memory_checked && workers_.need_bytes > s_.function_memory_bytes) {  // cannot fit
      c.out.failure = fmt::format("{}: out of memory: a worker's {}-sample step needs {:.2f} GiB but a {} MB function "
                                  "has {:.2f} GiB", c.system.name,
                                  *std::max_element(workers_.minibatches.begin(), workers_.minibatches.end()),
                                  workers_.need_bytes / (1 << 30), memory_mb, s_.function_memory_bytes / (1 << 30));
      c.out.peer_end_s[w] = sg::now();
      c.functions.finish(container, sg::now() - run_start, arch, true);
      break;
    }
    for (; it < iterations; ++it) {
      const double elapsed = sg::now() - run_start;
      if (it > 0 && elapsed > 0 && elapsed + last_iteration_s > fs.max_timeout_s) {
        if (it == first_of_invocation) {  // a fresh invocation cannot fit one iteration: no checkpoint helps
          c.out.failure = fmt::format("{}: a worker's iteration ({:.1f} s, with reloading) does not fit in the "
                                      "function timeout of {} s", c.system.name, elapsed + last_iteration_s,
                                      fs.max_timeout_s);
          timed_out = true;
        }
        break;  // checkpoint first
      }
      const double start = sg::now();
      double reference_s = 0;  // every minibatch one after another on the function's CPU share
      auto draws = c.random.stream(Draw::FunctionStep, {w, it});
      for (long long b : workers_.minibatches)
        reference_s += s_.reference_step_s(StepTarget::Function, b) * c.step_noise(StepTarget::Function, draws) * c.slowdown(w);
      reference_s += s_.average_seconds(static_cast<double>(s_.parameters), 2) / add_share *
                     static_cast<double>(workers_.minibatches.size() - 1);
      c.functions.compute(container, reference_s);
      c.trace(w, it, Phase::Compute, start);
      if (!synchronise(c, w, it, container, client, control, add_share, run_start + fs.max_timeout_s)) {
        if (c.out.failure.empty())
          c.out.failure = fmt::format("{}: worker {} gave up waiting {} s for iteration {}'s merged gradient "
                                      "(LambdaML's get_object_or_wait)", c.system.name, w, poll_timeout_s_, it);
        timed_out = true;
        break;
      }
      const double update_start = sg::now();
      c.functions.compute(container, s_.average_seconds(static_cast<double>(s_.parameters), 2) / add_share);
      if (w == 0) {  // part of the update step's time, as in its trace
        clean_merged(c, it, control);
        if (it == iterations - 1) clear_buckets(c, control);  // the last invocation ends
      }
      c.trace(w, it, Phase::AggregateUpdate, update_start);
      c.complete_iteration(w, it);
      last_iteration_s = sg::now() - start;
      if (sg::now() - run_start > fs.max_timeout_s) {  // the platform would have killed it at the timeout
        c.out.failure = fmt::format("{}: worker {}'s invocation ran past the function timeout of {} s",
                                    c.system.name, w, fs.max_timeout_s);
        timed_out = true;
        break;
      }
    }
    if (timed_out) {
      c.functions.finish(container, std::min(sg::now() - run_start, fs.max_timeout_s), arch, true);
      break;
    }
    if (it < iterations && w == 0) {  // near the timeout: worker 0 clears the buckets and saves the model
      const double checkpoint_start = sg::now();
      clear_buckets(c, control);
      c.storage.put(client, model_bytes);
      c.trace(w, it, Phase::Checkpoint, checkpoint_start);
    }
    c.functions.finish(container, sg::now() - run_start, arch, false);
  }
  c.out.peer_end_s[w] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_lambdaml(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<LambdaMl>(system, s);
}

}  // namespace p2psim::simulation
