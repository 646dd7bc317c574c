// Ring all-reduce among instance peers (Patarasuk & Yuan 2009, https://doi.org/10.1016/j.jpdc.2008.09.002;
// as Horovod and NCCL run it): each peer computes its gradient, then the gradient, cut into N chunks, goes
// round the ring over peer-to-peer links — N-1 reduce-scatter steps (send a chunk to the next peer, receive
// one from the previous, add it) and N-1 all-gather steps (pass the finished chunks on) — so every peer
// sends 2(N-1) messages of |g|/N bytes. Then each peer applies the update. No broker, no object storage
// beyond loading the data shard.
#include <fmt/core.h>

#include "gradient.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class RingAllReduce : public Strategy {
 public:
  RingAllReduce(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    // Functions publish their gradients' keys through the broker (the paper's lambda queues).
    PlatformNeeds n = gradient_needs(s_, compute_);
    n.peer_to_peer = true;
    return n;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "peer_to_peer"; }

 private:
  void peer(Context& c, int peer);
  const Scenario& s_;
  GradientCompute compute_;
  std::vector<std::unique_ptr<sg::Channel>> inbox_;  // per peer: messages from its predecessor
};

RingAllReduce::RingAllReduce(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  compute_ = read_gradient_compute(params, s, "peer");
  params.reject_unread();
  const auto& e = s.experiment;
  // A ring is synchronous by construction and stalls when a member dies; top-k chunks cannot be summed in place.
  refuse_unmodelled(params, e, "ring_allreduce", kAsync | kCrash | kTopK);
}

void RingAllReduce::launch(Context& c) {
  for (int i = 0; i < c.peers(); ++i) inbox_.push_back(std::make_unique<sg::Channel>(fmt::format("ring-{}", i)));
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

void RingAllReduce::peer(Context& c, int peer) {
  const int n = c.peers();
  const double chunk_elements = static_cast<double>(s_.parameters) / n;
  const double chunk_bytes = s_.exchange_bytes / n;  // the gradient as it travels (compressed if declared)
  sg::Channel& next = *inbox_[(peer + 1) % n];
  sg::Channel& mine = *inbox_[peer];
  if (!start_peer(c, peer, compute_)) return;
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    if (!compute_gradient(c, peer, it, compute_)) break;
    const double reduce_start = sg::now();
    for (int step = 0; step < n - 1; ++step) {  // reduce-scatter: receive a partial sum, add ours to it
      peer_cpu(c, peer, s_.encode_s / n);
      auto sending = next.send_async(chunk_bytes);
      mine.receive();
      sending.wait();
      peer_cpu(c, peer, s_.decode_s / n + s_.average_seconds(chunk_elements, 2));
    }
    c.trace(peer, it, Phase::ReduceScatter, reduce_start);
    const double gather_start = sg::now();
    if (n > 1) peer_cpu(c, peer, s_.encode_s / n);  // the finished chunk, encoded once, then passed round
    for (int step = 0; step < n - 1; ++step) {  // all-gather: pass the finished chunks round, decoding each
      auto sending = next.send_async(chunk_bytes);
      mine.receive();
      sending.wait();
      peer_cpu(c, peer, s_.decode_s / n);
    }
    c.trace(peer, it, Phase::AllGather, gather_start);
    apply_update(c, peer, it);  // every peer holds the sum of all gradients
  }
  c.out.peer_end_s[peer] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_ring_allreduce(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<RingAllReduce>(system, s);
}

}  // namespace p2psim::simulation
