#include "replay.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "compression.hpp"
#include "zoo.hpp"

namespace p2psim::models {
namespace {

using Version = std::pair<int, int>;  // (producer, iteration)

struct ScheduledUpdate {
  int peer = 0, iteration = 0;
  std::vector<Version> gradients;  // the peer's own first
};

struct Gradient {
  torch::Tensor own;   // as computed: what its producer averages
  torch::Tensor sent;  // as the others receive it: encoded and decoded by the codec
  int uses_left = 0;
};

// The schedule's updates with "all" spelled out: every peer that makes an update at that iteration.
std::vector<ScheduledUpdate> read_updates(const nlohmann::json& updates, int peers, int iterations) {
  std::map<int, std::set<int>> updaters;  // iteration -> peers, ascending (the sum's order, whatever the timing)
  for (const auto& u : updates) updaters[u.at(1).get<int>()].insert(u.at(0).get<int>());
  std::vector<ScheduledUpdate> out;
  for (const auto& u : updates) {
    ScheduledUpdate s{u.at(0).get<int>(), u.at(1).get<int>(), {}};
    if (s.peer < 0 || s.peer >= peers || s.iteration < 0 || s.iteration >= iterations)
      throw std::invalid_argument(fmt::format("update of peer {} at iteration {}: outside {} peers x {} iterations",
                                              s.peer, s.iteration, peers, iterations));
    const auto& g = u.at(4);
    if (g.is_string()) {
      if (g.get<std::string>() != "all") throw std::invalid_argument("gradients: expected \"all\" or a list");
      s.gradients.push_back({s.peer, s.iteration});
      for (int q : updaters[s.iteration])
        if (q != s.peer) s.gradients.push_back({q, s.iteration});
    } else {
      for (const auto& v : g) s.gradients.push_back({v.at(0).get<int>(), v.at(1).get<int>()});
      // A peer that sat the round out (partial participation) averages the others' gradients only.
      const Version own{s.peer, s.iteration};
      if (s.gradients.empty() ||
          (s.gradients.front() != own && std::find(s.gradients.begin(), s.gradients.end(), own) != s.gradients.end()))
        throw std::invalid_argument(fmt::format("update of peer {} at iteration {}: its own gradient must come first",
                                                s.peer, s.iteration));
    }
    for (const auto& [q, it] : s.gradients)
      if (q < 0 || q >= peers || it < 0 || it >= iterations)
        throw std::invalid_argument(fmt::format("update of peer {} at iteration {} averages gradient ({}, {}): no "
                                                "such peer or iteration", s.peer, s.iteration, q, it));
    out.push_back(std::move(s));
  }
  return out;
}

class Replayer {
 public:
  Replayer(const nlohmann::json& t, unsigned long long seed, const ReplayData& data, std::ostream& log)
      : data_(data), log_(log) {
    peers_ = t.at("peers");
    iterations_ = t.at("iterations");
    for (const auto& shard : peer_shards(t)) minibatches_.push_back(shard.minibatches);
    learning_rate_ = t.at("learning_rate");
    momentum_ = t.at("momentum");
    eval_every_ = t.at("eval_every");
    topk_ratio_ = t.at("topk_ratio");
    error_feedback_ = t.at("error_feedback");
    const std::string codec = t.at("codec");
    if (codec != "none") codec_ = parse_codec(codec);
    const auto input = parse_input_shape(t.at("input_shape"));
    const std::string model = t.at("model");
    for (int p = 0; p < peers_; ++p) {
      torch::manual_seed(seed);  // every peer starts from the same initial model
      nets_.push_back(build_model(model, t.at("classes").get<int64_t>(), input));
      codec_rng_.push_back(at::detail::createCPUGenerator(seed + 1 + static_cast<unsigned long long>(p)));
    }
    seed_ = seed;
    const int64_t n = parameter_count(*nets_[0]);
    for (int p = 0; p < peers_; ++p) {  // one tensor each: assign() would copy one handle to every peer
      velocity_.push_back(torch::zeros({n}));
      residual_.push_back(torch::zeros({n}));
    }
    points_.resize(static_cast<size_t>(iterations_));
    for (int i = 0; i < iterations_; ++i) points_[static_cast<size_t>(i)].iteration = i;
    train_loss_count_.assign(static_cast<size_t>(iterations_), 0);
  }

