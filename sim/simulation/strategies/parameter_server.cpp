// A parameter server (Li et al., "Scaling Distributed Machine Learning with the Parameter Server", OSDI 2014,
// https://www.usenix.org/conference/osdi14/technical-sessions/presentation/li_mu; as MXNet's kvstore and
// PyTorch's RPC examples run it): the model is split into S shards, each held by a server instance. Each
// iteration every peer pushes its gradient's slice to every shard (all at once), and pulls the updated
// parameter slices back. Synchronous: a shard waits for all N pushes, sums them and applies the update, then
// serves the pulls. Asynchronous (<synchronization mode="async" staleness_bound="k">): a shard applies each
// push as it arrives, and a peer pulls once its push is applied and it is no more than k iterations ahead
// of the slowest peer. Peers talk to the servers directly (no broker, no object storage for gradients).
// With partial participation (synchronous only; participation="0.1" or participants_per_round,
// participation.hpp) a shard waits for the round's participants' pushes; every peer pulls the parameters.
// Synchronous peers that share nothing but the servers are computed rather than actors where they can be
// (computed_server_peers.hpp): then only the servers are actors.
#include <fmt/core.h>

#include <algorithm>

#include "computed_server_peers.hpp"
#include "gradient.hpp"
#include "participation.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class ParameterServer : public Strategy {
 public:
  ParameterServer(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    PlatformNeeds n = gradient_needs(s_, compute_);
    for (int k = 0; k < shards_; ++k) n.servers.push_back({"ps-" + std::to_string(k), server_type_});
    return n;
  }
  // Per peer-iteration 3 phases (compute, push, pull); a server's apply per iteration, per push when async,
  // and each async update's staleness.
  Footprint footprint(bool exact_participants) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    const double S = shards_;
    Footprint f = gradient_functions_footprint(s_, compute_);
    const bool computed = !exact_participants && server_peers_computable(s_, compute_, async_, round(), transfers());
    f.actors += (computed ? 1 : P) + S + 1;
    f.trace_rows += P + 3 * P * T + (async_ ? S * P * T : S * T);
    f.deliveries = async_ ? P * T : participation_.schedule_versions(s_);
    if (!computed) {
      f.max_peers = 4096;
      f.max_peers_why = "its peers are actors here (--exact-participants, asynchronous, computing through functions, "
                        "or an \"up to\" NIC that could run out of credits): P x servers flows share the servers' "
                        "NICs and SimGrid re-solves them all at each event, a simulation's time grows about as P^3 "
                        "(4,000 mnist_cnn peers x 2 iterations, 4 servers: 189 s, 2026-12-03)";
    }
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "parameter_server"; }

 private:
  void peer(Context& c, int peer);
  void server(Context& c, int shard);
  int slowest() const { return *std::min_element(pushed_.begin(), pushed_.end()); }
  ServerRound round() const {
    return {shards_, &s_.profile.instance_types.at(server_type_), s_.exchange_bytes / shards_,
            static_cast<double>(s_.gradient_bytes) / shards_};
  }

  const Scenario& s_;
  GradientCompute compute_;
  Participation participation_;
  int shards_ = 1;
  std::string server_type_;
  bool async_ = false;
  std::vector<int> pushed_;  // per peer: iterations pushed so far (to every shard)
  // Synchronous: per shard and iteration, the pushes it holds (only its server waits on it); per iteration,
  // the shards whose parameters are updated and served (the peers wait on it). One wake-up of each peer per
  // shard and round: one Signal for every push and publication woke every waiting peer at each, P^2 wake-ups
  // a round.
  std::vector<std::vector<sg::Counter>> held_;
  std::vector<sg::Counter> published_;
  // Asynchronous: per shard, pushes waiting to be applied (peer ids in arrival order); per shard and peer, the
  // iterations applied; and a signal for any push or application.
  std::vector<std::vector<int>> queue_;
  std::vector<std::vector<int>> applied_;
  sg::Signal changed_;
  std::unique_ptr<ComputedServerPeers> computed_;  // the peers, where they are computed rather than actors
};

ParameterServer::ParameterServer(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  compute_ = read_gradient_compute(params, s, "peer");
  participation_ = Participation::read(params, s);
  shards_ = static_cast<int>(params.integer("servers", 1, 1024, 1));
  server_type_ = params.choice("server_type", [&] {
    std::vector<std::string> types;
    for (const auto& [name, type] : s.profile.instance_types) types.push_back(name);
    return types;
  }(), s.peer_groups[0].type.name);  // the first group's type, when peers are of several
  params.reject_unread();
  const auto& e = s.experiment;
  async_ = e.asynchronous;
  if (async_ && participation_.partial())
    throw params.error(params.has("participation") ? "participation" : "participants_per_round",
                       "partial participation samples the peers of a synchronous round; an asynchronous parameter "
                       "server has no rounds: remove it or <synchronization mode=\"async\">");
  refuse_unmodelled(params, e, "parameter_server", kCrash | kTopK);
  const int n = e.peers;
  pushed_.assign(n, 0);
  const auto iterations = static_cast<size_t>(e.workload.iterations);
  if (async_) {
    queue_.assign(shards_, {});
    applied_.assign(shards_, std::vector<int>(n, 0));
  } else {
    held_.assign(shards_, std::vector<sg::Counter>(iterations));
    published_.resize(iterations);
  }
}

