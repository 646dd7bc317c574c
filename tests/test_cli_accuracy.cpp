// `p2psim run` with <accuracy> end to end: the schedule it writes, the real replay, and time and cost to the
// target, each checked against the files the run wrote (not against numbers typed here).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <filesystem>

#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "csv_rows.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// 4 peers of 64 Fashion-MNIST images each (2 minibatches of 32), 6 iterations: seconds of real training.
std::string experiment(const std::string& accuracy, const std::string& sync = "", const std::string& systems = "") {
  return R"(<?xml version="1.0"?>
<experiment name="acc" seed="3">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/platforms/aws_us_east_1.xml"/>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/calibration/kernels" models=")" P2PSIM_SOURCE_DIR R"(/calibration/models.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="fashion_mnist" train_samples="256" batch_size="32"
            iterations="6"/>
  <peers count="4" instance_type="t2.medium"/>
  <barrier instance="false" serverless="false"/>
  )" + (systems.empty() ? R"(<systems>
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
    <system name="ring" strategy="ring_allreduce"/>
  </systems>)" : systems) + "\n  " + sync + "\n  " + accuracy + "\n</experiment>\n";
}

struct Row {
  int iteration;
  double time_s, cost_usd;
  std::string accuracy;
};

std::map<std::string, std::vector<Row>> read_accuracy(const std::string& path) {
  std::map<std::string, std::vector<Row>> rows;
  for (auto f : csv_rows(slurp(path))) {
    f.resize(8);
    rows[f[0]].push_back({std::stoi(f[1]), std::stod(f[2]), std::stod(f[3]), f[6]});
  }
  return rows;
}

}  // namespace

TEST_CASE("run with <accuracy>: the schedule is replayed for real, and time and cost to the target match it") {
  TempDir dir;
  std::ofstream(dir.path("acc.xml")) << experiment(R"(<accuracy target="0.2" eval_every="2" test_samples="500"/>)");
  const std::string env = "P2PSIM_CACHE_DIR=" + dir.path("cache");
  auto r = run_cli("run " + dir.path("acc.xml") + " --out " + dir.path("out"), env);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("final test accuracy") != std::string::npos);
  CHECK(r.output.find("time to 20.0 % (s)") != std::string::npos);

  const auto schedule = nlohmann::json::parse(slurp(dir.path("out/schedule.json")));
  CHECK(schedule["format"] == "p2psim-schedule/1");
  CHECK(schedule["training"]["shard_samples"] == 64);
  const auto result = nlohmann::json::parse(slurp(dir.path("out/result.json")));
  const auto curves = read_accuracy(dir.path("out/accuracy.csv"));
  for (const auto& system : schedule["systems"]) {
    const std::string name = system["name"];
    CAPTURE(name);
    REQUIRE(system["replayable"] == true);
    const auto& updates = system["updates"];
    CHECK(updates.size() == 4 * 6);  // every peer, every iteration
    // Synchronous all-to-all: its own gradient first, then the 3 others' of the same iteration; the ring: "all".
    for (const auto& u : updates) {
      if (name == "ring") {
        CHECK(u[4] == "all");
      } else {
        REQUIRE(u[4].size() == 4);
        CHECK(u[4][0] == nlohmann::json::array({u[0], u[1]}));
        for (const auto& g : u[4]) CHECK(g[1] == u[1]);
      }
    }
    // The curve: an iteration's time is when its last update was applied, its cost the run's cost then; the
    // last one is the whole bill.
    const auto& rows = curves.at(name);
    REQUIRE(rows.size() == 6);
    for (const auto& row : rows) {
      double latest = 0;
      for (const auto& u : updates)
        if (u[1] == row.iteration) latest = std::max(latest, u[2].get<double>());
      CHECK(row.time_s == doctest::Approx(latest).epsilon(1e-8));
    }
    const auto& sys = result["systems"][name];
    CHECK(rows.back().cost_usd == doctest::Approx(sys["cost_usd"]["counted_in_cost_ratio"].get<double>()).epsilon(1e-8));
    CHECK(rows.back().time_s <= sys["total_s"].get<double>() * (1 + 1e-8));  // the CSV holds 9 digits
    // Time and cost to the target: the first evaluated row at or above it.
    const auto& acc = sys["accuracy"];
    const Row* hit = nullptr;
    for (const auto& row : rows)
      if (!hit && !row.accuracy.empty() && std::stod(row.accuracy) >= 0.2) hit = &row;
    REQUIRE(hit != nullptr);
    CHECK(acc["reached"] == true);
    CHECK(acc["iterations_to_target"] == hit->iteration + 1);
    CHECK(acc["time_to_target_s"].get<double>() == doctest::Approx(hit->time_s).epsilon(1e-8));
    CHECK(acc["cost_to_target_usd"].get<double>() == doctest::Approx(hit->cost_usd).epsilon(1e-8));
  }
  // The CSV carries them too, and a second run is answered from the cache with the same bytes.
  CHECK(slurp(dir.path("out/result.csv")).find(",time_to_target_s,") != std::string::npos);
  auto again = run_cli("run " + dir.path("acc.xml") + " -q --out " + dir.path("again"), env);
  CHECK(again.exit_code == 0);
  CHECK(again.output.find("replay cached") != std::string::npos);
  CHECK(slurp(dir.path("again/accuracy.csv")) == slurp(dir.path("out/accuracy.csv")));
}

