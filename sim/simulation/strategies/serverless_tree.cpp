// Hierarchical aggregation by functions (λ-FL, Jayaram et al., "λ-FL: Serverless Aggregation For Federated
// Learning", 2022, https://arxiv.org/abs/2208.01155; LIFL, Qi et al., "LIFL: A Lightweight, Event-driven
// Serverless Platform for Federated Learning", MLSys 2024, https://arxiv.org/abs/2405.10968). Per iteration
// every peer PUTs its gradient; aggregators of fan-in k = max(2, ceil(N^(1/levels))) each GET their inputs
// one at a time, add them, and PUT one output, level after level up to a single root; peers GET the root's
// output and update. levels="2" is λ-FL's two-level tree (k = ceil(sqrt N)), levels="3" LIFL's three-level
// one. An aggregator is invoked by the upload that completes its inputs. Each level's functions hold all
// their inputs (memory = the runtime's baseline + fan-in x gradient size, as λ-FL's aggregators do); over
// the service's maximum the system is infeasible. With partial participation (participation="0.1" or
// participants_per_round, participation.hpp) the tree is built over each round's participants, sized by their
// number, and the peers that sit a round out wait for the root's output and apply it.
// Simplifications: peers learn that the root's output is ready at no cost (an ideal notification);
// Invoke requests take no time beyond the cold or warm start.
#include <fmt/core.h>

#include <cmath>

#include "aggregator.hpp"
#include "computed_participants.hpp"
#include "gradient.hpp"
#include "participation.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class ServerlessTree : public Strategy {
 public:
  ServerlessTree(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    int aggregators = 0;
    for (const auto& level : levels_) aggregators += static_cast<int>(level.size());
    return gradient_needs(s_, compute_, aggregators);
  }
  // Per peer-iteration 6 phases; per aggregator-iteration a GET per input, a start and a PUT.
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    double A = 0;
    for (const auto& level : levels_) A += static_cast<double>(level.size());
    Footprint f = gradient_functions_footprint(s_, compute_);
    f.actors += P + A + 1;
    f.trace_rows += P + 6 * P * T + T * (P + 3 * A) + A;
    f.deliveries += participation_.schedule_versions(s_);
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "storage_tree"; }

 private:
  void peer(Context& c, int peer);
  /// One input of aggregator `group` at `level` is in storage; the last one invokes it.
  void input_ready(Context& c, int level, int group, int iteration);
  void aggregator(Context& c, int level, int group, int iteration);
  const Scenario& s_;
  GradientCompute compute_;
  Participation participation_;
  int fan_in_ = 2;
  std::vector<std::vector<int>> levels_;  // per level (leaves first): each aggregator's number of inputs
  std::vector<int> memory_mb_;            // per level
  std::vector<std::vector<std::vector<int>>> arrived_;  // [iteration][level][group]: inputs in storage
  std::vector<sg::Counter> root_done_;                  // per iteration: 1 once the root's output is in
  std::unique_ptr<ComputedParticipants> computed_;      // the peers, where they are computed rather than actors
};

ServerlessTree::ServerlessTree(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  compute_ = read_gradient_compute(params, s, "peer");
  participation_ = Participation::read(params, s);
  const int depth = static_cast<int>(params.integer("levels", 2, 3, 2));
  // 0: each level sized to hold its fan-in of gradients; a published deployment may stream and use less.
  const int memory_mb =
      aggregator_memory_param(params, "aggregator_memory_mb", s, 0, static_cast<double>(s.gradient_bytes));
  params.reject_unread();
  const auto& e = s.experiment;
  refuse_unmodelled(params, e, "serverless_tree", kAsync | kCrash | kCompression | kFunctionFailures);
  const int n = participation_.per_round();  // the leaves: each round's participants
  fan_in_ = std::max(2, static_cast<int>(std::ceil(std::pow(static_cast<double>(n), 1.0 / depth) - 1e-9)));
  // Group the inputs of each level by fan_in_ until a single aggregator, the root, remains.
  for (int inputs = n;;) {
    std::vector<int> groups;
    for (int left = inputs; left > 0; left -= fan_in_) groups.push_back(std::min(left, fan_in_));
    levels_.push_back(groups);
    memory_mb_.push_back(memory_mb > 0 ? memory_mb
                                       : aggregator_memory_mb(s, *std::max_element(groups.begin(), groups.end()),
                                                              static_cast<double>(s.gradient_bytes)));
    if (groups.size() == 1) break;
    inputs = static_cast<int>(groups.size());
  }
  arrived_.resize(static_cast<size_t>(e.workload.iterations));
  for (auto& per_iteration : arrived_)
    for (const auto& level : levels_) per_iteration.emplace_back(level.size(), 0);
  root_done_.resize(static_cast<size_t>(e.workload.iterations));
}

