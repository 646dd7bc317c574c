// Sweeps: expansion into scenarios, and `p2psim sweep` / `merge` end to end (resume, failures, timeouts,
// interrupts, shards).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "scenario/sweep.hpp"
#include "sim_fixture.hpp"
#include "temp_dir.hpp"
#include "util/input_error.hpp"
#include "util/isolate.hpp"
#include "util/read_text.hpp"

namespace fs = std::filesystem;
using namespace p2psim;

namespace {

// mnist_cnn on the hand-made calibration: fast to simulate.
std::string sweep_file(const TempDir& dir, const std::string& sweep, const std::string& peers = "4",
                       const std::string& iterations = "1") {
  const std::string path = dir.path("sweep.xml");
  std::ofstream(path) << R"(<experiment name="s" seed="3">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations=")"
                      << iterations << R"("/>
  <peers count=")" << peers << R"(" instance_type="t2.medium"/>
  <sweep>
)" << sweep << R"(
  </sweep>
</experiment>
)";
  return path;
}

// A results table as rows of (column -> cell); its cells split at every comma (the columns these tests read hold
// none).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    auto& row = rows.emplace_back();
    size_t k = 0;
    for (std::istringstream fields(line); std::getline(fields, line, ',') && k < header.size();) row[header[k++]] = line;
  }
  return rows;
}

int count_lines(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

std::set<std::string> finished_ids(const fs::path& dir) {
  std::set<std::string> ids;
  for (const auto& e : fs::directory_iterator(dir / "runs")) ids.insert(e.path().filename().string());
  return ids;
}

// Two sweeps' folders hold the same results, and the same trace, result and provenance of each of `runs` runs.
void check_same_runs(const fs::path& a, const fs::path& b, size_t runs) {
  CHECK(read_text(a / "results.csv") == read_text(b / "results.csv"));
  const auto ids = finished_ids(a);
  REQUIRE(ids.size() == runs);
  for (const auto& id : ids)
    for (const std::string file : {"trace.csv", "result.json", "result.csv"}) {
      CAPTURE(file);
      CHECK(read_text(a / "runs" / id / file) == read_text(b / "runs" / id / file));
    }
}

// Sweeps `path` with its memo into DIR/<name> (one job: each group's first scenario is done before the others
// start) and with --no-memo into DIR/<name>_every, checks that both hold the same `runs` runs byte for byte,
// and returns the memo sweep's output (it says how many simulations were reused).
std::string sweep_with_and_without_memo(const TempDir& dir, const std::string& path, const std::string& name,
                                        size_t runs) {
  auto memo = run_cli("sweep " + path + " --out " + dir.path(name) + " -j 1");
  REQUIRE(memo.exit_code == 0);
  CHECK_FALSE(fs::exists(dir.path(name + "/memo")));  // it lives as long as the sweep
  auto every = run_cli("sweep " + path + " --out " + dir.path(name + "_every") + " -j 2 --no-memo");
  REQUIRE(every.exit_code == 0);
  CHECK(every.output.find("reused") == std::string::npos);
  check_same_runs(dir.path(name), dir.path(name + "_every"), runs);
  return memo.output;
}

}  // namespace

TEST_CASE("axes multiply, axes in <together> vary together, ids are stable and distinct") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(
    <axis select="peers/@count" values="2 4 8"/>
    <together>
      <axis select="functions/@memory_mb" values="1024 2048"/>
      <axis select="functions/@arch" values="x86 arm"/>
    </together>
    <axis select="profile:function_service/@keep_alive_s" values="60 600"/>)");
  auto scenarios = expand_sweep(path);
  REQUIRE(scenarios.size() == 3 * 2 * 2);
  std::set<std::string> ids;
  for (const auto& s : scenarios) ids.insert(s.id);
  CHECK(ids.size() == scenarios.size());
  CHECK(scenarios[1].values[1] == std::pair<std::string, std::string>{"functions/@memory_mb", "1024"});
  CHECK(scenarios[2].values[2] == std::pair<std::string, std::string>{"functions/@arch", "arm"});
  CHECK(scenarios[2].experiment_xml.find("memory_mb=\"2048\"") != std::string::npos);
  CHECK(scenarios[3].experiment_xml.find(R"(<override select="function_service/@keep_alive_s" value="600")") !=
        std::string::npos);
  CHECK(scenarios[0].experiment_xml.find("<sweep") == std::string::npos);
  // The same content elsewhere gives the same ids.
  TempDir other;
  fs::copy_file(path, other.path("sweep.xml"));
  CHECK(expand_sweep(other.path("sweep.xml"))[5].id == scenarios[5].id);
  // Shards are disjoint and together complete.
  CHECK(shard(scenarios, 0, 5).size() + shard(scenarios, 1, 5).size() + shard(scenarios, 2, 5).size() +
            shard(scenarios, 3, 5).size() + shard(scenarios, 4, 5).size() == scenarios.size());
}

TEST_CASE("a profile axis replaces the experiment's own value of that constant rather than adding a second") {
  TempDir dir;
  // The experiment gives the keep-alive as an <override> and the concurrency limit as <functions>'s attribute:
  // each axis's value must be the scenario's only value of that constant (two would be refused as ambiguous).
  const auto path = dir.path("sweep.xml");
  std::ofstream(path) << R"(<experiment name="s" seed="3">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/platforms/aws_us_east_1.xml">
    <override select="function_service/@keep_alive_s" value="5"/>
  </profile>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <peers count="2" instance_type="t2.medium"/>
  <functions concurrency_limit="7"/>
  <sweep>
    <axis select="profile:function_service/@keep_alive_s" values="60 600"/>
    <axis select="profile:./function_service/@concurrency_limit" values="10 20"/>
  </sweep>
</experiment>
)";
  const auto scenarios = expand_sweep(path);
  REQUIRE(scenarios.size() == 4);
  for (size_t i = 0; i < scenarios.size(); ++i) {
    CAPTURE(i);
    const auto file = dir.path("scenario" + std::to_string(i) + ".xml");
    std::ofstream(file) << scenarios[i].experiment_xml;
    const Experiment e = load_experiment(file, P2PSIM_SOURCE_DIR "/experiments/defaults.xml");
    std::map<std::string, std::vector<std::string>> values;
    for (const auto& o : e.overrides) values[o.select].push_back(o.value);
    CHECK(values["function_service/@keep_alive_s"] == std::vector<std::string>{i < 2 ? "60" : "600"});
    CHECK(values["function_service/@concurrency_limit"] == std::vector<std::string>{i % 2 ? "20" : "10"});
  }
  // One constant swept by two axes, as <functions>'s attribute and as the override it stands for: swept twice.
  std::string text = read_text(path);
  text.replace(text.find("profile:./function_service/@concurrency_limit"),
               std::string("profile:./function_service/@concurrency_limit").size(), "functions/@keep_alive_s");
  std::ofstream(path) << text;
  CHECK_THROWS_WITH_AS(expand_sweep(path), doctest::Contains("is swept twice"), InputError);
}