TEST_CASE("run with <accuracy>: an asynchronous parameter server is reported as not replayed, and why") {
  TempDir dir;
  std::ofstream(dir.path("acc.xml")) << experiment(
      R"(<accuracy target="0.2" eval_every="3" test_samples="200"/>)", R"(<synchronization mode="async" staleness_bound="2"/>)",
      R"(<systems><system name="ps" strategy="parameter_server"/><system name="p2p" strategy="p2p_all_to_all"/></systems>)");
  auto r = run_cli("run " + dir.path("acc.xml") + " --out " + dir.path("out"), "P2PSIM_CACHE_DIR=" + dir.path("cache"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("ps was not replayed: an asynchronous parameter server updates one global model") !=
        std::string::npos);
  const auto result = nlohmann::json::parse(slurp(dir.path("out/result.json")));
  CHECK(result["systems"]["ps"]["accuracy"]["replayed"] == false);
  CHECK(result["systems"]["p2p"]["accuracy"]["replayed"] == true);
  // Asynchronous all-to-all: every update lists its own gradient first, and only gradients that exist: a
  // producer's gradient of iteration s is computed after its own update of s - 1, which must come earlier.
  const auto schedule = nlohmann::json::parse(slurp(dir.path("out/schedule.json")));
  std::set<std::pair<int, int>> applied;
  int from_other_iterations = 0;
  for (const auto& u : schedule["systems"][1]["updates"]) {
    CHECK(u[4][0] == nlohmann::json::array({u[0], u[1]}));
    for (const auto& g : u[4]) {
      if (g[1].get<int>() > 0) CHECK(applied.count({g[0].get<int>(), g[1].get<int>() - 1}) == 1);
      from_other_iterations += g[1] != u[1];
    }
    applied.insert({u[0].get<int>(), u[1].get<int>()});
  }
  MESSAGE(from_other_iterations, " gradients averaged into an update of another iteration");
}

TEST_CASE("run with <accuracy>: partial participation averages the round's participants, and the replay shows it") {
  TempDir dir;
  std::ofstream(dir.path("acc.xml")) << experiment(
      R"(<accuracy target="0.2" eval_every="1" test_samples="500"/>)", "",
      R"(<systems><system name="all" strategy="serverless_tree"/>
         <system name="half" strategy="serverless_tree" participation="0.5"/></systems>)");
  auto r = run_cli("run " + dir.path("acc.xml") + " --out " + dir.path("out"), "P2PSIM_CACHE_DIR=" + dir.path("cache"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto schedule = nlohmann::json::parse(slurp(dir.path("out/schedule.json")));
  REQUIRE(schedule["systems"][1]["name"] == "half");
  const auto& updates = schedule["systems"][1]["updates"];
  CHECK(updates.size() == 4 * 6);  // every peer applies every round's average, whether it took part or not
  std::map<int, std::set<int>> round;  // iteration -> its participants, as every update of it names them
  for (const auto& u : updates) {
    const int peer = u[0], it = u[1];
    REQUIRE(u[4].is_array());
    REQUIRE(u[4].size() == 2);  // 0.5 x 4 peers
    std::set<int> producers;
    for (const auto& g : u[4]) {
      CHECK(g[1] == it);
      producers.insert(g[0].get<int>());
    }
    if (producers.count(peer)) CHECK(u[4][0][0] == peer);  // its own first, when it took part
    if (!round.count(it)) round[it] = producers;
    CHECK(round[it] == producers);  // the same average for every peer of the round
  }
  std::set<std::set<int>> distinct;
  for (const auto& [it, members] : round) distinct.insert(members);
  CHECK(distinct.size() > 1);
  // Half the gradients each round: another model (its curve differs) and another time per round.
  const auto curves = read_accuracy(dir.path("out/accuracy.csv"));
  const auto& all = curves.at("all");
  const auto& half = curves.at("half");
  REQUIRE(all.size() == half.size());
  bool accuracy_differs = false;
  for (size_t i = 0; i < all.size(); ++i) accuracy_differs |= all[i].accuracy != half[i].accuracy;
  CHECK(accuracy_differs);
  const auto result = nlohmann::json::parse(slurp(dir.path("out/result.json")));
  CHECK(result["systems"]["half"]["participation"] == 0.5);
  CHECK(result["systems"]["all"]["participation"] == 1.0);
  const auto& a = result["systems"]["all"]["accuracy"];
  const auto& h = result["systems"]["half"]["accuracy"];
  REQUIRE(a["reached"] == true);
  REQUIRE(h["reached"] == true);
  CHECK(h["time_to_target_s"].get<double>() != doctest::Approx(a["time_to_target_s"].get<double>()).epsilon(1e-6));
}

TEST_CASE("run with <accuracy>: bad accuracy input exits 2 naming the field") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"<accuracy/>", "accuracy/@target"},
      {R"(<accuracy target="1.5"/>)", "accuracy/@target"},
      {R"(<accuracy target="0.5" data_dir="/no/such/folder"/>)", "accuracy/@data_dir"},
      {R"(<accuracy target="0.5" learning_rate="-1"/>)", "accuracy/@learning_rate"},
  };
  for (const auto& [xml, field] : cases) {
    CAPTURE(xml);
    std::ofstream(dir.path("bad.xml")) << experiment(xml);
    auto r = run_cli("run " + dir.path("bad.xml"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(field) != std::string::npos);
  }
  // MNIST has no Debian package: without a folder the replay refuses, naming what to set.
  std::string mnist = experiment(R"(<accuracy target="0.5"/>)");
  mnist.replace(mnist.find("fashion_mnist"), 13, "mnist");
  std::ofstream(dir.path("mnist.xml")) << mnist;
  auto r = run_cli("run " + dir.path("mnist.xml"), "P2PSIM_CACHE_DIR=" + dir.path("cache"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("data_dir") != std::string::npos);
  // A folder without the dataset's files: refused at its line before anything is simulated, so no folder is left
  // holding a schedule alone (nor a new schedule beside an earlier run's results).
  std::filesystem::create_directories(dir.path("empty"));
  // A link to itself where the gzipped file would be: looked at without throwing (it was an internal error).
  std::filesystem::create_symlink(dir.path("empty/train-images-idx3-ubyte.gz"), dir.path("empty/train-images-idx3-ubyte.gz"));
  std::ofstream(dir.path("empty_data.xml")) << experiment(R"(<accuracy target="0.5" data_dir=")" + dir.path("empty") + R"("/>)");
  r = run_cli("run " + dir.path("empty_data.xml") + " -q --out " + dir.path("out"), "P2PSIM_CACHE_DIR=" + dir.path("cache"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("field 'accuracy/@data_dir': no train-images-idx3-ubyte in " + dir.path("empty")) !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path("out")));
}

// A valid schedule of 2 peers: the base every forged field below is written into.
nlohmann::json small_schedule() {
  return nlohmann::json::parse(R"({"format": "p2psim-schedule/1", "experiment": "x", "seed": 1,
    "training": {"model": "mnist_cnn", "input_shape": "1x28x28", "dataset": "fashion_mnist", "classes": 10,
                 "train_samples": 128, "peers": 2, "shard_samples": 64, "minibatch_sizes": [32, 32],
                 "iterations": 2, "codec": "none", "topk_ratio": 0.01, "error_feedback": false,
                 "learning_rate": 0.1, "momentum": 0.9, "eval_every": 1, "test_samples": 100, "data_dir": "",
                 "target_accuracy": 0.5},
    "cost_includes_broker": false,
    "systems": [{"name": "s", "strategy": "ring_allreduce", "replayable": true, "why_not": "",
                 "updates": [[0, 0, 1.0, 0.1, "all"], [1, 0, 1.0, 0.1, "all"], [0, 1, 2.0, 0.2, [[0, 1], [1, 1]]],
                             [1, 1, 2.0, 0.2, "all"]]}]})");
}

TEST_CASE("replay: a bad schedule file or option exits 2 naming the file or the option") {
  TempDir dir;
  std::ofstream(dir.path("broken.json")) << "{\"format\": ";
  std::ofstream(dir.path("other.json")) << R"({"format": "something-else"})";
  std::ofstream(dir.path("ok.json")) << small_schedule().dump();
  std::filesystem::create_directories(dir.path("folder"));
  const std::vector<std::pair<std::string, std::string>> cases{
      {"replay " + dir.path("missing.json") + " --out " + dir.path("a.csv"), "missing.json: cannot open file"},
      {"replay " + dir.path("broken.json") + " --out " + dir.path("a.csv"), "broken.json: not a schedule (malformed JSON"},
      {"replay " + dir.path("other.json") + " --out " + dir.path("a.csv"), "other.json: field 'format'"},
      {"replay " + dir.path("ok.json") + " --system nope --out " + dir.path("a.csv"), "--system: 'nope' is not in"},
      {"replay " + dir.path("ok.json") + " --threads 0 --out " + dir.path("a.csv"), "threads"},
      {"replay " + dir.path("ok.json") + " --out " + dir.path("folder"), "is a folder, expected a file name"},
      {"replay " + dir.path("ok.json") + " --out " + dir.path("no/such/a.csv"), "does not exist"},
      {"replay /dev/zero --out " + dir.path("a.csv"), "/dev/zero: larger than 1024 MiB"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    auto r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
  CHECK(!std::filesystem::exists(dir.path("folder/.partial")));
}

TEST_CASE("replay: every forged field of a schedule is refused with exit 2 naming it, before any training") {
  TempDir dir;
  using nlohmann::json;
  // (JSON pointer, forged value or null to remove it, the field the error must name). Each was a crash, a raw
  // LibTorch or JSON message, gigabytes of memory or a NaN loss with exit 0 before the schedule was checked.
  const std::vector<std::tuple<std::string, json, std::string>> cases{
      {"/training/eval_every", 0, "training.eval_every"},          // was SIGFPE
      {"/training/peers", 0, "training.peers"},                    // was SIGSEGV
      {"/training/shard_samples", 1e9, "training.shard_samples"},  // was 8 GB, then exit 1
      {"/seed", "x", "seed"},
      {"/training", nullptr, "training"},
      {"/systems/0/updates/1", json::array({1, 0}), "systems[0].updates[1]"},  // a short update
      {"/training/input_shape", "0x0x0", "training.input_shape"},
      {"/training/minibatch_sizes", json::array({"a"}), "training.minibatch_sizes"},
      {"/training/minibatch_sizes", json::array({64, 64}), "training.minibatch_sizes"},  // more than the shard
      {"/training/minibatch_sizes", json::array(), "training.minibatch_sizes"},          // was NaN loss, exit 0
      {"/training/iterations", 1e9, "training.iterations"},
      {"/training/model", "vgg99", "training.model"},
      {"/training/classes", 3, "training.classes"},
      {"/training/codec", "zip", "training.codec"},
      {"/training/learning_rate", -1, "training.learning_rate"},
      {"/training/peers", 3, "training.shard_samples"},  // 3 x 64 samples of 128
      {"/systems/0/updates/0/0", 7, "systems[0].updates[0]"},
      {"/systems/0/updates/2/4", json::array({json::array({0, 5})}), "systems[0].updates[2]"},
      {"/systems/0/updates/0/2", "soon", "systems[0].updates[0]"},
      {"/systems/0/replayable", "yes", "systems[0].replayable"},
      // Groups of peers with shards of their own sizes (peer_shards): as many peers, within the samples.
      {"/training/peer_shards", json::array({json{{"peers", 3}, {"shard_samples", 32}, {"minibatch_sizes", {32}}}}),
       "training.peer_shards"},
      {"/training/peer_shards", json::array({json{{"peers", 1}, {"shard_samples", 100}, {"minibatch_sizes", {32}}},
                                             json{{"peers", 1}, {"shard_samples", 100}, {"minibatch_sizes", {32}}}}),
       "training.peer_shards"},  // 200 samples of 128
      {"/training/peer_shards", json::array({json{{"peers", 2}, {"shard_samples", 32}, {"minibatch_sizes", {64}}}}),
       "training.peer_shards[0].minibatch_sizes"},
      {"/training/peer_shards", json::object(), "training.peer_shards"},
  };
  for (const auto& [pointer, value, field] : cases) {
    CAPTURE(pointer);
    CAPTURE(value.dump());
    json s = small_schedule();
    const json::json_pointer where(pointer);
    if (value.is_null()) s[where.parent_pointer()].erase(where.back());
    else s[where] = value;
    std::ofstream(dir.path("forged.json")) << s.dump();
    auto r = run_cli("replay " + dir.path("forged.json") + " --cache '' --out " + dir.path("a.csv"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("forged.json: field '" + field + "'") != std::string::npos);
    CHECK(r.output.find("replaying") == std::string::npos);  // refused before training
    CHECK(!std::filesystem::exists(dir.path("a.csv")));
  }
}
