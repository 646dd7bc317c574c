// Replaying schedules for real (models/replay.hpp) on Fashion-MNIST: determinism, and the effects of staleness
// and compression on convergence, each measured on schedules built here by hand. Settings are small so that a
// replay takes seconds: 4 peers of 128 samples each (2 minibatches of 64), the MNIST CNN on 14x14 images
// (Fashion-MNIST resized), 1,000 test images, 80 iterations for the convergence tests; SGD at the shipped
// defaults (learning rate 0.1, momentum 0.9).
#include "torch_doctest.hpp"

#include <fstream>
#include <sstream>

#include "../sim/util/heap.hpp"
#include "replay.hpp"
#include "replay_command.hpp"
#include "temp_dir.hpp"

using namespace p2psim::models;
using nlohmann::json;

namespace {

constexpr int kPeers = 4;
constexpr unsigned long long kSeed = 7;

json training(int iterations, const std::string& codec = "none", bool error_feedback = false) {
  return {{"model", "mnist_cnn"},     {"input_shape", "1x14x14"},     {"dataset", "fashion_mnist"},
          {"classes", 10},            {"train_samples", kPeers * 128}, {"peers", kPeers},
          {"shard_samples", 128},     {"minibatch_sizes", {64, 64}},  {"iterations", iterations},
          {"codec", codec},           {"topk_ratio", 0.01},           {"error_feedback", error_feedback},
          {"learning_rate", 0.1},     {"momentum", 0.9},              {"eval_every", 2},
          {"test_samples", 1000},     {"data_dir", ""},               {"target_accuracy", 0.6}};
}

// Every peer averages every peer's gradient of the same iteration (staleness 0)...
json synchronous(int iterations) {
  json u = json::array();
  for (int t = 0; t < iterations; ++t)
    for (int p = 0; p < kPeers; ++p) u.push_back({p, t, t + 1.0, 0.01 * (t + 1), "all"});
  return u;
}

// ... or its own fresh gradient with the others' from k iterations back: the most a bound of k allows.
json stale(int iterations, int k) {
  json u = json::array();
  for (int t = 0; t < iterations; ++t)
    for (int p = 0; p < kPeers; ++p) {
      json g = json::array({{p, t}});
      for (int q = 0; q < kPeers; ++q)
        if (q != p) g.push_back({q, std::max(0, t - k)});
      u.push_back({p, t, t + 1.0, 0.01 * (t + 1), g});
    }
  return u;
}

const ReplayData& data() {
  static const ReplayData d = [] {
    p2psim::keep_freed_memory_in_heap();
    torch::set_num_threads(1);  // ctest runs two tests at once on two cores
    ReplayDataSpec spec;
    spec.dataset = "fashion_mnist";
    spec.input = {1, 14, 14};
    spec.train_samples = kPeers * 128;
    spec.test_samples = 1000;
    spec.shard_samples.assign(kPeers, 128);
    spec.seed = kSeed;
    return load_replay_data(spec);
  }();
  return d;
}

std::vector<ReplayPoint> run(const json& t, const json& updates) {
  std::ostringstream log;
  return replay_updates(t, kSeed, updates, data(), log);
}

// Iterations until the test accuracy first reaches `target`; `never` when it does not.
int iterations_to(const std::vector<ReplayPoint>& points, double target, int never) {
  for (const auto& p : points)
    if (p.evaluated && p.test_accuracy >= target) return p.iteration + 1;
  return never;
}

// Where a run ends: the mean test accuracy of its last 5 evaluations (one evaluation alone swings by points).
double end_accuracy(const std::vector<ReplayPoint>& points) {
  std::vector<double> evaluated;
  for (const auto& p : points)
    if (p.evaluated) evaluated.push_back(p.test_accuracy);
  REQUIRE(evaluated.size() >= 5);
  double sum = 0;
  for (size_t i = evaluated.size() - 5; i < evaluated.size(); ++i) sum += evaluated[i];
  return sum / 5;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("replay: the same schedule replays byte-identically, from the cache too, and the cache ignores times") {
  TempDir dir;
  json schedule{{"format", "p2psim-schedule/1"}, {"experiment", "t"}, {"seed", kSeed}, {"training", training(4)},
                {"cost_includes_broker", true},
                {"systems", {{{"name", "sync"}, {"strategy", "p2p_all_to_all"}, {"replayable", true},
                              {"why_not", ""}, {"updates", synchronous(4)}}}}};
  std::ofstream(dir.path("schedule.json")) << schedule.dump();
  ReplayOptions o;
  o.schedule_path = dir.path("schedule.json");
  o.threads = 1;
  std::ostringstream log;
  o.out_csv = dir.path("a.csv");
  replay(o, log);
  o.out_csv = dir.path("b.csv");
  o.cache_dir = dir.path("cache");
  replay(o, log);
  const std::string fresh = read(dir.path("a.csv"));
  CHECK(fresh == read(dir.path("b.csv")));
  // 4 iterations, one row each; evaluated at 2 and 4 (eval_every 2), times and costs from the schedule.
  CHECK(std::count(fresh.begin(), fresh.end(), '\n') == 5);
  CHECK(fresh.find("sync,3,4,0.04,") != std::string::npos);
  // Same gradients, other times and costs (a sweep over prices): answered from the cache, times updated.
  for (auto& u : schedule["systems"][0]["updates"]) u[2] = u[2].get<double>() * 2;
  std::ofstream(dir.path("schedule.json")) << schedule.dump();
  o.out_csv = dir.path("c.csv");
  log.str("");
  replay(o, log);
  CHECK(log.str().find("replay cached") != std::string::npos);
  const std::string cached = read(dir.path("c.csv"));
  CHECK(cached.find("sync,3,8,0.04,") != std::string::npos);
  CHECK(cached.substr(cached.find("sync,3,8,0.04,") + 14) == fresh.substr(fresh.find("sync,3,4,0.04,") + 14));
}

TEST_CASE("replay: schedules that average the same gradients in another order train the same models") {
  // Two synchronous designs apply the same updates in different time orders; the models must not depend on it
  // (each peer has its own momentum, dropout draws are per peer and iteration).
  json forward = json::array(), backward = json::array();
  for (int t = 0; t < 2; ++t)
    for (int p = 0; p < kPeers; ++p) {
      forward.push_back({p, t, t + 1.0, 0.0, "all"});
      backward.push_back({kPeers - 1 - p, t, t + 1.0, 0.0, "all"});
    }
  auto t = training(2);
  t["eval_every"] = 1;
  const auto a = run(t, forward), b = run(t, backward);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].train_loss == b[i].train_loss);
    CHECK(a[i].test_accuracy == b[i].test_accuracy);
  }
}