void ServerlessTree::launch(Context& c) {
  for (size_t level = 0; level < levels_.size(); ++level) {
    const int k = *std::max_element(levels_[level].begin(), levels_[level].end());
    c.out.failure = aggregator_too_large(
        c, fmt::format("an aggregator of level {} holding {} {} gradients", level, k, s_.experiment.workload.model),
        memory_mb_[level]);
    if (!c.out.failure.empty()) return;
  }
  participation_.draw(c.random, s_.experiment.workload.iterations);
  c.out.participation = static_cast<double>(participation_.per_round()) / c.peers();
  if (const StorageRound round{static_cast<double>(s_.gradient_bytes), 1}; participants_computable(c, compute_, round)) {
    computed_ = std::make_unique<ComputedParticipants>(
        c, participation_, round,
        [this, &c](int, int iteration, int rank) { input_ready(c, 0, rank / fan_in_, iteration); });
    computed_->launch();
    return;
  }
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

void ServerlessTree::input_ready(Context& c, int level, int group, int iteration) {
  auto& arrived = arrived_[iteration][level][group];
  if (++arrived < levels_[level][group]) return;
  sg::run_task("aggregator", c.hosts.storage,
            [this, &c, level, group, iteration] { aggregator(c, level, group, iteration); });
}

void ServerlessTree::aggregator(Context& c, int level, int group, int iteration) {
  int index = group;  // numbered across levels, leaves first
  for (int l = 0; l < level; ++l) index += static_cast<int>(levels_[l].size());
  run_aggregator(c, {fmt::format("aggregator-level-{}", level), memory_mb_[level], levels_[level][group],
                     static_cast<double>(s_.gradient_bytes), static_cast<double>(s_.parameters), iteration, index});
  if (static_cast<size_t>(level) + 1 < levels_.size()) {
    input_ready(c, level + 1, group / fan_in_, iteration);
    return;
  }
  root_done_[iteration].add();
  if (computed_) computed_->round_ready(iteration);
}

void ServerlessTree::peer(Context& c, int peer) {
  const double bytes = static_cast<double>(s_.gradient_bytes);
  if (!start_peer(c, peer, compute_)) return;
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    if (const int rank = participation_.rank(it, peer); rank >= 0) {
      if (!compute_gradient(c, peer, it, compute_)) break;
      const double send_start = sg::now();
      serialize(c, peer, it, bytes);
      c.storage.put(c.storage_client(peer), bytes);
      c.trace(peer, it, Phase::Send, send_start);
      input_ready(c, 0, rank / fan_in_, it);
    }
    const double receive_start = sg::now();
    root_done_[it].wait_for(1);
    c.storage.get(c.storage_client(peer), bytes);
    deserialize(c, peer, it, bytes);
    c.trace(peer, it, Phase::Receive, receive_start);
    apply_update(c, peer, it, participation_.gradients(it, peer));  // the root's sum is the averaged gradient
  }
  c.out.peer_end_s[peer] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_serverless_tree(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<ServerlessTree>(system, s);
}

}  // namespace p2psim::simulation
