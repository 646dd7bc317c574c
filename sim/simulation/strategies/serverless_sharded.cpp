// Sharded serverless aggregation (the GradsSharding design: gradients cut into M shards, each averaged by its
// own function, so no function holds a whole gradient). Per iteration every peer computes its gradient and
// PUTs it as M shard objects; once all peers have uploaded, the last uploader invokes M reducer functions;
// reducer j GETs the N copies of shard j one at a time, adds each as it arrives, and PUTs the averaged shard;
// peers then GET the M averaged shards and update. Reducer memory = the runtime's baseline + k shard buffers
// (k = reducer_buffers: the running sum and the shard arriving), unless reducer_memory_mb says otherwise; a
// reducer larger than the function service allows cannot be deployed and the system is infeasible.
// Simplifications: peers learn that an averaged shard is ready at no cost (an ideal notification); the
// reducers' Invoke requests take no time beyond their cold or warm start.
// With partial participation (participation="0.1" or participants_per_round, participation.hpp) the reducers
// average the round's participants' shards; the other peers wait for the averaged shards and apply them.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "aggregator.hpp"
#include "computed_participants.hpp"
#include "gradient.hpp"
#include "participation.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class ServerlessSharded : public Strategy {
 public:
  ServerlessSharded(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    return gradient_needs(s_, compute_, shards_);  // and the reducers' containers
  }
  // Per peer-iteration 6 phases; per reducer-iteration a GET per peer, a start and a PUT; a cold start each.
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    const double M = shards_;
    Footprint f = gradient_functions_footprint(s_, compute_);
    f.actors += P + M + 1;
    f.trace_rows += P + 6 * P * T + M * T * (P + 3);
    f.deliveries += participation_.schedule_versions(s_);
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "storage_shards"; }

 private:
  void peer(Context& c, int peer);
  /// A participant's shards of `iteration` are in storage; the last one's invoke the reducers.
  void uploaded(Context& c, int iteration);
  void reducer(Context& c, int shard, int iteration);
  const Scenario& s_;
  GradientCompute compute_;
  Participation participation_;
  int shards_ = 1;
  int reducer_memory_mb_ = 0;
  std::vector<int> uploaded_;  // per iteration: peers whose shards are all in storage
  std::vector<sg::Counter> reduced_;  // per iteration: averaged shards in storage
  std::vector<int> reduced_count_;    // the same count, for computed participants
  std::unique_ptr<ComputedParticipants> computed_;  // the peers, where they are computed rather than actors
};

ServerlessSharded::ServerlessSharded(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  compute_ = read_gradient_compute(params, s, "peer");
  participation_ = Participation::read(params, s);
  shards_ = static_cast<int>(params.integer("shards", 1, 1 << 16, 0));
  if (shards_ == 0) throw params.missing("shards", "the number of shards (and reducer functions) M");
  const double buffers = params.number("reducer_buffers", 1, 1000, 2);
  const int derived_mb = aggregator_memory_mb(s, buffers, static_cast<double>(s.gradient_bytes) / shards_);
  reducer_memory_mb_ = aggregator_memory_param(params, "reducer_memory_mb", s, derived_mb,
                                               static_cast<double>(s.gradient_bytes) / shards_);
  params.reject_unread();
  const auto& e = s.experiment;
  refuse_unmodelled(params, e, "serverless_sharded", kAsync | kCrash | kCompression | kFunctionFailures);
  uploaded_.assign(static_cast<size_t>(e.workload.iterations), 0);
  reduced_.resize(static_cast<size_t>(e.workload.iterations));
  reduced_count_.assign(static_cast<size_t>(e.workload.iterations), 0);
}

void ServerlessSharded::launch(Context& c) {
  // A function over the service's maximum cannot even be created: the system is infeasible.
  c.out.failure = aggregator_too_large(
      c, fmt::format("a reducer of 1/{} of the {} gradient", shards_, s_.experiment.workload.model), reducer_memory_mb_);
  if (!c.out.failure.empty()) return;
  participation_.draw(c.random, s_.experiment.workload.iterations);
  c.out.participation = static_cast<double>(participation_.per_round()) / c.peers();
  if (const StorageRound round{s_.exchange_bytes / shards_, shards_}; participants_computable(c, compute_, round)) {
    computed_ = std::make_unique<ComputedParticipants>(c, participation_, round,
                                                       [this, &c](int, int iteration, int) { uploaded(c, iteration); });
    computed_->launch();
    return;
  }
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

void ServerlessSharded::uploaded(Context& c, int iteration) {
  if (++uploaded_[iteration] < participation_.per_round()) return;
  for (int j = 0; j < shards_; ++j)
    sg::run_task("reducer", c.hosts.storage, [this, &c, j, iteration] { reducer(c, j, iteration); });
}

void ServerlessSharded::reducer(Context& c, int shard, int iteration) {
  run_aggregator(c, {"reducer", reducer_memory_mb_, participation_.per_round(), s_.exchange_bytes / shards_,
                     static_cast<double>(s_.parameters) / shards_, iteration, shard});
  reduced_[iteration].add();
  if (computed_ && ++reduced_count_[iteration] == shards_) computed_->round_ready(iteration);
}

void ServerlessSharded::peer(Context& c, int peer) {
  const double shard_bytes = s_.exchange_bytes / shards_;
  if (!start_peer(c, peer, compute_)) return;
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    if (participation_.takes_part(it, peer)) {
      if (!compute_gradient(c, peer, it, compute_)) break;
      const double send_start = sg::now();
      serialize(c, peer, it, shard_bytes * shards_);
      c.storage.put(c.storage_client(peer), shard_bytes, shards_);
      c.trace(peer, it, Phase::Send, send_start);
      uploaded(c, it);
    }
    const double receive_start = sg::now();
    reduced_[it].wait_for(shards_);
    c.storage.get(c.storage_client(peer), shard_bytes, shards_);
    deserialize(c, peer, it, shard_bytes * shards_);
    c.trace(peer, it, Phase::Receive, receive_start);
    apply_update(c, peer, it, participation_.gradients(it, peer));  // the averaged gradient is in
  }
  c.out.peer_end_s[peer] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_serverless_sharded(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<ServerlessSharded>(system, s);
}

}  // namespace p2psim::simulation