TEST_CASE("replay: a schedule that averages a gradient before it can exist is refused") {
  // Peer 1's gradient of iteration 1 needs its update of iteration 0, which comes after this one.
  json u = json::array({{0, 0, 1.0, 0.0, json::array({{0, 0}, {1, 1}})}, {1, 0, 1.0, 0.0, json::array({{1, 0}})}});
  CHECK_THROWS_WITH_AS(run(training(2), u), doctest::Contains("before its producer could compute it"),
                       std::invalid_argument);
  json not_own_first = json::array({{0, 0, 1.0, 0.0, json::array({{1, 0}, {0, 0}})}});
  CHECK_THROWS_WITH_AS(run(training(2), not_own_first), doctest::Contains("own gradient must come first"),
                       std::invalid_argument);
}

TEST_CASE("replay: staleness bound 4 needs more iterations to the target than synchronous training") {
  const int n = 80;
  const auto sync = run(training(n), synchronous(n));
  const auto k4 = run(training(n), stale(n, 4));
  const double target = 0.6;
  const int sync_iterations = iterations_to(sync, target, n + 1), stale_iterations = iterations_to(k4, target, n + 1);
  MESSAGE("iterations to ", target, ": k=0 ", sync_iterations, ", k=4 ", stale_iterations, " (", n + 1, ": never)");
  CHECK(sync_iterations <= n);
  CHECK(stale_iterations > sync_iterations);
}

TEST_CASE("replay: fp16 ends within a point of no compression") {
  const int n = 80;
  const double none = end_accuracy(run(training(n), synchronous(n)));
  const double fp16 = end_accuracy(run(training(n, "fp16"), synchronous(n)));
  MESSAGE("accuracy at the end: none ", none, ", fp16 ", fp16);
  CHECK(std::abs(fp16 - none) <= 0.01);
}

TEST_CASE("replay: top-k 1 % without error feedback ends below top-k with it") {
  const int n = 80;
  const double plain = end_accuracy(run(training(n, "topk", false), synchronous(n)));
  const double feedback = end_accuracy(run(training(n, "topk", true), synchronous(n)));
  MESSAGE("accuracy at the end: top-k ", plain, ", top-k with error feedback ", feedback);
  CHECK(plain < feedback);
}
