// Partial participation: each round only some of the peers compute and send a gradient, as federated and
// serverless-FL rounds sample their clients (McMahan et al., "Communication-Efficient Learning of Deep Networks
// from Decentralized Data", AISTATS 2017, https://arxiv.org/abs/1602.05629: a fraction C of the clients per
// round; λ-FL and LIFL aggregate the round's participants only). The others wait for the round's average and
// apply it, so every peer's model stays the one the participants' gradients were computed on. Who takes part
// is drawn with the experiment's seed, per round, and the same for every system of the experiment that samples
// as many (common random numbers): two designs then average the same gradients.
#pragma once
#include <vector>

#include "../../records/run_output.hpp"
#include "../../scenario/scenario.hpp"
#include "../random.hpp"
#include "params.hpp"

namespace p2psim::simulation {

class Participation {
 public:
  /// Reads a <system>'s participation (a share of the peers, in (0, 1]) or participants_per_round (a count,
  /// 1..peers); at most one of them. Every peer takes part when neither is given.
  static Participation read(StrategyParams& params, const Scenario& s);

  /// Peers taking part in each round.
  int per_round() const { return per_round_; }
  bool partial() const { return per_round_ < peers_; }
  /// Draws every round's participants from the run's random streams (call once, before the peers start).
  void draw(const Random& random, int rounds);
  /// The peer's place among round `round`'s participants (by ascending peer id), or -1 when it sits out.
  int rank(int round, int peer) const;
  bool takes_part(int round, int peer) const { return rank(round, peer) >= 0; }
  /// The gradients a peer averages in round `round`: the participants', its own first when it took part.
  /// Empty when every peer takes part (the schedule's "all").
  std::vector<GradientVersion> gradients(int round, int peer) const;
  /// The gradient versions a run's schedule lists (each peer's update names the round's participants), for its
  /// footprint: none when every peer takes part ("all") or no accuracy is asked for.
  double schedule_versions(const Scenario& s) const {
    if (!partial() || !s.experiment.accuracy.enabled) return 0;
    return static_cast<double>(peers_) * s.experiment.workload.iterations * per_round_;
  }

 private:
  int peers_ = 0, per_round_ = 0;
  std::vector<std::vector<int>> members_;  // per round: its participants, ascending
};

}  // namespace p2psim::simulation