void ParameterServer::launch(Context& c) {
  participation_.draw(c.random, s_.experiment.workload.iterations);
  c.out.participation = static_cast<double>(participation_.per_round()) / c.peers();
  for (int k = 0; k < shards_; ++k)
    sg::spawn("ps-" + std::to_string(k), c.hosts.servers[k], [this, &c, k] { server(c, k); });
  if (!c.exact_participants && server_peers_computable(s_, compute_, async_, round(), transfers())) {
    computed_ = std::make_unique<ComputedServerPeers>(c, participation_, round(), [this](int, int iteration) {
      for (int j = 0; j < shards_; ++j) held_[j][iteration].add();
    });
    computed_->launch();
    return;
  }
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

void ParameterServer::server(Context& c, int shard) {
  sg::Host* host = c.hosts.servers[shard];
  const double elements = static_cast<double>(s_.parameters) / shards_;
  const int n = participation_.per_round();  // pushes a synchronous round waits for
  const int iterations = static_cast<int>(s_.experiment.workload.iterations);
  if (!async_) {
    for (int it = 0; it < iterations; ++it) {
      held_[shard][it].wait_for(n);
      const double start = sg::now();  // decode the N slices, sum them, apply the SGD step
      sg::compute(host, n * s_.decode_s / shards_ + s_.average_seconds(elements, n) + s_.average_seconds(elements, 2));
      c.trace(-1, it, Phase::AggregateUpdate, start, shard);
      published_[it].add();
      if (computed_ && published_[it].value() == shards_) computed_->round_ready(it);
    }
  } else {
    for (int applied = 0; applied < n * iterations; ++applied) {
      changed_.wait_for([&] { return !queue_[shard].empty(); });
      const int peer = queue_[shard].front();
      queue_[shard].erase(queue_[shard].begin());
      const double start = sg::now();  // decode one slice and apply it
      sg::compute(host, s_.decode_s / shards_ + s_.average_seconds(elements, 2));
      c.trace(-1, applied_[shard][peer], Phase::AggregateUpdate, start, shard);
      ++applied_[shard][peer];
      changed_.notify_all();
    }
  }
}

void ParameterServer::peer(Context& c, int peer) {
  const int k = s_.experiment.staleness_bound;
  const double push_bytes = s_.exchange_bytes / shards_;                           // gradient slices, as encoded
  const double pull_bytes = static_cast<double>(s_.gradient_bytes) / shards_;  // parameters: float32
  if (!start_peer(c, peer, compute_)) return;
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    double receive_start = sg::now();
    if (participation_.takes_part(it, peer)) {
      if (!compute_gradient(c, peer, it, compute_)) break;
      const double send_start = sg::now();
      peer_cpu(c, peer, s_.encode_s);
      std::vector<sg::Transfer> pushes;
      for (int j = 0; j < shards_; ++j) pushes.push_back({c.hosts.peers[peer], c.hosts.servers[j], push_bytes});
      sg::transfer_all(pushes);
      c.trace(peer, it, Phase::Send, send_start);
      receive_start = sg::now();
      ++pushed_[peer];
      if (async_) {
        for (int j = 0; j < shards_; ++j) queue_[j].push_back(peer);
        changed_.notify_all();
      } else {
        for (int j = 0; j < shards_; ++j) held_[j][it].add();
      }
    }
    if (async_) {
      changed_.wait_for([&] {
        for (int j = 0; j < shards_; ++j)
          if (applied_[j][peer] <= it) return false;
        return slowest() >= it + 1 - k;  // no more than k iterations ahead of the slowest
      });
      c.out.staleness.push_back(std::max(0, it + 1 - slowest()));
    } else {
      published_[it].wait_for(shards_);
    }
    std::vector<sg::Transfer> pulls;
    for (int j = 0; j < shards_; ++j) pulls.push_back({c.hosts.servers[j], c.hosts.peers[peer], pull_bytes});
    sg::transfer_all(pulls);
    c.trace(peer, it, Phase::Receive, receive_start);
    if (async_) {
      // A shard applies each push to the one global model as it arrives: not a set of gradients averaged
      // into a peer's model, which is all a schedule can say yet.
      ++c.out.iterations_done[peer];
      c.out.schedule_unsupported = "an asynchronous parameter server updates one global model push by push";
    } else {
      // The pulled parameters hold every participant's gradient of `it`.
      c.complete_iteration(peer, it, participation_.gradients(it, peer));
    }
  }
  c.out.peer_end_s[peer] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_parameter_server(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<ParameterServer>(system, s);
}

}  // namespace p2psim::simulation
