#include "schedule_check.hpp"

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

#include "compression.hpp"
#include "replay.hpp"
#include "zoo.hpp"

namespace p2psim::models {
namespace {

using nlohmann::json;

// The same bounds `p2psim run` holds an experiment to (sim/inputs/experiment.cpp, docs/limits.md).
constexpr long long kMaxPeers = 100000, kMaxIterations = 1 << 20, kMaxEvalEvery = 1 << 20, kMaxTestSamples = 10000;
constexpr long long kMaxInputSide = 4096, kMaxChannels = 64;
constexpr unsigned long long kMaxSeed = ~0ULL;

class Checker {
 public:
  explicit Checker(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument(path_ + ": field '" + field + "': " + what);
  }

  const json& member(const json& object, const std::string& prefix, const std::string& name) const {
    if (!object.contains(name)) fail(prefix + name, "missing");
    return object.at(name);
  }

  long long integer(const json& object, const std::string& prefix, const std::string& name, long long lo,
                    long long hi) const {
    const json& v = member(object, prefix, name);
    if (!v.is_number_integer()) fail(prefix + name, fmt::format("expected an integer from {} to {}, got {}", lo, hi, v.dump()));
    // An unsigned value above 2^63 would read as negative.
    const bool huge = v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi);
    if (huge || v.get<long long>() < lo || v.get<long long>() > hi)
      fail(prefix + name, fmt::format("expected an integer from {} to {}, got {}", lo, hi, v.dump()));
    return v.get<long long>();
  }

  double number(const json& object, const std::string& prefix, const std::string& name, double lo, double hi) const {
    const json& v = member(object, prefix, name);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
      fail(prefix + name, fmt::format("expected a number from {} to {}, got {}", lo, hi, v.dump()));
    return v.get<double>();
  }

  std::string text(const json& object, const std::string& prefix, const std::string& name) const {
    const json& v = member(object, prefix, name);
    if (!v.is_string()) fail(prefix + name, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }

  void boolean(const json& object, const std::string& prefix, const std::string& name) const {
    if (!member(object, prefix, name).is_boolean()) fail(prefix + name, "expected true or false");
  }

 private:
  std::string path_;
};

long long dataset_samples(const std::string& dataset) { return dataset == "cifar10" ? 50000 : 60000; }

// One update: [peer, iteration, time_s, cost_usd, "all" | [[producer, iteration], ...]], inside the run.
void check_update(const Checker& c, const json& u, const std::string& field, long long peers, long long iterations) {
  auto within = [&](const json& v, long long n, const char* what) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= n)
      c.fail(field, fmt::format("{} {} is not one of the schedule's {} (0 to {})", what, v.dump(), what, n - 1));
  };
  if (!u.is_array() || u.size() != 5)
    c.fail(field, "expected [peer, iteration, time_s, cost_usd, gradients], got " + u.dump().substr(0, 80));
  within(u[0], peers, "peers");
  within(u[1], iterations, "iterations");
  for (int k : {2, 3})
    if (!u[k].is_number() || !std::isfinite(u[k].get<double>()) || u[k].get<double>() < 0)
      c.fail(field, fmt::format("{} must be a number >= 0, got {}", k == 2 ? "time_s" : "cost_usd", u[k].dump()));
  const json& g = u[4];
  if (g.is_string()) {
    if (g.get<std::string>() != "all") c.fail(field, "gradients: expected \"all\" or a list, got " + g.dump());
    return;
  }
  if (!g.is_array() || g.empty()) c.fail(field, "gradients: expected \"all\" or a non-empty list of [peer, iteration]");
  for (const auto& v : g) {
    if (!v.is_array() || v.size() != 2) c.fail(field, "gradients: expected [peer, iteration] pairs, got " + v.dump());
    within(v[0], peers, "peers");
    within(v[1], iterations, "iterations");
  }
}

}  // namespace