TEST_CASE("malformed axes are named by file, line and field") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(expand_sweep(sweep_file(dir, R"(<together>
      <axis select="functions/@memory_mb" values="1024 2048"/>
      <axis select="functions/@arch" values="x86"/></together>)")),
                       doctest::Contains(":8: field 'axis/@values': axes that vary together need as many values"),
                       InputError);
  CHECK_THROWS_WITH_AS(expand_sweep(sweep_file(dir, R"(<axis select="peers/@count" values=""/>)")),
                       doctest::Contains("field 'axis/@values': lists no value"), InputError);
  CHECK_THROWS_WITH_AS(expand_sweep(sweep_file(dir, R"(<axis select="peers" values="1"/>)")),
                       doctest::Contains("expected element/@attribute, profile:xpath or prices:xpath"), InputError);
  CHECK_THROWS_WITH_AS(expand_sweep(sweep_file(dir, R"(<axes select="peers/@count" values="1"/>)")),
                       doctest::Contains("unknown element <axes> inside <sweep>"), InputError);
}

TEST_CASE("sweep: runs every scenario, merges the rows, and a rerun skips what is done") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="2 3 4"/>
    <axis select="functions/@memory_mb" values="1024 2048"/>)");
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("sweep: 6 done, 0 failed, 0 skipped; 12 rows") != std::string::npos);
  CHECK(count_lines(dir.path("out/results.csv")) == 1 + 12);
  CHECK(finished_ids(dir.path("out")).size() == 6);
  auto again = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  CHECK(again.exit_code == 0);
  CHECK(again.output.find("sweep: 0 done, 0 failed, 6 skipped; 12 rows") != std::string::npos);
  // A run outside the sweep on the same scenario gives the same rows and trace: nothing depends on the worker
  // (which simulates the last system in its own process, where `run` forks for every system).
  const std::string id = *finished_ids(dir.path("out")).begin();
  REQUIRE(run_cli("run " + dir.path("out/scenarios/" + id + ".xml") + " -q --out " + dir.path("alone")).exit_code == 0);
  for (const std::string file : {"result.csv", "trace.csv"}) {
    std::ifstream swept(dir.path("out/runs/" + id + "/" + file)), alone(dir.path("alone/" + file));
    const std::string swept_text(std::istreambuf_iterator<char>(swept), {});
    CHECK(swept_text.size() > 100);
    CHECK(swept_text == std::string(std::istreambuf_iterator<char>(alone), {}));
  }
  // The experiment itself declares a sweep: `run` refuses it.
  auto bad = run_cli("run " + path);
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("this experiment declares a sweep") != std::string::npos);
}

TEST_CASE("sweep: a system whose optimistic storage sharing can come back void is run again, exactly, when it does") {
  // 16 functions (55 MB/s each) uploading their gradients at once can fill the 400 MB/s storage link that the
  // peers' routes leave to them (tests/test_simulation.cpp says why): the worker's in-process simulation comes
  // back void. The worker therefore simulates it in a child, which simulates it again, exactly, in another
  // (app/run_experiment.cpp). Its files must be those of an exact run, byte for byte; a plain `run` must give
  // them too.
  TempDir dir;
  const std::string path = dir.path("void.xml");
  std::ofstream(path) << R"(<experiment name="v" seed="3">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/tests/data/test_profile.xml">
    <override select="object_storage/@aggregate_bandwidth_bps" value="400000000"/>
  </profile>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="2"
            compute_variability="none"/>
  <peers count="4" instance_type="t2.large"/>
  <sweep><axis select="functions/@memory_mb" values="1024 2048"/></sweep>
</experiment>
)";
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("sweep: 2 done, 0 failed") != std::string::npos);
  for (const auto& id : finished_ids(dir.path("out"))) {
    const std::string scenario = dir.path("out/scenarios/" + id + ".xml");
    // The premise: simulated optimistically in one process, this scenario's system comes back void.
    const auto s = fixture::scenario(scenario);
    REQUIRE(run_isolated([&] {
              const bool void_output =
                  simulate(s, s.experiment.systems.back(), sg::StorageSharing::Optimistic).void_storage_link_bound;
              return std::string(void_output ? "void" : "exact");
            }) == "void");
    REQUIRE(run_cli("run " + scenario + " -q --exact-storage-sharing --out " + dir.path("exact-" + id)).exit_code == 0);
    REQUIRE(run_cli("run " + scenario + " -q --out " + dir.path("run-" + id)).exit_code == 0);
    for (const std::string file : {"result.csv", "trace.csv"}) {
      const std::string exact = read_text(dir.path("exact-" + id + "/" + file));
      CHECK(exact.size() > 100);
      CHECK(read_text(dir.path("out/runs/" + id + "/" + file)) == exact);
      CHECK(read_text(dir.path("run-" + id + "/" + file)) == exact);
    }
  }
}

TEST_CASE("sweep: paths relative to the experiment still resolve from the scenario files") {
  TempDir dir;
  fs::create_directories(dir.path("cal"));
  fs::copy_file(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv", dir.path("cal/hand.csv"));
  const std::string path = dir.path("relative.xml");
  std::ofstream(path) << R"(<experiment name="r">
  <calibration files="cal/hand.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <sweep><axis select="peers/@count" values="2 3"/></sweep>
</experiment>)";
  // Run from another working directory, with a relative experiment path.
  auto r = run_cli("sweep relative.xml --out out", "cd " + dir.root.string() + " &&");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("2 done, 0 failed") != std::string::npos);
}

