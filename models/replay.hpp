// Real training on a simulated schedule: each peer's model, its data shard, real gradients, the real codec
// (top-k's error feedback included), and exactly the gradient versions each update averaged, stale or missing
// as the schedule says. See docs/time_to_accuracy.md.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "replay_data.hpp"

namespace p2psim::models {

/// One iteration of a replayed system: the training loss of the gradients computed in it (mean over the peers
/// that computed one) and, every eval_every iterations and at the last, the test loss and accuracy of the
/// models after their update (mean over the peers that made it).
struct ReplayPoint {
  int iteration = 0;
  double train_loss = 0;
  bool evaluated = false;
  double test_loss = 0, test_accuracy = 0;
  int peers_evaluated = 0;
};

/// Trains one system's schedule: `training` is the schedule's "training" object, `updates` one system's
/// "updates" array (docs/time_to_accuracy.md). Throws std::invalid_argument when the schedule is inconsistent (a
/// gradient used before it could exist, an unknown peer).
std::vector<ReplayPoint> replay_updates(const nlohmann::json& training, unsigned long long seed,
                                        const nlohmann::json& updates, const ReplayData& data, std::ostream& log);

/// One peer's data: how many training samples its shard holds, and its minibatches' sizes, in order.
struct PeerShard {
  long long samples = 0;
  std::vector<int64_t> minibatches;
};
/// Every peer's, from a schedule's "training" object: shard_samples and minibatch_sizes for all, or, when groups
/// of peers hold shards of different sizes, peer_shards (each group's, peers in order).
std::vector<PeerShard> peer_shards(const nlohmann::json& training);

/// A schedule's input_shape ("CxHxW"). Throws std::invalid_argument when it is not one.
InputShape parse_input_shape(const std::string& text);

}  // namespace p2psim::models