  std::vector<ReplayPoint> run(const std::vector<ScheduledUpdate>& updates) {
    // Which gradients are needed, how often, and at which iterations each peer updates.
    std::vector<std::set<int>> needed(static_cast<size_t>(peers_)), updating(static_cast<size_t>(peers_));
    std::map<Version, int> uses;
    for (const auto& u : updates) {
      updating[static_cast<size_t>(u.peer)].insert(u.iteration);
      for (const auto& v : u.gradients) {
        ++uses[v];
        needed[static_cast<size_t>(v.first)].insert(v.second);
      }
    }
    // A peer computes each gradient on its model as it stands after its last update before that iteration.
    auto compute_up_to = [&](int p, int after, std::optional<int> through) {
      for (int s : needed[static_cast<size_t>(p)])
        if (s > after && (!through || s <= *through)) produce(p, s, uses.at({p, s}));
    };
    auto next_update = [&](int p, int after) -> std::optional<int> {
      const auto& u = updating[static_cast<size_t>(p)];
      auto it = u.upper_bound(after);
      return it == u.end() ? std::nullopt : std::optional<int>(*it);
    };
    for (int p = 0; p < peers_; ++p) compute_up_to(p, -1, next_update(p, -1));
    size_t done = 0;
    for (const auto& u : updates) {
      apply(u);
      if ((u.iteration + 1) % eval_every_ == 0 || u.iteration == iterations_ - 1) evaluate(u.peer, u.iteration);
      compute_up_to(u.peer, u.iteration, next_update(u.peer, u.iteration));
      if (++done % 100 == 0 || done == updates.size())
        log_ << fmt::format("  {}/{} updates applied\n", done, updates.size()) << std::flush;
    }
    std::vector<ReplayPoint> out;
    for (size_t i = 0; i < points_.size(); ++i)
      if (train_loss_count_[i] > 0 || points_[i].evaluated) {
        auto p = points_[i];
        if (train_loss_count_[i] > 0) p.train_loss /= train_loss_count_[i];
        if (p.peers_evaluated > 0) {
          p.test_loss /= p.peers_evaluated;
          p.test_accuracy /= p.peers_evaluated;
        }
        out.push_back(p);
      }
    return out;
  }

 private:
  // The gradient of peer p's model on its whole shard, minibatch by minibatch, equal-weight mean of the
  // minibatch gradients (as the peer averages its functions' gradients, or its own minibatches').
  void produce(int p, int iteration, int uses) {
    // Dropout's draws depend on who computes the gradient and of which iteration, not on when the replay gets
    // to it: two schedules that average the same gradients (e.g. two synchronous designs) train the same model.
    torch::manual_seed(seed_ ^ (0x9E3779B97F4A7C15ULL * (static_cast<unsigned long long>(p) * 1000003ULL +
                                                        static_cast<unsigned long long>(iteration) + 1)));
    auto& net = *nets_[static_cast<size_t>(p)];
    net.train();
    net.zero_grad();
    const auto& x = data_.shard_inputs[static_cast<size_t>(p)];
    const auto& y = data_.shard_targets[static_cast<size_t>(p)];
    const auto& minibatches = minibatches_[static_cast<size_t>(p)];
    const double m = static_cast<double>(minibatches.size());
    double loss_sum = 0;
    int64_t begin = 0;
    for (int64_t b : minibatches) {
      auto loss = torch::nn::functional::cross_entropy(net.forward(x.narrow(0, begin, b)), y.narrow(0, begin, b));
      (loss / m).backward();
      loss_sum += loss.item<double>();
      begin += b;
    }
    std::vector<torch::Tensor> parts;
    for (const auto& param : net.parameters())
      parts.push_back(param.grad().defined() ? param.grad().flatten().clone() : torch::zeros({param.numel()}));
    Gradient g{torch::cat(parts), {}, uses};
    g.sent = encode_for_others(p, g.own);
    store_[{p, iteration}] = std::move(g);
    points_[static_cast<size_t>(iteration)].train_loss += loss_sum / m;
    ++train_loss_count_[static_cast<size_t>(iteration)];
  }

  // What the other peers receive: the codec applied for real, what it left out carried to the next gradient
  // when error feedback is on.
  torch::Tensor encode_for_others(int p, const torch::Tensor& g) {
    if (!codec_) return g;
    auto& residual = residual_[static_cast<size_t>(p)];
    const auto input = error_feedback_ ? g + residual : g;
    const auto decoded = decode(*codec_, encode(*codec_, input, topk_ratio_, codec_rng_[static_cast<size_t>(p)]), input.numel());
    if (error_feedback_) residual = input - decoded;
    return decoded;
  }