TEST_CASE("sweep: a failing scenario is recorded with its error and the others finish") {
  TempDir dir;
  // Each value is valid alone (checked before running); only 32 peers x 4 minibatches leaves 468-sample
  // minibatches, outside the hand calibration: that scenario fails when it runs.
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="4 32"/>
    <axis select="workload/@minibatches_per_peer" values="1 4"/>)");
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("sweep: 3 done, 1 failed") != std::string::npos);
  int failures = 0;
  for (const auto& e : fs::directory_iterator(dir.path("out/failed"))) {
    ++failures;
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("exit code 2") != std::string::npos);
    CHECK(text.find("batch size 468 is outside what the calibration") != std::string::npos);
  }
  CHECK(failures == 1);
  CHECK(count_lines(dir.path("out/results.csv")) == 1 + 6);
  // The sweep says why, with the scenario's values: the record is not the only place (it was).
  CHECK(r.output.find("(peers/@count=32, workload/@minibatches_per_peer=4): exit code 2: p2psim run: error: ") !=
        std::string::npos);
  CHECK(r.output.find("batch size 468 is outside what the calibration") != std::string::npos);
  // Over three failures (the scenario again, and three records added here), the first three by id and where the
  // rest are.
  // Each with its error line, not a warning before it, and its axes in the sweep's order.
  std::ofstream(dir.path("out/failed/a1.json"))
      << R"({"axes": {"z": "1", "a": "2"}, "error": "exit code 2", "stderr": "warning: w\np2psim run: error: e\n"})";
  for (const char* id : {"a2", "a3"})
    std::ofstream(dir.path("out/failed/") + id + ".json")
        << R"({"axes": {}, "error": "killed by signal 9", "stderr": ""})";
  const auto again = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  CHECK(again.output.find("  failed a1 (z=1, a=2): exit code 2: p2psim run: error: e\n") != std::string::npos);
  CHECK(again.output.find("  failed a2 (): killed by signal 9\n") != std::string::npos);
  CHECK(again.output.find("  and 1 more: " + dir.path("out/failed")) != std::string::npos);  // 3 shown of 4
}

TEST_CASE("sweep: rows whose system could not run are counted apart from failed scenarios") {
  // SqueezeNet's serverless peers cannot hold PyTorch in a 128 MB function: that row is infeasible, the scenario
  // is done (the sweep said "0 failed" and nothing of it).
  TempDir dir;
  std::string text = p2psim::read_text(std::string(P2PSIM_SOURCE_DIR) + "/experiments/squeezenet_mnist.xml");
  text.replace(text.find("</experiment>"), 13,
               R"(<sweep><axis select="functions/@memory_mb" values="3008 128"/></sweep></experiment>)");
  std::ofstream(dir.path("memory.xml")) << text;
  const auto r = run_cli("sweep " + dir.path("memory.xml") + " --out " + dir.path("out") + " -j 2");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("sweep: 2 done, 0 failed, 0 skipped; 4 rows in " + dir.path("out/results.csv") +
                      ", 1 of them infeasible (their status column says why; they are not failures)") !=
        std::string::npos);
}

TEST_CASE("sweep: a scenario over the timeout is killed and recorded") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="functions/@memory_mb" values="1024 2048"/>)", "24", "40");
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2 --timeout 0.05");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("0 done, 2 failed") != std::string::npos);
  for (const auto& e : fs::directory_iterator(dir.path("out/failed"))) {
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("timed out after 0.05 s (--timeout)") != std::string::npos);
  }
  CHECK(finished_ids(dir.path("out")).empty());  // no partial run left behind
}

TEST_CASE("sweep: a timed-out scenario leaves no simulation process behind") {
  TempDir dir;
  // Long enough that the run has forked its simulation when the 0.5 s timeout strikes.
  const auto path = sweep_file(dir, R"(<axis select="functions/@memory_mb" values="1024"/>)", "8", "5000");
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 1 --timeout 0.5");
  CHECK(r.output.find("0 done, 1 failed") != std::string::npos);
  // The killed run's forked simulation dies with it (it used to run on for tens of seconds, orphaned).
  auto running = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::ifstream cmd(e.path() / "cmdline");
      std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
      n += line.find(dir.path("out/scenarios")) != std::string::npos;
    }
    return n;
  };
  for (int i = 0; i < 40 && running() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(running() == 0);
}

TEST_CASE("sweep: SIGTERM keeps finished results, leaves no partial file, and a rerun finishes the rest") {
  TempDir dir;
  // 24 peers x 10 iterations: long enough (~0.5 s each) to interrupt between scenarios.
  const auto path = sweep_file(dir, R"(<axis select="functions/@memory_mb" values="1024 1100 1200 1300 1400 1500"/>)",
                               "24", "10");
  const std::string out = dir.path("out");
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    execl(P2PSIM_BIN, "p2psim", "sweep", path.c_str(), "--out", out.c_str(), "-j", "1", nullptr);
    _exit(127);
  }
  // Wait until at least one scenario is done, then stop the sweep.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::is_directory(out + "/runs")) {
      int finished = 0;
      for (const auto& e : fs::directory_iterator(out + "/runs")) finished += e.path().filename().string()[0] != '.';
      if (finished >= 1) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  const auto kept = finished_ids(out);
  CHECK(kept.size() >= 1);
  CHECK(kept.size() < 6);
  for (const auto& id : kept) {
    CHECK(id[0] != '.');  // no partial run, no stray stderr file
    CHECK(fs::exists(out + "/runs/" + id + "/result.csv"));
    CHECK(fs::exists(out + "/runs/" + id + "/scenario.json"));
  }
  auto rerun = run_cli("sweep " + path + " --out " + out + " -j 2");
  CHECK(rerun.exit_code == 0);
  CHECK(rerun.output.find(std::to_string(6 - kept.size()) + " done, 0 failed, " + std::to_string(kept.size()) +
                          " skipped") != std::string::npos);
  CHECK(finished_ids(out).size() == 6);
}

TEST_CASE("shards run disjoint shares that merge into every scenario exactly once") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="2 3 4 5 6"/>)");
  for (const char* s : {"0/3", "1/3", "2/3"})
    CHECK(run_cli("sweep " + path + " --out " + dir.path(std::string("shard") + s[0]) + " --shard " + s).exit_code == 0);
  auto m = run_cli("merge " + dir.path("shard0") + " " + dir.path("shard1") + " " + dir.path("shard2") + " " +
                   dir.path("shard0") + " --out " + dir.path("all"));
  CHECK(m.exit_code == 0);
  std::ifstream in(dir.path("all/results.csv"));
  std::string line;
  std::getline(in, line);
  std::map<std::string, int> rows_per_scenario;
  while (std::getline(in, line)) ++rows_per_scenario[line.substr(0, line.find(','))];
  CHECK(rows_per_scenario.size() == 5);
  for (const auto& [id, rows] : rows_per_scenario) CHECK(rows == 2);  // instance and serverless
  CHECK(run_cli("merge " + dir.path("nothing") + " --out " + dir.path("x")).exit_code == 2);
}

