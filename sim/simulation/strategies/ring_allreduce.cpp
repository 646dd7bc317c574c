// Ring all-reduce among instance peers (Patarasuk & Yuan 2009, https://doi.org/10.1016/j.jpdc.2008.09.002;
// as Horovod and NCCL run it): each peer computes its gradient, then the gradient, cut into N chunks, goes
// round the ring over peer-to-peer links — N-1 reduce-scatter steps (send a chunk to the next peer, receive
// one from the previous, add it) and N-1 all-gather steps (pass the finished chunks on) — so every peer
// sends 2(N-1) messages of |g|/N bytes. Then each peer applies the update. No broker, no object storage
// beyond loading the data shard.
//
// Each phase's N-1 steps are simulated as one (scale: 2(N-1) steps per peer per iteration are 2 billion comms at
// 1,024 peers x 100 iterations). Why that is exact when every step takes the same time δ: peer p finishes step k
// once it has finished step k-1 and its predecessor has too, so its last step ends at the latest of every path
// of N-1 steps back through the ring, each step adding δ; every path reaches back to every peer, so all peers end
// the phase at (the last peer ready) + (N-1)δ. Here: a barrier (the last peer ready), one step simulated for real
// (its chunk and acks share the links as in every other step), the remaining N-2 steps' CPU run for real and their
// transfer time repeated, and a barrier again, so the ring moves at the pace of its slowest member. When steps
// differ between peers (a straggler's slower CPU), the step-by-step ring lets peers downstream of a fast stretch
// finish a few steps' worth of the difference sooner; this model gives every peer the slowest peer's pace, an
// upper bound (docs/architecture.md, "Scale").
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
    n.peer_ring = true;  // each peer sends only to the next
    return n;
  }
  // Per peer-iteration 4 phases (compute, reduce-scatter, all-gather, update).
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    Footprint f = gradient_functions_footprint(s_, compute_);
    f.actors += P + 1;
    f.trace_rows += P + 4 * P * T;
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "peer_to_peer"; }

 private:
  void peer(Context& c, int peer);
  void steps(Context& c, int peer, int count, double cpu_before_s, double cpu_after_s);
  const Scenario& s_;
  GradientCompute compute_;
  std::vector<std::unique_ptr<sg::Channel>> inbox_;  // per peer: messages from its predecessor
  std::unique_ptr<sg::Barrier> in_step_;  // every peer at the same point of the ring
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
  in_step_ = std::make_unique<sg::Barrier>(c.peers());
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

// `count` ring steps: each runs `cpu_before_s` (encoding), passes a chunk to the next peer while receiving one
// from the previous, then runs `cpu_after_s` (decoding, adding). One step is simulated, the rest repeated.
void RingAllReduce::steps(Context& c, int peer, int count, double cpu_before_s, double cpu_after_s) {
  if (count == 0) return;
  const int n = c.peers();
  in_step_->wait();
  peer_cpu(c, peer, cpu_before_s);
  const double transfer_start = sg::now();
  auto sending = inbox_[(peer + 1) % n]->send_async(s_.exchange_bytes / n);  // the gradient as it travels
  inbox_[peer]->receive();
  sending.wait();
  const double transfer_s = sg::now() - transfer_start;
  peer_cpu(c, peer, cpu_after_s);
  if (count == 1) return;
  peer_cpu(c, peer, (count - 1) * (cpu_before_s + cpu_after_s));
  sg::sleep_for((count - 1) * transfer_s);
  in_step_->wait();
}

void RingAllReduce::peer(Context& c, int peer) {
  const int n = c.peers();
  const double chunk_elements = static_cast<double>(s_.parameters) / n;
  if (!start_peer(c, peer, compute_)) return;
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    if (!compute_gradient(c, peer, it, compute_)) break;
    const double reduce_start = sg::now();
    // reduce-scatter: receive a partial sum, add ours to it
    steps(c, peer, n - 1, s_.encode_s / n, s_.decode_s / n + s_.average_seconds(chunk_elements, 2));
    c.trace(peer, it, Phase::ReduceScatter, reduce_start);
    const double gather_start = sg::now();
    if (n > 1) peer_cpu(c, peer, s_.encode_s / n);  // the finished chunk, encoded once, then passed round
    steps(c, peer, n - 1, 0, s_.decode_s / n);  // all-gather: pass the finished chunks round, decoding each
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