  // Equal-weight mean of the scheduled gradients, then SGD with momentum on the peer's own model.
  void apply(const ScheduledUpdate& u) {
    torch::Tensor sum;
    for (const auto& v : u.gradients) {
      auto it = store_.find(v);
      if (it == store_.end())
        throw std::invalid_argument(fmt::format("update of peer {} at iteration {} averages gradient ({}, {}) before "
                                                "its producer could compute it", u.peer, u.iteration, v.first, v.second));
      const auto& g = v.first == u.peer ? it->second.own : it->second.sent;
      sum = sum.defined() ? sum + g : g.clone();
      if (--it->second.uses_left == 0) store_.erase(it);
    }
    auto& velocity = velocity_[static_cast<size_t>(u.peer)];
    velocity.mul_(momentum_).add_(sum / static_cast<double>(u.gradients.size()));
    torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (auto& param : nets_[static_cast<size_t>(u.peer)]->parameters()) {
      param.sub_(velocity.narrow(0, offset, param.numel()).view_as(param) * learning_rate_);
      offset += param.numel();
    }
  }

  // Test loss and accuracy of the peer's model; a model identical to the one just evaluated (synchronous peers
  // without compression) is not evaluated again.
  void evaluate(int p, int iteration) {
    auto& net = *nets_[static_cast<size_t>(p)];
    torch::NoGradGuard no_grad;
    auto params = torch::nn::utils::parameters_to_vector(net.parameters());
    if (!(last_params_.defined() && last_iteration_ == iteration && torch::equal(params, last_params_))) {
      net.eval();
      double loss = 0;
      int64_t correct = 0;
      const int64_t n = data_.test_inputs.size(0);
      for (int64_t begin = 0; begin < n; begin += 500) {
        const int64_t b = std::min<int64_t>(500, n - begin);
        auto out = net.forward(data_.test_inputs.narrow(0, begin, b));
        auto y = data_.test_targets.narrow(0, begin, b);
        loss += torch::nn::functional::cross_entropy(out, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)).item<double>();
        correct += out.argmax(1).eq(y).sum().item<int64_t>();
      }
      last_loss_ = loss / static_cast<double>(n);
      last_accuracy_ = static_cast<double>(correct) / static_cast<double>(n);
      last_params_ = params;
      last_iteration_ = iteration;
    }
    auto& point = points_[static_cast<size_t>(iteration)];
    point.evaluated = true;
    point.test_loss += last_loss_;
    point.test_accuracy += last_accuracy_;
    ++point.peers_evaluated;
  }

  const ReplayData& data_;
  std::ostream& log_;
  unsigned long long seed_ = 0;
  int peers_ = 0, iterations_ = 0, eval_every_ = 1;
  std::vector<std::vector<int64_t>> minibatches_;  // per peer
  double learning_rate_ = 0, momentum_ = 0, topk_ratio_ = 0;
  bool error_feedback_ = false;
  std::optional<Codec> codec_;
  std::vector<NetPtr> nets_;
  std::vector<at::Generator> codec_rng_;
  std::vector<torch::Tensor> velocity_, residual_;
  std::map<Version, Gradient> store_;
  std::vector<ReplayPoint> points_;
  std::vector<int> train_loss_count_;
  torch::Tensor last_params_;
  int last_iteration_ = -1;
  double last_loss_ = 0, last_accuracy_ = 0;
};

}  // namespace

std::vector<ReplayPoint> replay_updates(const nlohmann::json& training, unsigned long long seed,
                                        const nlohmann::json& updates, const ReplayData& data, std::ostream& log) {
  Replayer r(training, seed, data, log);
  return r.run(read_updates(updates, training.at("peers"), training.at("iterations")));
}

std::vector<PeerShard> peer_shards(const nlohmann::json& t) {
  std::vector<PeerShard> out;
  if (!t.contains("peer_shards")) {
    out.assign(t.at("peers").get<size_t>(), {t.at("shard_samples").get<long long>(),
                                             t.at("minibatch_sizes").get<std::vector<int64_t>>()});
    return out;
  }
  for (const auto& g : t.at("peer_shards"))
    out.insert(out.end(), g.at("peers").get<size_t>(),
               {g.at("shard_samples").get<long long>(), g.at("minibatch_sizes").get<std::vector<int64_t>>()});
  return out;
}

InputShape parse_input_shape(const std::string& text) {
  InputShape s{};
  if (std::sscanf(text.c_str(), "%ldx%ldx%ld", &s[0], &s[1], &s[2]) != 3)
    throw std::invalid_argument("input_shape '" + text + "' is not CxHxW");
  return s;
}

}  // namespace p2psim::models