TEST_CASE("a sweep over function memory marks exactly the sizes below the threshold infeasible") {
  TempDir dir;
  // One mnist_cnn step needs 200 MiB above the 262 MB runtime at batch 1000 (see test_memory.cpp): 462 MB.
  std::ofstream(dir.path("memory.csv"))
      << "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds,"
         "foreign_cpu_share,peak_rss_bytes,runtime_rss_bytes\n"
         "train_step,mnist_cnn,10,1x28x28,1000,1,0,1199882,4799528,0,1.1,0,524288000,314572800\n"
         "train_step,mnist_cnn,10,1x28x28,1000,2,0,1199882,4799528,0,0.66,0,524288000,314572800\n"
         "train_step,mnist_cnn,10,1x28x28,2000,1,0,1199882,4799528,0,1.2,0,629145600,314572800\n"
         "train_step,mnist_cnn,10,1x28x28,2000,2,0,1199882,4799528,0,0.72,0,629145600,314572800\n"
         "average,mnist_cnn,10,,0,1,2,1199882,4799528,0,0.0024,0,-1,-1\n"
         "average,mnist_cnn,10,,0,1,4,1199882,4799528,0,0.0048,0,-1,-1\n"
         "serialize,mnist_cnn,10,,0,1,1,1199882,4799528,0,1e-12,0,-1,-1\n"
         "deserialize,mnist_cnn,10,,0,1,1,1199882,4799528,0,1e-12,0,-1,-1\n";
  std::ofstream(dir.path("sweep.xml")) << R"(<experiment name="m">
  <calibration files="memory.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1000" iterations="1"/>
  <peers count="2" instance_type="t2.medium"/>
  <sweep><axis select="functions/@memory_mb" values="400 461 462 1024"/></sweep>
</experiment>)";
  auto r = run_cli("sweep " + dir.path("sweep.xml") + " --out " + dir.path("out"));
  CHECK(r.exit_code == 0);  // infeasible is an answer, not a failure
  CHECK(r.output.find("4 done, 0 failed") != std::string::npos);
  std::ifstream in(dir.path("out/results.csv"));
  std::string header, line;
  std::getline(in, header);
  std::map<std::string, std::string> serverless_status;  // memory -> status
  while (std::getline(in, line)) {
    if (line.find(",serverless,") == std::string::npos) {
      CHECK(line.find(",ok,") != std::string::npos);  // instance runs do not depend on function memory
      continue;
    }
    const auto memory = line.substr(line.find(',') + 1, line.find(',', line.find(',') + 1) - line.find(',') - 1);
    serverless_status[memory] = line.find(",infeasible,") != std::string::npos ? "infeasible" : "ok";
  }
  CHECK(serverless_status == std::map<std::string, std::string>{
                                 {"400", "infeasible"}, {"461", "infeasible"}, {"462", "ok"}, {"1024", "ok"}});
}

TEST_CASE("sweep: systems of several strategies, with an axis on one system's parameter, reach the table and recommend") {
  TempDir dir;
  const std::string path = dir.path("designs.xml");
  std::ofstream(path) << R"(<experiment name="d" seed="3">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <systems baseline="instance">
    <system name="instance" strategy="p2p_all_to_all"/>
    <system name="ring" strategy="ring_allreduce"/>
    <system name="sharded" strategy="serverless_sharded" shards="1"/>
  </systems>
  <sweep>
    <axis select="systems/system[@name='sharded']/@shards" values="1 2 4"/>
  </sweep>
</experiment>
)";
  auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2");
  REQUIRE(r.exit_code == 0);
  CHECK(count_lines(dir.path("out/results.csv")) == 1 + 3 * 3);
  std::ifstream in(dir.path("out/results.csv"));
  std::string header, line;
  std::getline(in, header);
  CHECK(header.find("systems/system[@name='sharded']/@shards") != std::string::npos);
  CHECK(header.find(",system,strategy,") != std::string::npos);
  std::map<std::string, int> rows_per_system;
  while (std::getline(in, line))
    for (const char* s : {",instance,p2p_all_to_all,", ",ring,ring_allreduce,", ",sharded,serverless_sharded,"})
      rows_per_system[s] += line.find(s) != std::string::npos;
  for (const auto& [system, n] : rows_per_system) CHECK(n == 3);
  // recommend weighs every design: with an unbounded budget, the fastest of all.
  auto rec = run_cli("recommend " + dir.path("out") + " --budget-usd 100");
  CHECK(rec.exit_code == 0);
  CHECK(rec.output.find("fastest within the budget") != std::string::npos);
  CHECK(run_cli("report " + dir.path("out")).exit_code == 0);
  CHECK(fs::exists(dir.path("out/report/report.html")));
}

TEST_CASE("sweep: a system that runs no function is simulated once per group of scenarios differing only in <functions> or other systems") {
  TempDir dir;
  const std::string path = dir.path("memo.xml");
  std::ofstream(path) << R"(<experiment name="m" seed="5">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="3" iterations="2"/>
  <peers count="4" instance_type="t2.medium"/>
  <systems baseline="instance">
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="ring" strategy="ring_allreduce" compute="peer"/>
    <system name="ps" strategy="parameter_server" compute="peer"/>
    <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
    <system name="sharded" strategy="serverless_sharded" shards="1"/>
  </systems>
  <sweep>
    <axis select="peers/@count" values="2 3"/>
    <together>
      <axis select="functions/@memory_mb" values="1024 2048 3008"/>
      <axis select="functions/@minibatches_per_invocation" values="1 2 3"/>
    </together>
    <axis select="systems/system[@name='sharded']/@shards" values="1 2"/>
  </sweep>
</experiment>
)";
  // Per peer count, the five other scenarios reuse the three systems that run no function (30); the serverless
  // all-to-all is reused by the scenario that differs only in the sharded system's shards (6: its memory sizes
  // and invocations differ together); the sharded system is simulated in all twelve. The same results, and the
  // same trace and provenance of every run, as simulating every system.
  CHECK(sweep_with_and_without_memo(dir, path, "memo", 12).find("sweep: 36 simulations were reused") !=
        std::string::npos);
  CHECK(count_lines(dir.path("memo/results.csv")) == 1 + 12 * 5);
}

