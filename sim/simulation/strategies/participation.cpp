#include "participation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace p2psim::simulation {

Participation Participation::read(StrategyParams& params, const Scenario& s) {
  Participation p;
  p.peers_ = s.experiment.peers;
  p.per_round_ = p.peers_;
  if (params.has("participation") && params.has("participants_per_round"))
    throw params.error("participants_per_round", "give participation (a share) or participants_per_round (a count), "
                                                 "not both");
  if (params.has("participation")) {
    const double share = params.number("participation", 0, 1, 1);
    if (share <= 0) throw params.error("participation", "expected a share of the peers in (0, 1], got 0");
    // To the nearest count, at least one: a sampler of clients takes one at least.
    p.per_round_ = std::max(1, static_cast<int>(std::llround(share * p.peers_)));
  } else {
    p.per_round_ = static_cast<int>(params.integer("participants_per_round", 1, p.peers_, p.peers_));
  }
  return p;
}

void Participation::draw(const Random& random, int rounds) {
  if (!partial()) return;
  members_.assign(static_cast<size_t>(rounds), {});
  std::vector<int> pool(static_cast<size_t>(peers_));
  for (int round = 0; round < rounds; ++round) {
    // The first per_round_ places of a Fisher-Yates shuffle: a uniform sample without replacement.
    std::iota(pool.begin(), pool.end(), 0);
    auto draws = random.stream(Draw::Participation, {round});
    for (int i = 0; i < per_round_; ++i) {
      const int left = peers_ - i;
      const int j = i + std::min(left - 1, static_cast<int>(draws.uniform() * left));
      std::swap(pool[static_cast<size_t>(i)], pool[static_cast<size_t>(j)]);
    }
    auto& members = members_[static_cast<size_t>(round)];
    members.assign(pool.begin(), pool.begin() + per_round_);
    std::sort(members.begin(), members.end());
  }
}

int Participation::rank(int round, int peer) const {
  if (!partial()) return peer;
  const auto& members = members_[static_cast<size_t>(round)];
  const auto it = std::lower_bound(members.begin(), members.end(), peer);
  return it != members.end() && *it == peer ? static_cast<int>(it - members.begin()) : -1;
}

std::vector<GradientVersion> Participation::gradients(int round, int peer) const {
  if (!partial()) return {};
  std::vector<GradientVersion> out;
  out.reserve(static_cast<size_t>(per_round_));
  if (takes_part(round, peer)) out.push_back({peer, round});
  for (int q : members_[static_cast<size_t>(round)])
    if (q != peer) out.push_back({q, round});
  return out;
}

}  // namespace p2psim::simulation