void check_schedule(const json& s, const std::string& path, double available_bytes) {
  const Checker c(path);
  if (!s.is_object()) c.fail("(top)", "expected a JSON object");
  if (c.text(s, "", "format") != "p2psim-schedule/1")
    c.fail("format", "expected \"p2psim-schedule/1\" (a schedule.json written by `p2psim run`)");
  const json& seed = c.member(s, "", "seed");
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<long long>() >= 0))
    c.fail("seed", fmt::format("expected an integer from 0 to {}, got {}", kMaxSeed, seed.dump()));

  const json& t = c.member(s, "", "training");
  if (!t.is_object()) c.fail("training", "expected an object");
  const std::string p = "training.";
  const std::string model = c.text(t, p, "model");
  try {
    find_model(model);
  } catch (const std::invalid_argument& e) {
    c.fail(p + "model", e.what());
  }
  const std::string dataset = c.text(t, p, "dataset");
  if (dataset != "mnist" && dataset != "fashion_mnist" && dataset != "cifar10")
    c.fail(p + "dataset", "expected mnist, fashion_mnist or cifar10, got '" + dataset + "'");
  InputShape input{};
  try {
    input = parse_input_shape(c.text(t, p, "input_shape"));
  } catch (const std::invalid_argument& e) {
    c.fail(p + "input_shape", e.what());
  }
  if (input[0] < 1 || input[0] > kMaxChannels || input[1] < 1 || input[1] > kMaxInputSide || input[2] < 1 ||
      input[2] > kMaxInputSide)
    c.fail(p + "input_shape", fmt::format("expected 1 to {} channels of 1 to {} pixels a side", kMaxChannels, kMaxInputSide));
  c.integer(t, p, "classes", 10, 10);  // every dataset here has 10 classes
  const long long train = c.integer(t, p, "train_samples", 1, dataset_samples(dataset));
  const long long peers = c.integer(t, p, "peers", 1, kMaxPeers);
  // A shard and its minibatches: every peer's, or (peer_shards, when groups of peers hold shards of different
  // sizes) each group's.
  auto check_shard = [&](const json& object, const std::string& prefix, long long holders) {
    const long long shard = c.integer(object, prefix, "shard_samples", 1, train);
    if (holders * shard > train)
      c.fail(prefix + "shard_samples",
             fmt::format("{} peers x {} samples is more than the {} training samples", holders, shard, train));
    const json& batches = c.member(object, prefix, "minibatch_sizes");
    if (!batches.is_array() || batches.empty())
      c.fail(prefix + "minibatch_sizes", "expected a non-empty list of sample counts");
    long long in_batches = 0;
    for (const auto& b : batches) {
      if (!b.is_number_integer() || b.get<long long>() < 1 || b.get<long long>() > shard)
        c.fail(prefix + "minibatch_sizes", fmt::format("expected sample counts from 1 to {}, got {}", shard, b.dump()));
      in_batches += b.get<long long>();
    }
    if (in_batches > shard)
      c.fail(prefix + "minibatch_sizes",
             fmt::format("they add up to {} samples, more than the shard's {}", in_batches, shard));
    return shard;
  };
  // Every peer's samples together. With peer_shards, the top-level shard is the first group's only.
  const bool grouped = t.contains("peer_shards");
  long long shard_samples_total = peers * check_shard(t, p, grouped ? 1 : peers);
  if (grouped) {
    const json& groups = t.at("peer_shards");
    if (!groups.is_array() || groups.empty()) c.fail(p + "peer_shards", "expected a non-empty list of groups");
    long long holders = 0;
    shard_samples_total = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::string q = fmt::format("{}peer_shards[{}].", p, g);
      if (!groups[g].is_object()) c.fail(q.substr(0, q.size() - 1), "expected an object");
      const long long count = c.integer(groups[g], q, "peers", 1, kMaxPeers);
      holders += count;
      shard_samples_total += count * check_shard(groups[g], q, count);
    }
    if (holders != peers)
      c.fail(p + "peer_shards", fmt::format("its groups hold {} peers, not the schedule's {}", holders, peers));
    if (shard_samples_total > train)
      c.fail(p + "peer_shards", fmt::format("its shards hold {} samples, more than the {} training samples",
                                            shard_samples_total, train));
  }
  const long long iterations = c.integer(t, p, "iterations", 1, kMaxIterations);
  const std::string codec = c.text(t, p, "codec");
  if (codec != "none") try {
      parse_codec(codec);
    } catch (const std::invalid_argument& e) {
      c.fail(p + "codec", e.what());
    }
  c.number(t, p, "topk_ratio", 1e-9, 1);
  c.boolean(t, p, "error_feedback");
  c.number(t, p, "learning_rate", 1e-9, 1e3);
  c.number(t, p, "momentum", 0, 0.999999);
  c.integer(t, p, "eval_every", 1, kMaxEvalEvery);
  const long long test_samples = c.integer(t, p, "test_samples", 1, kMaxTestSamples);
  c.text(t, p, "data_dir");

  const json& systems = c.member(s, "", "systems");
  if (!systems.is_array()) c.fail("systems", "expected a list");
  for (size_t i = 0; i < systems.size(); ++i) {
    const json& sys = systems[i];
    const std::string q = fmt::format("systems[{}].", i);
    if (!sys.is_object()) c.fail(fmt::format("systems[{}]", i), "expected an object");
    c.text(sys, q, "name");
    c.boolean(sys, q, "replayable");
    if (!sys.at("replayable").get<bool>()) {
      c.text(sys, q, "why_not");
      continue;
    }
    const json& updates = c.member(sys, q, "updates");
    if (!updates.is_array()) c.fail(q + "updates", "expected a list");
    for (size_t k = 0; k < updates.size(); ++k)
      check_update(c, updates[k], fmt::format("{}updates[{}]", q, k), peers, iterations);
  }

  // What a replay holds: each peer's shard and model (weights, gradient, velocity, residual), the test set.
  if (available_bytes <= 0) return;
  const double pixels = static_cast<double>(input[0]) * input[1] * input[2];
  const double parameters = static_cast<double>(parameter_count(*build_model(model, 10, input)));
  const double need = 4 * pixels * (static_cast<double>(shard_samples_total) + static_cast<double>(test_samples)) +
                      4 * 4 * parameters * static_cast<double>(peers);
  if (need > 0.8 * available_bytes)
    c.fail(p + "peers", fmt::format("replaying {} peers of {} would hold about {:.1f} GB, more than 80 % of the {:.1f} GB "
                                    "this machine has available", peers, model, need / 1e9, available_bytes / 1e9));
}

}  // namespace p2psim::models