TEST_CASE("sweep: the serverless all-to-all is simulated once for function memory sizes with the same timing") {
  // A step that two threads do not speed up (the hand calibration with its 2-thread samples as slow as 1-thread
  // ones): from one vCPU (1,769 MB) up, a bigger function computes no faster and starts no faster, so 1,769,
  // 3,538 and 7,076 MB share one simulation; 1,024 MB (0.58 vCPU) is slower and has its own.
  TempDir dir;
  std::string calibration = read_text(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv");
  for (const auto& [faster, same] : {std::pair<std::string, std::string>{",2,0,1199882,4799528,0,0.66", ",2,0,1199882,4799528,0,1.1"},
                                     {",2,0,1199882,4799528,0,4.2", ",2,0,1199882,4799528,0,7"}}) {
    const auto at = calibration.find(faster);
    REQUIRE(at != std::string::npos);
    calibration.replace(at, faster.size(), same);
  }
  std::ofstream(dir.path("one_thread.csv")) << calibration;
  const std::string path = dir.path("memory.xml");
  std::ofstream(path) << R"(<experiment name="mem" seed="5">
  <calibration files=")" << dir.path("one_thread.csv") << R"("/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="3" iterations="2"/>
  <peers count="3" instance_type="t2.medium"/>
  <systems baseline="instance">
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
  </systems>
  <sweep>
    <axis select="peers/@count" values="2 3"/>
    <axis select="functions/@memory_mb" values="1024 1769 3538 7076"/>
  </sweep>
</experiment>
)";
  // Per peer count: the instance system 3 times, the serverless one twice (3,538 and 7,076 MB); byte for byte
  // what simulating each gives: times, traces, and each size's own bill.
  CHECK(sweep_with_and_without_memo(dir, path, "memo", 8).find("sweep: 10 simulations were reused") !=
        std::string::npos);
  // The shared runs are billed at their own sizes: twice the memory, twice the compute charge.
  std::map<int, double> compute_usd;  // serverless, 2 peers, by memory size
  for (const auto& f : csv_rows(dir.path("memo/results.csv")))
    if (f.at("system") == "serverless" && f.at("peers") == "2")
      compute_usd[std::stoi(f.at("function_memory_mb"))] = std::stod(f.at("function_compute_usd"));
  REQUIRE(compute_usd.size() == 4);
  CHECK(compute_usd[3538] == doctest::Approx(2 * compute_usd[1769]).epsilon(0.01));
  CHECK(compute_usd[7076] == doctest::Approx(4 * compute_usd[1769]).epsilon(0.01));

  // Under a scaled network quota a function's sustained rate follows its memory above 2,048 MB: 3,538 and 7,076 MB
  // no longer share 1,769 MB's simulation (the instance system still is shared), and the results are again each's.
  std::string scaled = read_text(path);
  scaled.replace(scaled.find("  <systems"), 0, "  <functions network_quota=\"scalable\"/>\n");
  std::ofstream(dir.path("scaled.xml")) << scaled;
  CHECK(sweep_with_and_without_memo(dir, dir.path("scaled.xml"), "scaled", 8).find("sweep: 6 simulations were reused") !=
        std::string::npos);

  // With the hand calibration itself two threads are faster: every size computes at its own speed, nothing of
  // the serverless system is shared (the instance system still is), and the results are again simulating each's.
  std::string text = read_text(path);
  text.replace(text.find(dir.path("one_thread.csv")), dir.path("one_thread.csv").size(),
               P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv");
  std::ofstream(path) << text;
  CHECK(sweep_with_and_without_memo(dir, path, "threaded", 8).find("sweep: 6 simulations were reused") !=
        std::string::npos);
}

TEST_CASE("the shipped designs comparison sweeps every design, and report and recommend weigh them all") {
  TempDir dir;
  auto r = run_cli("sweep " P2PSIM_SOURCE_DIR "/experiments/designs_compare.xml --out " + dir.path("out") + " -j 2");
  REQUIRE(r.exit_code == 0);
  CHECK(count_lines(dir.path("out/results.csv")) == 1 + 15 * 8);  // 5 peer counts x 3 sizes, 8 systems each
  std::ifstream in(dir.path("out/results.csv"));
  std::set<std::string> strategies;
  for (std::string line; std::getline(in, line);)
    for (const char* s : {"p2p_all_to_all", "ring_allreduce", "parameter_server", "serverless_sharded",
                          "serverless_tree", "spirt", "lambdaml"})
      if (line.find(std::string(",") + s + ",") != std::string::npos) strategies.insert(s);
  CHECK(strategies.size() == 7);
  CHECK(run_cli("report " + dir.path("out")).exit_code == 0);
  auto rec = run_cli("recommend " + dir.path("out") + " --deadline-s 300");
  CHECK(rec.exit_code == 0);
  CHECK(rec.output.find("cheapest within the deadline") != std::string::npos);
}

TEST_CASE("sweep: duplicate axis values or axes are refused, a second sweep on a folder is refused, stale partial files go") {
  TempDir dir;
  auto dup = run_cli("sweep " + sweep_file(dir, R"(<axis select="peers/@count" values="2 4 2"/>)") + " --out " +
                     dir.path("a"));
  CHECK(dup.exit_code == 2);
  CHECK(dup.output.find("field 'axis/@values': lists '2' twice") != std::string::npos);
  // The same number written two ways is the same scenario too; two seeds a double cannot tell apart are not.
  for (const auto& [values, second] : {std::pair{"4 04", "04"}, std::pair{"4 4.0", "4.0"}, std::pair{"0 -0", "-0"}}) {
    CAPTURE(values);
    dup = run_cli("sweep " + sweep_file(dir, std::string(R"(<axis select="peers/@count" values=")") + values + R"("/>)") +
                  " --list");
    CHECK(dup.exit_code == 2);
    CHECK(dup.output.find(std::string("field 'axis/@values': lists '") + second + "' twice") != std::string::npos);
  }
  CHECK(run_cli("sweep " + sweep_file(dir, R"(<axis select="./@seed" values="4611686018427387903 4611686018427387902"/>)") +
                " --list").exit_code == 0);
  // --list lists only what a run would accept: a bad value is refused there too, at its axis.
  dup = run_cli("sweep " + sweep_file(dir, R"(<axis select="peers/@count" values="2 ten"/>)") + " --list");
  CHECK(dup.exit_code == 2);
  CHECK(dup.output.find("field 'axis/@values': the value 'ten' of peers/@count") != std::string::npos);
  auto twice = run_cli("sweep " + sweep_file(dir, R"(<axis select="peers/@count" values="2"/>
    <axis select="peers/@count" values="4"/>)") + " --out " + dir.path("a"));
  CHECK(twice.exit_code == 2);
  CHECK(twice.output.find("'peers/@count' is swept twice") != std::string::npos);

  // A long sweep holds the folder; a second one on it is refused at once.
  const auto path = sweep_file(dir, R"(<axis select="functions/@memory_mb" values="1024 2048"/>)", "8", "3000");
  const pid_t first = fork();
  if (first == 0) {
    execl(P2PSIM_BIN, P2PSIM_BIN, "sweep", path.c_str(), "--out", dir.path("b").c_str(), "-j", "1", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 100 && !fs::exists(dir.path("b/.lock")); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto second = run_cli("sweep " + path + " --out " + dir.path("b"));
  CHECK(second.exit_code == 2);
  CHECK(second.output.find("another sweep is running on") != std::string::npos);
  kill(first, SIGTERM);
  int status = 0;
  waitpid(first, &status, 0);

  // What a killed sweep left half-written is removed by the next run of the same sweep. (Not on folder b: the
  // killed sweep's experiment file is rewritten below, so b now holds "another version of this sweep" and is
  // refused, as it should be, once the killed sweep had claimed it; whether it had depended on timing.)
  auto small = sweep_file(dir, R"(<axis select="peers/@count" values="2"/>)");
  REQUIRE(run_cli("sweep " + small + " --out " + dir.path("c")).exit_code == 0);
  std::ofstream(dir.path("c/failed/x.json.partial")) << "{";
  fs::create_directories(dir.path("c/runs/.y.partial"));
  CHECK(run_cli("sweep " + small + " --out " + dir.path("c")).exit_code == 0);
  CHECK_FALSE(fs::exists(dir.path("c/failed/x.json.partial")));
  CHECK_FALSE(fs::exists(dir.path("c/runs/.y.partial")));
}

TEST_CASE("merge: a corrupted scenario.json or a truncated result.csv is named, exit 2, never a wrong table") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="2 4"/>)");
  REQUIRE(run_cli("sweep " + path + " --out " + dir.path("a")).exit_code == 0);
  const auto ids = finished_ids(dir.path("a"));
  REQUIRE(ids.size() == 2);
  const std::string first = dir.path("a/runs/" + *ids.begin());
  std::ofstream(first + "/scenario.json") << "{\"axes\": [";
  auto bad_json = run_cli("merge " + dir.path("a") + " --out " + dir.path("m"));
  CHECK(bad_json.exit_code == 2);
  CHECK(bad_json.output.find(first + "/scenario.json: unreadable") != std::string::npos);
  std::ofstream(first + "/scenario.json") << "{\"axes\": {\"peers/@count\": \"2\"}}";
  std::ofstream(first + "/result.csv") << "";
  auto truncated = run_cli("merge " + dir.path("a") + " --out " + dir.path("m"));
  CHECK(truncated.exit_code == 2);
  CHECK(truncated.output.find(first + "/result.csv:1: not a result table") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path("m/results.csv")));
}

namespace {
// The line of `path` holding `needle`, as error messages write it (":N:").
std::string line_of(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n, line.find(needle) != std::string::npos) return ":" + std::to_string(n) + ":";
  return ":?:";
}
}  // namespace

TEST_CASE("sweep: a bad axis value is one clear error naming the user's file, the axis line and the value, before anything runs") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="2 -3"/>
    <axis select="functions/@memory_mb" values="1024 2048"/>)");
  // The sweep's temporary folders go to a folder of this test's own (TMPDIR), which is then checked empty.
  fs::create_directories(dir.path("tmp"));
  const std::string tmp = "TMPDIR=" + dir.path("tmp");
  auto r = run_cli("sweep " + path + " --out " + dir.path("out"), tmp);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find(path + line_of(path, "peers/@count") + " field 'axis/@values': the value '-3' of "
                              "peers/@count: expected an integer in [1, ") != std::string::npos, r.output);
  CHECK(r.output.find("field 'peers/@count'") == std::string::npos);  // the axis names it once
  CHECK(r.output.find("scenarios/") == std::string::npos);  // no generated file named
  CHECK_FALSE(fs::exists(dir.path("out")));  // nothing ran, and no folder is left to clean up
  const auto probes_left = [&] {  // the scenarios probed for the check are written to a folder of their own
    return std::distance(fs::directory_iterator(dir.path("tmp")), fs::directory_iterator{});
  };
  CHECK(probes_left() == 0);

  // A name that exists nowhere: found by resolving, before any scenario runs.
  const auto types = sweep_file(dir, R"(<axis select="peers/@instance_type" values="t2.large t9.huge"/>)");
  r = run_cli("sweep " + types + " --out " + dir.path("out2"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(line_of(types, "instance_type\" values") + " field 'axis/@values': the value 't9.huge'") !=
        std::string::npos);
  CHECK(r.output.find("unknown instance type 't9.huge'") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path("out2")));

  // A profile axis whose XPath matches nothing.
  const auto profile = sweep_file(dir, R"(<axis select="profile:function_service/@nonesuch" values="1 2"/>)");
  r = run_cli("sweep " + profile + " --out " + dir.path("out3"), tmp);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("the value '1' of profile:function_service/@nonesuch") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path("out3")));
  CHECK(probes_left() == 0);
}

TEST_CASE("sweep: an error of the experiment itself is reported once, a sweep past the size limit is refused before expanding") {
  TempDir dir;
  // Every scenario would fail the same way: a missing instance type is no axis's fault.
  const auto path = dir.path("bad.xml");
  std::ofstream(path) << R"(<experiment name="s" seed="3">
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <sweep><axis select="peers/@count" values="2 4"/></sweep>
</experiment>
)";
  auto r = run_cli("sweep " + path + " --out " + dir.path("out"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ": field 'peers/@instance_type': required attribute is missing") != std::string::npos);
  CHECK(r.output.find("scenarios/") == std::string::npos);  // no generated file named
  CHECK_FALSE(fs::exists(dir.path("out")));

  // The sweep file's own mistakes are named at its own lines, as `run` names an experiment's (a misspelt attribute,
  // a strategy's misspelt parameter, a second <sweep>); an axis that names an element or an attribute an
  // experiment cannot have has a wrong select, not a wrong value. Each: the file, the text replaced in a good sweep
  // file, the line's needle, and the message after "FILE:LINE: ".
  struct Mistake {
    std::string file, find, replace, needle, message;
  };
  for (const auto& m : std::vector<Mistake>{
           {"typo.xml", "<sweep>", "<workflow status_pol_interval_s=\"2\"/>\n  <sweep>", "status_pol",
            "field 'workflow/@status_pol_interval_s': unknown attribute"},
           {"param.xml", "<sweep>",
            "<systems><system name=\"s\" strategy=\"p2p_all_to_all\" model_fech=\"none\"/></systems>\n  <sweep>",
            "model_fech", "field 'systems/system[@name='s']/@model_fech': unknown attribute"},
           {"twice.xml", "</experiment>",
            "<sweep><axis select=\"workload/@iterations\" values=\"1\"/></sweep>\n</experiment>",
            "workload/@iterations", "field 'sweep': <sweep> is given twice"},
           {"element.xml", "peers/@count", "function/@memory_mb", "function/@memory_mb",
            "field 'axis/@select': 'function/@memory_mb': unknown element <function>"},
           {"attribute.xml", "peers/@count", "peers/@cuont", "peers/@cuont",
            "field 'axis/@select': 'peers/@cuont': unknown attribute"}}) {
    CAPTURE(m.file);
    std::string text = read_text(sweep_file(dir, R"(<axis select="peers/@count" values="2 4"/>)"));
    text.replace(text.find(m.find), m.find.size(), m.replace);
    const auto file = dir.path(m.file);
    std::ofstream(file) << text;
    r = run_cli("sweep " + file + " --list");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(file + line_of(file, m.needle) + " " + m.message) != std::string::npos);
  }

  // 1,000 x 1,000 x 1,000 scenarios: refused at once (this used to exhaust memory even with --list).
  std::string values;
  for (int i = 1; i <= 1000; ++i) values += " " + std::to_string(i);
  const auto huge = sweep_file(dir, "<axis select=\"peers/@count\" values=\"" + values + "\"/>\n" +
                                        "<axis select=\"workload/@iterations\" values=\"" + values + "\"/>\n" +
                                        "<axis select=\"workload/@seed\" values=\"" + values + "\"/>");
  r = run_cli("sweep " + huge + " --list --out " + dir.path("huge"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("1000 x 1000 x 1000 = 1000000000 scenarios, over the limit of 100000 per sweep") !=
        std::string::npos);
}

TEST_CASE("sweep: values may repeat across a <together> group's axes, not as whole combinations, the paper grid lists 450") {
  TempDir dir;
  auto ok = run_cli("sweep " + sweep_file(dir, R"(<together>
      <axis select="workload/@dataset" values="mnist mnist"/>
      <axis select="peers/@count" values="2 4"/></together>)") + " --list --out " + dir.path("a"));
  CHECK(ok.exit_code == 0);
  auto repeated = run_cli("sweep " + sweep_file(dir, R"(<together>
      <axis select="workload/@dataset" values="mnist mnist"/>
      <axis select="peers/@count" values="2 2"/></together>)") + " --list --out " + dir.path("a"));
  CHECK(repeated.exit_code == 2);
  CHECK(repeated.output.find("repeat a combination of values") != std::string::npos);
  auto grid = run_cli("sweep " P2PSIM_SOURCE_DIR "/experiments/paper_grid.xml --list --out " + dir.path("g"));
  // --list needs no result folder; without --list one is required, said in one line.
  auto listed = run_cli("sweep " P2PSIM_SOURCE_DIR "/experiments/paper_grid.xml --list");
  CHECK(listed.exit_code == 0);
  CHECK(listed.output == grid.output);
  auto no_out = run_cli("sweep " P2PSIM_SOURCE_DIR "/experiments/paper_grid.xml");
  CHECK(no_out.exit_code == 2);
  CHECK(no_out.output.find("--out: required") != std::string::npos);
  CHECK(grid.exit_code == 0);
  CHECK(std::count(grid.output.begin(), grid.output.end(), '\n') == 450);
}

TEST_CASE("sweep: one attribute swept through two spellings, or a select of several elements, is refused up front") {
  TempDir dir;
  for (const auto& [axes, message] : std::vector<std::pair<std::string, std::string>>{
           {R"(<axis select="peers/@count" values="2 4"/><axis select="./peers/@count" values="4 8"/>)",
            "'./peers/@count' sets the same attribute as 'peers/@count'"},
           {R"(<axis select="//@count" values="2 4"/>)", "selects no element"},
           {R"(<axis select="*/@count" values="2 4"/>)", "elements: an axis sets one attribute of one element"}}) {
    CAPTURE(axes);
    const auto path = sweep_file(dir, axes);
    const auto r = run_cli("sweep " + path + " --out " + dir.path("out"));
    CHECK(r.exit_code == 2);  // was exit 1 "cannot rename" and a stray .partial
    CHECK(r.output.find("field 'axis/@select'") != std::string::npos);
    CHECK(r.output.find(message) != std::string::npos);
    CHECK(!fs::exists(dir.path("out")));
  }
}

TEST_CASE("sweep: a bad value of a system's parameter is refused before anything runs, naming the axis line") {
  TempDir dir;
  const std::string path = dir.path("systems.xml");
  std::ofstream(path) << R"(<experiment name="s" seed="3">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <systems><system name="sharded" strategy="serverless_sharded" shards="2"/></systems>
  <sweep>
    <axis select="systems/system[@name='sharded']/@shards" values="4 x"/>
  </sweep>
</experiment>
)";
  const auto r = run_cli("sweep " + path + " --out " + dir.path("out"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":7: field 'axis/@values': the value 'x' of systems/system[@name='sharded']/@shards") !=
        std::string::npos);
  CHECK(r.output.find("scenarios/") == std::string::npos);  // no generated file named
  CHECK_FALSE(fs::exists(dir.path("out")));
}

TEST_CASE("sweep: a folder remembers its experiment: a changed experiment or input file is refused, never mixed") {
  TempDir dir;
  const auto path = sweep_file(dir, R"(<axis select="peers/@count" values="2 4"/>)");
  REQUIRE(run_cli("sweep " + path + " --out " + dir.path("out")).exit_code == 0);
  const std::string before = read_text(dir.path("out/results.csv"));
  // The same experiment resumes (nothing to do); the experiment edited, it is refused and nothing changes.
  CHECK(run_cli("sweep " + path + " --out " + dir.path("out")).exit_code == 0);
  sweep_file(dir, R"(<axis select="peers/@count" values="2 4"/>)", "4", "2");  // 2 iterations now
  auto r = run_cli("sweep " + path + " --out " + dir.path("out"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds the results of another version of this sweep (the experiment file") != std::string::npos);
  CHECK(read_text(dir.path("out/results.csv")) == before);
  // An input file edited (a copy of the calibration the experiment points at): refused, naming the file.
  fs::copy_file(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv", dir.path("cal.csv"));
  std::string text = read_text(path);
  text.replace(text.find(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv"),
               std::string(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv").size(), "cal.csv");
  std::ofstream(path) << text;
  REQUIRE(run_cli("sweep " + path + " --out " + dir.path("out2")).exit_code == 0);
  const std::string rows = read_text(dir.path("cal.csv"));  // one more sample: a row repeated
  const auto second = rows.find('\n') + 1;
  std::ofstream(dir.path("cal.csv"), std::ios::app) << rows.substr(second, rows.find('\n', second) + 1 - second);
  r = run_cli("sweep " + path + " --out " + dir.path("out2"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("cal.csv changed since") != std::string::npos);
}

TEST_CASE("sweep and run: a folder of another sweep, a merge's table or a run's results are refused, never replaced") {
  TempDir dir;
  const auto a = sweep_file(dir, R"(<axis select="peers/@count" values="2 4"/>)");
  REQUIRE(run_cli("sweep " + a + " --out " + dir.path("a")).exit_code == 0);
  // Another sweep file on a's folder: refused naming the sweep the folder belongs to, not "this one changed".
  // (The same text elsewhere is the same sweep: it resumes.)
  fs::create_directories(dir.path("other"));
  const auto b = dir.path("other/b.xml");
  fs::copy_file(a, b);
  CHECK(run_cli("sweep " + b + " --out " + dir.path("a")).exit_code == 0);
  CHECK(read_text(dir.path("a/sweep.json")).find(fs::absolute(b).lexically_normal().string()) != std::string::npos);
  const auto c = dir.path("other/c.xml");
  std::string other = read_text(a);
  other.replace(other.find("seed=\"3\""), 8, "seed=\"4\"");
  std::ofstream(c) << other;
  auto r = run_cli("sweep " + c + " --out " + dir.path("a"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds the results of another sweep (" + fs::absolute(b).lexically_normal().string() + ")") !=
        std::string::npos);
  // A merge's table (no sweep.json): a sweep there would have replaced it. (A folder's failed scenarios go with
  // its rows into the merge, so that report and recommend on it name them.)
  std::ofstream(dir.path("a/failed/0123456789abcdef.json")) << R"({"scenario_id": "0123456789abcdef"})";
  REQUIRE(run_cli("merge " + dir.path("a") + " --out " + dir.path("merged")).exit_code == 0);
  CHECK(fs::exists(dir.path("merged/failed/0123456789abcdef.json")));
  fs::remove(dir.path("a/failed/0123456789abcdef.json"));
  const std::string merged = read_text(dir.path("merged/results.csv"));
  r = run_cli("sweep " + b + " --out " + dir.path("merged"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds results that are not this sweep's (results.csv") != std::string::npos);
  CHECK(read_text(dir.path("merged/results.csv")) == merged);
  CHECK_FALSE(fs::exists(dir.path("merged/sweep.json")));
  // A run's results: the same.
  const auto one = dir.path("one.xml");
  std::string text = read_text(a);
  text.erase(text.find("  <sweep>"), text.find("</sweep>") + 9 - text.find("  <sweep>"));
  std::ofstream(one) << text;
  REQUIRE(run_cli("run " + one + " -q --out " + dir.path("run")).exit_code == 0);
  r = run_cli("sweep " + b + " --out " + dir.path("run"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("(result.csv, of a merge or a run)") != std::string::npos);
  // And a run into a sweep's or a merge's folder, whose tables report and recommend would read instead of its own.
  for (const char* folder : {"a", "merged"}) {
    r = run_cli("run " + one + " -q --out " + dir.path(folder));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("holds a sweep's or a merge's results") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path(std::string(folder) + "/result.csv")));
  }
}

TEST_CASE("sweep: paths with spaces (a profile, a calibration folder) work as in run, provenance does not depend on --out") {
  TempDir dir;
  fs::create_directories(dir.path("my data/cal dir"));
  fs::copy_file(P2PSIM_SOURCE_DIR "/platforms/aws_us_east_1.xml", dir.path("my data/profile.xml"));
  fs::copy(P2PSIM_SOURCE_DIR "/platforms/prices", dir.path("my data/prices"));  // its price book, by relative path
  fs::copy_file(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv", dir.path("my data/cal dir/cal.csv"));
  const std::string path = dir.path("sweep.xml");
  std::ofstream(path) << R"(<experiment name="s" seed="3">
  <profile file="my data/profile.xml"/>
  <calibration files="my\ data/cal\ dir"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <sweep><axis select="peers/@count" values="2 4"/></sweep>
</experiment>
)";
  auto shallow = run_cli("sweep " + path + " --out " + dir.path("a"));
  INFO(shallow.output);
  REQUIRE(shallow.exit_code == 0);
  REQUIRE(run_cli("sweep " + path + " --out " + dir.path("deep/er/b")).exit_code == 0);
  for (const auto& id : finished_ids(dir.path("a"))) {
    const auto a = nlohmann::json::parse(read_text(dir.path("a/runs/" + id + "/result.json")));
    const auto b = nlohmann::json::parse(read_text(dir.path("deep/er/b/runs/" + id + "/result.json")));
    CHECK(a["inputs_xxh64"] == b["inputs_xxh64"]);
    CHECK(a["inputs_xxh64"].contains("my data/profile.xml"));
    CHECK(a["inputs_xxh64"].contains("my data/cal dir/cal.csv"));
    CHECK(a["inputs_xxh64"].contains(id + ".xml"));
  }
}

TEST_CASE("sweep: price books side by side (prices/@file) and a price as an axis (prices:XPATH) change bills, not times") {
  TempDir dir;
  // A second book: the test book with each function request at twice the price.
  std::string book = read_text(P2PSIM_SOURCE_DIR "/tests/data/test_prices.xml");
  const std::string request = "per_request_usd=\"0.000001\"";
  REQUIRE(book.find(request) != std::string::npos);
  book.replace(book.find(request), request.size(), "per_request_usd=\"0.000002\"");
  std::ofstream(dir.path("dearer.xml")) << book;
  const std::string path = sweep_file(dir, "<axis select=\"prices/@file\" values=\"" P2PSIM_SOURCE_DIR
                                           "/tests/data/test_prices.xml " + dir.path("dearer.xml") + "\"/>\n"
                                           "<axis select=\"prices:instances/instance[@type='t2.medium']/@per_hour_usd\" "
                                           "values=\"0.1 0.3\"/>");
  { auto r = run_cli("sweep " + path + " --out " + dir.path("out") + " -j 2"); INFO(r.output); REQUIRE(r.exit_code == 0); }
  // (book, t2.medium price) -> system -> (total_s, instances_usd, function_requests_usd)
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::array<double, 3>>> rows;
  for (const auto& f : csv_rows(dir.path("out/results.csv"))) {
    const std::string book_file = fs::path(f.at("prices/@file")).filename().string();
    rows[{book_file, f.at("prices:instances/instance[@type='t2.medium']/@per_hour_usd")}][f.at("system")] = {
        std::stod(f.at("total_s")), std::stod(f.at("instances_usd")), std::stod(f.at("function_requests_usd"))};
  }
  REQUIRE(rows.size() == 4);
  const auto& base = rows[{"test_prices.xml", "0.1"}];
  REQUIRE(base.size() == 2);
  for (const auto& [system, v] : base) {
    CHECK(v[1] > 0);
    for (const auto& [key, by_system] : rows) {
      const auto& x = by_system.at(system);
      CHECK(x[0] == v[0]);  // the same simulation: prices change no time
      CHECK(x[1] == doctest::Approx(v[1] * (key.second == "0.3" ? 3 : 1)));
      CHECK(x[2] == doctest::Approx(v[2] * (key.first == "dearer.xml" ? 2 : 1)));
    }
  }
  CHECK(base.at("serverless")[2] > 0);
}
