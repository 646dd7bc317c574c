// The p2psim command line end to end: help, the torch-backed subcommands, and bad input.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <algorithm>
#include <fmt/core.h>

#include "csv_rows.hpp"
#include "results/design_accuracy.hpp"
#include "run_cli.hpp"
#include "sim_fixture.hpp"
#include "temp_dir.hpp"
#include "util/read_text.hpp"

TEST_CASE("help lists the commands and an unknown command exits 2") {
  auto help = run_cli("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("calibrate") != std::string::npos);
  auto bad = run_cli("frobnicate");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("unknown command 'frobnicate'") != std::string::npos);
  // A missing file is named as the usage line names it, not as the hidden option that holds it.
  auto bare = run_cli("run");
  CHECK(bare.exit_code == 2);
  CHECK(bare.output.find("p2psim run: error: missing EXPERIMENT.xml (usage: p2psim run EXPERIMENT.xml") !=
        std::string::npos);
  CHECK(run_cli("fit").output.find("p2psim fit: error: missing CSV") != std::string::npos);
  CHECK(bare.output.find("--experiment") == std::string::npos);
}

TEST_CASE("run --check refuses the options it would ignore") {
  TempDir dir;
  const std::string main_job = std::string(P2PSIM_SOURCE_DIR) + "/experiments/vgg11_cifar.xml";
  CHECK(run_cli("run " + main_job + " --check").exit_code == 0);
  for (const std::string& option : {"--out " + dir.path("never"), std::string("--replicates 10"),
                                   std::string("--sensitivity"), std::string("-q"),
                                   "--provenance-base " + dir.path(""), std::string("--exact-storage-sharing")}) {
    CAPTURE(option);
    auto r = run_cli("run " + main_job + " --check " + option);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("--check only checks and writes nothing") != std::string::npos);
  }
  CHECK(!std::filesystem::exists(dir.path("never")));
}

TEST_CASE("the simulator front end does not load libtorch") {
  auto r = run_cli("--help", "LD_DEBUG=libs");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("libstdc++.so") != std::string::npos);  // the loader trace is there ...
  CHECK(r.output.find("libtorch") == std::string::npos);    // ... and holds no torch
}

TEST_CASE("models lists parameter counts and gradient bytes") {
  auto r = run_cli("models --csv --classes 10");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("vgg11,10,128807306,515229224,3x224x224") != std::string::npos);
  CHECK(r.output.find("mnist_cnn,10,1199882,4799528,1x28x28") != std::string::npos);
}

TEST_CASE("calibrate writes samples and metadata that fit reads back") {
  TempDir dir;
  const auto csv = dir.path("mnist.csv");
  auto r = run_cli("calibrate -m mnist_cnn --batch-sizes 4,8 --threads 1 --warmup 1 --repeats 2 --min-repeats 2 "
                   "--contention-window-s 0.02 --average-counts 2 --codecs fp16,qsgd8_paper -o " + csv);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("[1/") != std::string::npos);  // progress on stderr
  std::ifstream in(csv);
  std::string line;
  int train = 0, ops = 0, serialization = 0;
  std::getline(in, line);
  CHECK(line.rfind("kernel,model,num_classes,input_shape,batch_size,threads", 0) == 0);
  while (std::getline(in, line)) {
    if (line.rfind("serialize,", 0) == 0 || line.rfind("deserialize,", 0) == 0) ++serialization;
    (line.rfind("train_step,mnist_cnn,10,1x28x28,", 0) == 0 ? train : ops)++;
  }
  CHECK(train == 4);     // 2 batch sizes x 2 samples
  CHECK(ops == 2 * 7);   // average + 2 codecs x (encode, decode) + serialize + deserialize, 2 samples each
  CHECK(serialization == 2 * 2);
  auto meta = nlohmann::json::parse(std::ifstream(csv + ".meta.json"));
  CHECK(meta["torch_version"].get<std::string>().rfind("1.13", 0) == 0);
  CHECK(meta["command"].get<std::string>().find("calibrate -m mnist_cnn") != std::string::npos);
  CHECK(meta.contains("cpu_model"));
  CHECK(meta.contains("blas"));
  CHECK(meta["allocator"].get<std::string>().find("malloc") != std::string::npos);
  CHECK_FALSE(meta["cpu_identity"].get<std::string>().empty());
  CHECK(meta["samples_kept_above_contention_limit"].get<int>() >= 0);
  CHECK(meta["contention_window_s"].get<double>() == 0.02);
  CHECK(meta["max_core_round_trip_ns"].get<double>() == 200);  // the default
  CHECK(meta["samples_kept_on_split_cpus"].get<int>() == 0);   // one thread: never probed
  // Every sample records what the process used: CPU time (a step keeps at least part of a CPU busy; on one
  // thread it cannot use more than its wall time, give or take the clocks' granularity) and page faults.
  std::ifstream rows(csv);
  std::getline(rows, line);
  std::vector<std::string> header;
  std::istringstream names(line);
  for (std::string f; std::getline(names, f, ',');) header.push_back(f);
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const size_t seconds_at = column("seconds"), cpu_at = column("cpu_s"), system_at = column("system_cpu_s"),
               faults_at = column("minor_faults"), round_trip_at = column("core_round_trip_ns");
  REQUIRE(faults_at < header.size());
  REQUIRE(round_trip_at < header.size());
  int checked = 0;
  while (std::getline(rows, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    REQUIRE(f.size() == header.size());
    CAPTURE(line);
    const double seconds = std::stod(f[seconds_at]), cpu_s = std::stod(f[cpu_at]), system_s = std::stod(f[system_at]);
    CHECK(cpu_s >= 0);
    CHECK(cpu_s <= seconds * 1.5 + 0.01);
    CHECK(system_s <= cpu_s + 1e-3);
    CHECK(std::stoll(f[faults_at]) >= 0);
    CHECK(std::stod(f[round_trip_at]) == 0);  // one thread: no CPUs to probe between
    ++checked;
  }
  CHECK(checked == 4 + 2 * 7);

  auto fit = run_cli("fit " + csv + " --model mnist_cnn --input 1x28x28 --batch 8");
  CHECK(fit.exit_code == 0);
  CHECK(fit.output.find("step_seconds=") != std::string::npos);
  auto beyond = run_cli("fit " + csv + " --model mnist_cnn --input 1x28x28 --batch 64");
  CHECK(beyond.exit_code == 2);
  CHECK(beyond.output.find("outside what the calibration") != std::string::npos);
  // A query refused is refused before the tables are printed, not after them.
  for (const char* query : {" --model mnist_cnn --input 1x28x28 --batch 8 --vcpus nan",
                            " --model mnist_cnn --input 1x28x28 --batch inf", " --vcpus 2"}) {
    CAPTURE(query);
    auto refused = run_cli("fit " + csv + query);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find("kernel family") == std::string::npos);
  }
  CHECK(beyond.output.find("kernel family") == std::string::npos);
}

TEST_CASE("calibrate: a leftover at a temporary file's old fixed name does not stop it") {
  TempDir dir;
  const auto csv = dir.path("ops.csv");
  std::filesystem::create_directories(csv + ".partial");  // an interrupted run's leftovers, or folders
  std::filesystem::create_directories(csv + ".meta.json.partial");
  auto r = run_cli("calibrate -m mnist_cnn --no-train-steps --serialization-only --threads 1 --warmup 1 --repeats 1 --min-repeats 1 "
                   "--contention-window-s 0 -o " + csv);
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::is_regular_file(csv));
  CHECK(std::filesystem::is_regular_file(csv + ".meta.json"));
}

TEST_CASE("fit: the shipped input pipeline's fits are listed, one per input shape") {
  auto fit = run_cli("fit " P2PSIM_SOURCE_DIR "/calibration/kernels/input_pipeline.csv");
  CHECK(fit.exit_code == 0);
  for (const char* shape : {"1x28x28", "3x32x32", "3x21x21", "3x29x29", "3x224x224"})
    CHECK(fit.output.find(std::string("input_pipeline to_tensor@") + shape) != std::string::npos);
}

TEST_CASE("bad calibrate and fit input exits 2 with a clear message") {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"calibrate -m nosuch -o " + dir.path("x.csv"), "unknown model 'nosuch'"},
      {"calibrate -m mnist_cnn@1x28 -o " + dir.path("x.csv"), "is not CxHxW"},
      {"calibrate -m vgg11_cifar@3x8x8 -o " + dir.path("x.csv"), "does not accept input 3x8x8"},
      {"calibrate -m mnist_cnn --batch-sizes 0 -o " + dir.path("x.csv"), "--batch-sizes: 0 is outside"},
      // Batch-normalising a 1x1 feature map needs two samples, in LibTorch as in PyTorch: said before timing.
      {"calibrate -m mobilenet_v3_small@3x29x29 --batch-sizes 1,2 -o " + dir.path("x.csv"),
       "mobilenet_v3_small@3x29x29 cannot train on a batch of 1"},
      {"calibrate -m mnist_cnn -o /nonexistent/dir/x.csv", "folder '/nonexistent/dir' does not exist"},
      // Refused before any timing, not at its end with the samples lost (a folder, a folder that takes no file).
      {"calibrate -m mnist_cnn -o " + dir.root.string(), "is a folder, expected a file name"},
      {"calibrate -m mnist_cnn -o /proc/x.csv", "cannot write into '/proc'"},
      {"calibrate -m mnist_cnn", "'--out' is required"},
      {"calibrate -m mnist_cnn --contention-window-s -1 -o " + dir.path("x.csv"),
       "--contention-window-s must be in [0, 60]"},
      {"calibrate -m mnist_cnn --max-core-round-trip-ns -5 -o " + dir.path("x.csv"),
       "--max-core-round-trip-ns must be in [0, 1000000]"},
      {"calibrate -m mnist_cnn --max-wait-for-shared-cache-s -1 -o " + dir.path("x.csv"),
       "--max-wait-for-shared-cache-s must be in [0, 86400]"},
      {"fit " + dir.path("absent.csv"), "absent.csv: no such file"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    auto r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
}

TEST_CASE("run: every shipped experiment simulates both architectures and writes its files") {
  for (const char* name : {"vgg11_cifar", "squeezenet_mnist", "mobilenet_v3_small_mnist"}) {
    CAPTURE(name);
    TempDir dir;
    auto r = run_cli(std::string("run " P2PSIM_SOURCE_DIR "/experiments/") + name + ".xml --out " + dir.path("out"));
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("gradient-computation time improvement") != std::string::npos);
    CHECK(r.output.find("cost ratio (serverless / instance)") != std::string::npos);
    CHECK(r.output.find("total time (serverless vs instance): ") != std::string::npos);
    CHECK(r.output.find("speed-up vs baseline (x)") != std::string::npos);
    auto j = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")));
    // An iteration's parts add up to it: the four named ones and the rest (waits, polls).
    for (const char* arch : {"instance", "serverless"}) {
      const auto& a = j["systems"][arch];
      const double parts = a["gradient_s_per_iteration"].get<double>() + a["communication_s_per_iteration"].get<double>() +
                           a["aggregate_update_s_per_iteration"].get<double>() + a["barrier_s_per_iteration"].get<double>();
      CHECK(parts <= a["iteration_s"].get<double>() * (1 + 1e-12));
    }
    CHECK(j["systems"]["serverless"]["vs_baseline"]["total_time_speedup"].get<double>() ==
          doctest::Approx(j["systems"]["instance"]["total_s"].get<double>() / j["systems"]["serverless"]["total_s"].get<double>()));
    // "Never" is an empty CSV field, not -1 (these t2.large peers keep their CPU credits).
    const std::string csv = p2psim::read_text(dir.path("out/result.csv"));
    const auto header_end = csv.find('\n');
    const auto column = csv_column(csv, "credits_exhausted_at_s");
    REQUIRE(column);
    const size_t at = *column;
    std::string line = csv.substr(header_end + 1, csv.find('\n', header_end + 1) - header_end - 1);
    for (size_t k = 0; k < at; ++k) line = line.substr(line.find(',') + 1);
    CHECK(line.substr(0, line.find(',')).empty());
    for (const char* arch : {"instance", "serverless"}) {
      const auto& a = j["systems"][arch];
      CHECK(a["gradient_s_per_iteration"].get<double>() > 0);
      CHECK(a["total_s"].get<double>() >= a["iteration_s"].get<double>());
      CHECK(a["cost_usd"]["total"].get<double>() > 0);
      CHECK(a["usage"]["gradient_deliveries"].get<int>() == 4 * 3 * 4);  // 4 peers, 3 others, 4 iterations
    }
    CHECK(j["systems"]["serverless"]["cost_usd"]["function_compute"].get<double>() > 0);
    CHECK(j["systems"]["instance"]["cost_usd"]["function_compute"].get<double>() == 0);
    CHECK(j["inputs_xxh64"].size() >= 4);
    CHECK(p2psim::read_text(dir.path("out/result.csv")).find("gradient_s_per_iteration") != std::string::npos);
    CHECK(p2psim::read_text(dir.path("out/trace.csv")).find("serverless,3,3,-1,aggregate_update,") != std::string::npos);
  }
}

// The rows as a sorted multiset: participants that reach a point at the same simulated instant may be recorded
// in another order (which waiter SimGrid wakes first is no property of the design), so the order of rows is
// not compared; every row, peer and invocation included, must still be there, to the printed digit (1e-9 s).
std::vector<std::string> sorted_rows(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  std::sort(rows.begin(), rows.end());  // the header too: it must match like any row
  return rows;
}

TEST_CASE("run: each strategy's scenario under tests/scenarios reproduces its hand-checked trace exactly") {
  int scenarios = 0;
  for (const auto& entry : std::filesystem::directory_iterator(P2PSIM_SOURCE_DIR "/tests/scenarios")) {
    CAPTURE(entry.path().string());
    TempDir dir;
    auto r = run_cli("run " + (entry.path() / "experiment.xml").string() + " -q --out " + dir.path("out"));
    REQUIRE(r.exit_code == 0);
    const auto expected = sorted_rows(p2psim::read_text((entry.path() / "expected_trace.csv").string()));
    const auto actual = sorted_rows(p2psim::read_text(dir.path("out/trace.csv")));
    CHECK(expected.size() > 5);
    std::vector<std::string> missing, extra;
    std::set_difference(expected.begin(), expected.end(), actual.begin(), actual.end(), std::back_inserter(missing));
    std::set_difference(actual.begin(), actual.end(), expected.begin(), expected.end(), std::back_inserter(extra));
    if (!missing.empty() || !extra.empty())  // show the first row of each side that the other lacks
      FAIL_CHECK(missing.size() << " expected row(s) missing, e.g. '" << (missing.empty() ? "" : missing[0]) << "'; "
                                << extra.size() << " unexpected, e.g. '" << (extra.empty() ? "" : extra[0]) << "'");
    ++scenarios;
  }
  CHECK(scenarios == 7);  // one folder per strategy (sim/simulation/strategies/registry.cpp)
}

TEST_CASE("run: a paper-grid scenario whose T2 NICs run dry and burst again under downloads completes") {
  // 8 of the paper grid's 450 scenarios (VGG-11, batch 64, 4 and 8 t2.medium peers) aborted in SimGrid
  // ("Variable penalty should not be negative!") when a peer's upload direction burst again while a download that
  // began at its baseline was in flight (sg/nic_credits.hpp, Bucket::held). One of them, as the sweep writes it.
  TempDir dir;
  std::ofstream(dir.path("grid_scenario.xml")) << R"(<experiment name="paper_grid" seed="1">
  <workload model="vgg11" input_shape="3x32x32" dataset="cifar10" batch_size="64" iterations="4"/>
  <peers count="4" instance_type="t2.medium"/>
  <functions memory_mb="1769"/>
</experiment>
)";
  auto r = run_cli("run " + dir.path("grid_scenario.xml") + " -q --out " + dir.path("out"));
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")));
  for (const auto& [name, system] : j["systems"].items()) {
    CAPTURE(name);
    CHECK(system["status"] == "ok");
  }
}

TEST_CASE("run: the designs experiment compares four systems with the baseline") {
  TempDir dir;
  auto r = run_cli("run " P2PSIM_SOURCE_DIR "/experiments/designs_vgg11_cifar.xml --out " + dir.path("out"));
  REQUIRE(r.exit_code == 0);
  for (const char* system : {"serverless", "ring", "sharded"})
    CHECK(r.output.find(std::string("cost ratio (") + system + " / instance)") != std::string::npos);
  auto j = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")));
  CHECK(j["baseline"] == "instance");
  CHECK(j["systems"]["ring"]["strategy"] == "ring_allreduce");
  CHECK(j["systems"]["ring"]["transport"] == "peer_to_peer");
  CHECK(j["systems"]["ring"]["cost_usd"]["broker"].get<double>() == 0);
  CHECK(j["systems"]["sharded"]["usage"]["function_invocations"].get<int>() == 8 * 4);  // 8 reducers x 4 iterations
  CHECK_FALSE(j["systems"]["instance"].contains("vs_baseline"));
  CHECK(j["systems"]["ring"]["vs_baseline"]["cost_ratio"].get<double>() ==
        doctest::Approx(j["systems"]["ring"]["cost_usd"]["total"].get<double>() /
                        j["systems"]["instance"]["cost_usd"]["total"].get<double>()).epsilon(1e-9));
  const std::string csv = p2psim::read_text(dir.path("out/result.csv"));
  CHECK(csv.rfind("experiment,system,strategy,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);  // header + 4 systems

  // Beside the table, each design's accuracy against measured runs, as validation/accuracy_by_design.csv holds it.
  const auto recorded = p2psim::load_accuracy_by_design(P2PSIM_SOURCE_DIR "/validation/accuracy_by_design.csv");
  const auto ring = std::find_if(recorded.begin(), recorded.end(),
                                 [](const auto& a) { return a.design == "ring_allreduce" && a.kind == "time"; });
  REQUIRE(ring != recorded.end());
  CHECK(r.output.find(fmt::format("  ring_allreduce: time {:.1f} % median |error| over {} measured metrics",
                                  ring->median_abs_error_percent, ring->metrics)) != std::string::npos);
  CHECK(r.output.find("  p2p_all_to_all (instance, serverless): no measured run of this design") != std::string::npos);
  CHECK(r.output.find("serverless_sharded: time ") != std::string::npos);
  // Then what a real run of each system could take by the record of every design: its time over 1 + p90 to over
  // 1 + p10, the systems' names padded to the longest (serverless).
  const auto every = std::find_if(recorded.begin(), recorded.end(),
                                  [](const auto& a) { return a.design == p2psim::kEveryDesign && a.kind == "time"; });
  REQUIRE(every != recorded.end());
  REQUIRE(every->error_p10_percent);
  const double ring_s = j["systems"]["ring"]["total_s"].get<double>();
  CHECK_MESSAGE(r.output.find(fmt::format("    ring        {:.0f} to {:.0f} s (predicted {:.0f} s)\n",
                                          ring_s / (1 + *every->error_p90_percent / 100),
                                          ring_s / (1 + *every->error_p10_percent / 100), ring_s)) != std::string::npos,
                r.output);

  // What each run used, as its design works: the instance peers train on their CPUs and move gradients through the
  // broker; the serverless peers fan out through the workflow to functions that read and write storage; the ring
  // moves gradients between instances, with no broker.
  auto used = [&](const char* system) {
    std::set<std::string> names;
    for (const auto& m : j["systems"][system]["mechanisms"]) names.insert(m.get<std::string>());
    return names;
  };
  CHECK(used("instance") == std::set<std::string>{"instance_compute", "object_storage_from_ec2", "broker"});
  CHECK(used("serverless") == std::set<std::string>{"function_cold_start", "function_compute", "workflow",
                                                    "object_storage_from_ec2", "object_storage_from_functions",
                                                    "broker"});
  CHECK(used("ring") == std::set<std::string>{"instance_compute", "object_storage_from_ec2", "ec2_network"});
  CHECK(used("sharded").count("object_storage_from_functions") == 1);
  CHECK(used("sharded").count("workflow") == 0);
  CHECK(csv.find(",instance_compute;object_storage_from_ec2;broker,") != std::string::npos);  // result.csv's too
  // Under the paper's design, measured whole by no case, each mechanism its two systems used, with its own accuracy
  // or none: the broker was never measured alone.
  std::set<std::string> p2p = used("instance");
  p2p.merge(used("serverless"));
  for (const auto& name : p2p) CHECK(r.output.find("[" + name + "; ") != std::string::npos);
  CHECK(r.output.find("    the message broker [broker; instance, serverless]: no validation case measures it\n") !=
        std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') -
            std::count(r.output.begin(), r.output.begin() + r.output.find("against published measurements"), '\n') ==
        static_cast<long>(4 + p2p.size() + 5));  // the heading, three designs (the paper's two systems share
                                                  // theirs), a line for each mechanism under the paper's, and the
                                                  // record's band: its heading and the four systems
}

namespace {
// Every number and string of `old` equal in `now` (numbers within 1e-12 relative); arrays of equal length.
void check_same_values(const nlohmann::json& old, const nlohmann::json& now, const std::string& path) {
  CAPTURE(path);
  if (old.is_object()) {
    for (const auto& [key, value] : old.items()) {
      REQUIRE(now.contains(key));
      check_same_values(value, now[key], path + "/" + key);
    }
  } else if (old.is_array()) {
    REQUIRE(now.size() == old.size());
    for (size_t i = 0; i < old.size(); ++i) check_same_values(old[i], now[i], path + "/" + std::to_string(i));
  } else if (old.is_number()) {
    CHECK(now.get<double>() == doctest::Approx(old.get<double>()).epsilon(1e-12));
  } else {
    CHECK(now == old);
  }
}

// Trace rows without the peer and invocation columns, sorted: which of two interchangeable participants that
// tie goes first may change.
std::vector<std::string> rows_without_peer(const std::string& csv) {
  std::vector<std::string> rows;
  for (const auto& f : csv_rows(csv)) {
    REQUIRE(f.size() == 8);
    rows.push_back(f[0] + "," + f[2] + "," + f[4] + "," + f[5] + "," + f[6] + "," + f[7]);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}
}  // namespace

TEST_CASE("run: the paper's two systems' results, and VGG-11's, are pinned by golden outputs (tests/golden/README.md)") {
  for (const char* name : {"squeezenet_mnist", "mobilenet_v3_small_mnist", "vgg11_cifar"}) {
    CAPTURE(name);
    TempDir dir;
    REQUIRE(run_cli(std::string("run " P2PSIM_SOURCE_DIR "/experiments/") + name + ".xml -q --out " + dir.path("out"))
                .exit_code == 0);
    const std::string golden = std::string(P2PSIM_SOURCE_DIR "/tests/golden/paper_systems/") + name;
    auto old = nlohmann::json::parse(p2psim::read_text(golden + "/result.json"));
    auto now = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")));
    old.erase("inputs_xxh64");
    check_same_values(old, now, "");
    CHECK(rows_without_peer(p2psim::read_text(golden + "/trace.csv")) == rows_without_peer(p2psim::read_text(dir.path("out/trace.csv"))));
  }
}

TEST_CASE("run: provenance records every input, however the experiment's path is typed") {
  TempDir dir;
  // The README's relative form, from the source tree, and an absolute path from elsewhere.
  auto relative = run_cli("run experiments/squeezenet_mnist.xml -q --out " + dir.path("rel"),
                          "cd " P2PSIM_SOURCE_DIR " &&");
  auto absolute = run_cli("run " P2PSIM_SOURCE_DIR "/experiments/squeezenet_mnist.xml -q --out " + dir.path("abs"),
                          "cd " + dir.root.string() + " &&");
  REQUIRE(relative.exit_code == 0);
  REQUIRE(absolute.exit_code == 0);
  CHECK(p2psim::read_text(dir.path("rel/result.json")) == p2psim::read_text(dir.path("abs/result.json")));
  const auto inputs = nlohmann::json::parse(p2psim::read_text(dir.path("rel/result.json")))["inputs_xxh64"];
  CHECK(inputs.contains("squeezenet_mnist.xml"));
  CHECK(inputs.contains("../platforms/aws_us_east_1.xml"));
  CHECK(inputs.contains("../calibration/models.csv"));
  CHECK_FALSE(inputs.contains(""));
}

TEST_CASE("run: provenance records a target's own calibration, and its hash follows the file's content") {
  TempDir dir;
  const std::string hand = p2psim::read_text(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv");
  std::ofstream(dir.path("experiment.xml")) << R"(<experiment name="t" seed="1">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv">
    <target instance_type="t2.medium" files="t2.csv"/>
  </calibration>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="2" instance_type="t2.medium"/>
</experiment>
)";
  auto hash_of_target = [&](const std::string& csv, const std::string& out) {
    std::ofstream(dir.path("t2.csv")) << csv;
    REQUIRE(run_cli("run " + dir.path("experiment.xml") + " -q --out " + dir.path(out)).exit_code == 0);
    const auto inputs = nlohmann::json::parse(p2psim::read_text(dir.path(out + "/result.json")))["inputs_xxh64"];
    REQUIRE(inputs.contains("t2.csv"));
    return inputs["t2.csv"].get<std::string>();
  };
  // The same samples, the first one's seconds written with one more digit: another file, another hash.
  const std::string first = hash_of_target(hand, "a");
  CHECK(first.size() == 16);
  std::string same_samples = hand;
  const auto at = same_samples.find(",0,1.1\n");
  REQUIRE(at != std::string::npos);
  same_samples.replace(at, 7, ",0,1.10\n");
  CHECK(hash_of_target(same_samples, "b") != first);
  CHECK(hash_of_target(hand, "c") == first);
}

TEST_CASE("run: a damaged record of the validation by design is one clear error, after the results are written") {
  TempDir dir;
  // p2psim's data as shipped, except the validation folder: its summary by design has a bad kind on line 2.
  const std::string data = dir.path("data");
  std::filesystem::create_directories(data + "/validation");
  for (const char* sub : {"platforms", "calibration", "experiments", "notebooks"})
    std::filesystem::create_directory_symlink(P2PSIM_SOURCE_DIR "/" + std::string(sub), data + "/" + sub);
  std::ofstream(data + "/validation/accuracy_by_design.csv")
      << "design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,with_band,inside_band,"
         "sources,error_p10_percent,error_p90_percent,held_out_with_band,held_out_inside_band\n"
         "p2p_all_to_all,speed,1,1.0,1.0,0,0,0,1,,,0,0\n";
  std::ofstream(dir.path("e.xml")) << R"(<experiment name="e" seed="1">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/tests/data/test_profile.xml"/>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="1" instance_type="t2.large"/>
</experiment>
)";
  const std::string env = "P2PSIM_DATA_DIR=" + data;
  auto r = run_cli("run " + dir.path("e.xml") + " --out " + dir.path("out"), env);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("accuracy_by_design.csv:2: field 'kind'") != std::string::npos);
  CHECK(r.output.find("total (s)") != std::string::npos);                 // the table came first
  CHECK(std::filesystem::is_regular_file(dir.path("out/result.json")));   // and the results are kept
  // Without the record: said, not an error.
  std::filesystem::remove(data + "/validation/accuracy_by_design.csv");
  r = run_cli("run " + dir.path("e.xml"), env);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("no validation summary at " + data + "/validation/accuracy_by_design.csv") != std::string::npos);
}

TEST_CASE("run: each function invocation draws the same step noise at two memory sizes (common random numbers)") {
  // Heavy-tailed step times, one minibatch per invocation, all minibatches the same size. At 1,024 MB the
  // functions are slower (and start slower) than at 2,048 MB, so invocations reach their draws in another
  // order; with a draw per invocation, every invocation's compute time still scales by one common factor.
  TempDir dir;
  auto run = [&](int memory_mb) {
    const std::string name = "m" + std::to_string(memory_mb);
    std::ofstream(dir.path(name + ".xml")) << R"(<experiment name="crn" seed="1">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/tests/data/test_profile.xml"/>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="6" iterations="2"/>
  <peers count="2" instance_type="t2.large"/>
  <functions memory_mb=")" << memory_mb << R"(" minibatches_per_invocation="1"/>
  <stragglers tail_probability="0.5" tail_shape="3"/>
  <systems><system name="serverless" strategy="p2p_all_to_all" compute="functions"/></systems>
</experiment>
)";
    REQUIRE(run_cli("run " + dir.path(name + ".xml") + " -q --out " + dir.path(name)).exit_code == 0);
    std::map<std::string, double> compute_s;  // by peer, iteration, invocation
    for (const auto& f : csv_rows(p2psim::read_text(dir.path(name + "/trace.csv"))))
      if (f[4] == "compute" && f[3] != "-1") compute_s[f[1] + "/" + f[2] + "/" + f[3]] = std::stod(f[7]);
    return compute_s;
  };
  const auto slow = run(1024), fast = run(2048);
  REQUIRE(slow.size() == 24);  // 2 peers x 2 iterations x 6 invocations
  REQUIRE(fast.size() == 24);
  double lo = 1e300, hi = 0, ratio = 0;
  for (const auto& [who, seconds] : slow) {
    CAPTURE(who);
    REQUIRE(fast.count(who) == 1);
    if (ratio == 0) ratio = seconds / fast.at(who);
    CHECK(seconds / fast.at(who) == doctest::Approx(ratio).epsilon(1e-6));  // the trace has 9 decimals
    lo = std::min(lo, seconds), hi = std::max(hi, seconds);
  }
  CHECK(ratio > 1.1);    // the smaller functions are slower ...
  CHECK(hi / lo > 1.2);  // ... and the noise is there to be drawn
}

TEST_CASE("run: the same inputs and seed give byte-identical files") {
  TempDir dir;
  const std::string exp = P2PSIM_SOURCE_DIR "/experiments/squeezenet_mnist.xml";
  REQUIRE(run_cli("run " + exp + " -q --out " + dir.path("a")).exit_code == 0);
  REQUIRE(run_cli("run " + exp + " -q --out " + dir.path("b")).exit_code == 0);
  for (const char* f : {"result.json", "result.csv", "trace.csv"}) {
    CAPTURE(f);
    CHECK(p2psim::read_text(dir.path(std::string("a/") + f)) == p2psim::read_text(dir.path(std::string("b/") + f)));
  }
}

TEST_CASE("run: S3's request rate per prefix slows a burst of PUTs, storage_prefixes spreads it, a bad count exits 2") {
  // 600 peers each PUT 16 gradient shards at once (9,600 PUTs a round, over S3's 3,500 a second on one prefix).
  TempDir dir;
  auto experiment = [&](const std::string& name, const std::string& prefixes) {
    std::ofstream(dir.path(name)) << R"(<experiment name="throttle" seed="1">
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="64" iterations="2"/>
  <peers count="600" instance_type="c5.large"/>
  <systems><system name="sharded" strategy="serverless_sharded" shards="16" storage_prefixes=")"
                                  << prefixes << R"("/></systems>
</experiment>
)";
    return dir.path(name);
  };
  auto run = [&](const std::string& prefixes) {
    const auto path = experiment("p" + prefixes + ".xml", prefixes);
    REQUIRE(run_cli("run " + path + " -q --out " + dir.path("out" + prefixes)).exit_code == 0);
    return nlohmann::json::parse(p2psim::read_text(dir.path("out" + prefixes + "/result.json")))["systems"]["sharded"];
  };
  const auto one = run("1"), many = run("100000"), more = run("1000000");
  CHECK(one["usage"]["storage_throttled_requests"].get<long long>() > 0);
  CHECK(one["usage"]["storage_throttle_wait_s"].get<double>() > 0);
  CHECK(many["usage"]["storage_throttled_requests"].get<long long>() == 0);
  CHECK(one["usage"]["storage_puts"] == many["usage"]["storage_puts"]);  // the same requests, later
  CHECK(one["total_s"].get<double>() > many["total_s"].get<double>());
  // Past the burst's size more prefixes change nothing.
  CHECK(p2psim::read_text(dir.path("out100000/trace.csv")) == p2psim::read_text(dir.path("out1000000/trace.csv")));
  CHECK(many["total_s"] == more["total_s"]);
  // Requests are admitted a whole number a second: a rate under one would admit none in some seconds, and the
  // profile refuses it rather than rounding it to no limit.
  std::ofstream(dir.path("half.xml")) << R"(<experiment name="half" seed="1">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/platforms/aws_us_east_1.xml">
    <override select="object_storage/@put_requests_per_prefix_per_s" value="0.5"/>
  </profile>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="64" iterations="1"/>
  <peers count="2" instance_type="c5.large"/>
</experiment>
)";
  auto half = run_cli("run " + dir.path("half.xml"));
  CHECK(half.exit_code == 2);
  CHECK(half.output.find("half.xml:3: field 'override/@value'") != std::string::npos);
  CHECK(half.output.find("field 'object_storage/@put_requests_per_prefix_per_s': expected a number in [1, 1e+09], "
                         "got 0.5") != std::string::npos);
  auto bad = run_cli("run " + experiment("zero.xml", "0"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("zero.xml:4: field 'systems/system[@name='sharded']/@storage_prefixes': expected 1..1000000, got 0") !=
        std::string::npos);
}

TEST_CASE("run: bad input exits 2 with the file, line and field") {
  TempDir dir;
  auto experiment = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir.path(name)) << "<experiment name=\"bad\">\n" << body << "\n</experiment>\n";
    return dir.path(name);
  };
  const std::string workload =
      R"(<workload model="squeezenet1_1" input_shape="3x21x21" dataset="mnist" batch_size="1024"/>)";
  const std::pair<std::string, std::string> cases[] = {
      {experiment("malformed.xml", "<peers count=\"4\" instance_type=\"t2.medium\">"), "malformed.xml:3: malformed XML"},
      {experiment("model.xml", R"(<workload model="alexnet" input_shape="3x21x21" dataset="mnist" batch_size="1024"/>
<peers count="4" instance_type="t2.medium"/>)"), "model.xml:2: field 'workload/@model': unknown model 'alexnet'"},
      {experiment("type.xml", workload + "\n<peers count=\"4\" instance_type=\"t9.mega\"/>"),
       "type.xml:3: field 'peers/@instance_type': unknown instance type 't9.mega'"},
      {experiment("zero.xml", workload + "\n<peers count=\"0\" instance_type=\"t2.medium\"/>"),
       "zero.xml:3: field 'peers/@count': expected an integer in [1, 100000], got 0"},
      {experiment("negative.xml", workload + "\n<peers count=\"-2\" instance_type=\"t2.medium\"/>"),
       "negative.xml:3: field 'peers/@count'"},
      {experiment("inline.xml", R"(<workload model="vgg11" input_shape="3x32x32" dataset="cifar10" batch_size="1024"/>
<peers count="4" instance_type="t2.large"/>
<exchange instance_transport="inline"/>)"),
       "inline.xml:4: field 'exchange/@instance_transport': a 515229224-byte vgg11 gradient sent inline exceeds"},
      {dir.path("missing.xml"), "missing.xml: cannot open file"},
      {experiment("comment.xml", workload + "\n<!-- run it with\n     p2psim run comment.xml --out results -->"),
       "comment.xml:4: a comment holds \"--\" or ends in \"-\", which XML forbids"},
      // A model the shipped calibration timed at another shape (a transposed 3x32x32): the shape is to blame.
      {experiment("shape.xml", R"(<workload model="vgg11" input_shape="32x32x3" dataset="cifar10" batch_size="1024"/>
<peers count="4" instance_type="t2.large"/>)"),
       "shape.xml:2: field 'workload/@input_shape': no calibration samples for model vgg11 with input 32x32x3 (its "
       "steps were timed at 3x32x32, in "},
      // A model of the zoo timed at no shape: the model is, with what was timed.
      {experiment("untimed.xml", R"(<workload model="resnet18" input_shape="3x32x32" dataset="cifar10" batch_size="1024"/>
<peers count="4" instance_type="t2.large"/>)"),
       "untimed.xml:2: field 'workload/@model': no calibration samples for model resnet18 with input 3x32x32 "
       "(calibrated: mnist_cnn@1x28x28"},
  };
  for (const auto& [path, message] : cases) {
    CAPTURE(path);
    auto r = run_cli("run " + path);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);  // one clear line, no stack of messages
  }
}

TEST_CASE("spirt: in SPIRT's own setup, averaging inside the database saves nothing once its function's SSH tunnel "
          "is paid, with tensors or with the JSON text SPIRT's code writes") {
  // With tensors nothing leaves the database, and its kernels save the peer's 0.05 s; but the averaging function
  // first opens an SSH tunnel: 35.3 ms of its CPU at the Lambda's scalar speed (0.4506: 78 ms), 113 ms of waits,
  // sshd's 13.0 ms (on the calibration CPU; about twice that on the t2.large) and 6 round trips, about 0.22 s. With JSON, the 20 texts of a peer take
  // 20 x 0.1923 + 0.233 = 4.08 us an element inside the database (the Lua script's decode and addition, then its
  // encode; the profile's json_codec, on the calibration CPU) and 20 x 0.2077 = 4.15 us on the peer (Python's parse;
  // numpy's average next to nothing), both on one core of the same t2.large at its scalar speed: inside the database
  // the averaging function (a Task, its tunnel, the reply's parse) comes on top, so it cannot be the faster place. Per system, the peers' averaging and update
  // in the second iteration, where the averaging functions start warm (in the first, each starts cold, 1.7 s and
  // more, in either format): collect, local average, aggregate and update (the averaging function's start and parse
  // lie inside its local average).
  TempDir dir;
  REQUIRE(run_cli("run " P2PSIM_SOURCE_DIR "/experiments/spirt_mobilenet_mnist.xml -q --out " + dir.path("out")).exit_code == 0);
  std::map<std::string, double> averaging_s;
  for (const auto& f : csv_rows(p2psim::read_text(dir.path("out/trace.csv"))))
    if (f[2] == "1" && f[3] == "-1" && (f[4] == "collect" || f[4] == "local_average" || f[4] == "aggregate_update"))
      averaging_s[f[0]] += std::stod(f[7]);
  REQUIRE(averaging_s.size() == 4);
  CHECK(averaging_s["database_tensor"] > averaging_s["peer_tensor"] + 0.1);
  CHECK(averaging_s["database_json"] > averaging_s["peer_json"]);
  CHECK(averaging_s["peer_json"] > 10 * averaging_s["peer_tensor"]);
}

TEST_CASE("network quota: the shipped experiment's reducers read faster on several streams when the quota scales") {
  // Its 4 reducers of 10,240 MB each read 16 shards of VGG-11's gradient (2.1 GB) after their network's burst
  // (about 1.3 GB on one stream) has run out. By default every function sustains 625 Mbit/s; scaled, a 10,240 MB
  // one sustains 3,000 (4.8 times). Eight streams then move what the storage client's CPU allows, one stream its
  // 101 MB/s past the burst instead of 77.5: both faster, eight by far more.
  TempDir dir;
  const std::string shipped = P2PSIM_SOURCE_DIR "/experiments/function_network_quota.xml";
  std::string xml = p2psim::read_text(shipped);
  xml.erase(xml.find("<sweep>"), xml.find("</sweep>") + 8 - xml.find("<sweep>"));  // its systems as written: 10,240 MB
  const std::string scalable = "<functions network_quota=\"scalable\"/>";
  REQUIRE(xml.find(scalable) != std::string::npos);
  auto run = [&](const std::string& quota) {
    std::string text = xml;
    text.replace(text.find(scalable), scalable.size(), "<functions network_quota=\"" + quota + "\"/>");
    // The copy sits beside the shipped file, so its relative paths resolve alike.
    const std::string path = dir.path(quota + ".xml");
    std::ofstream(path) << text;
    const auto r = run_cli("run " + path + " -q --out " + dir.path(quota));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(p2psim::read_text(dir.path(quota + "/result.json")))["systems"];
  };
  const auto by_default = run("default"), scaled = run("scalable");
  auto total_s = [](const nlohmann::json& systems, const char* name) { return systems[name]["total_s"].get<double>(); };
  const double eight_gain = total_s(by_default, "eight_streams") - total_s(scaled, "eight_streams");
  const double one_gain = total_s(by_default, "one_stream") - total_s(scaled, "one_stream");
  CHECK(one_gain > 0);
  CHECK(eight_gain > 2 * one_gain);
  CHECK(eight_gain > 0.1 * total_s(by_default, "eight_streams"));

  // A quota the profile does not know: exit 2, naming the line and field.
  const std::string bad = dir.path("bad.xml");
  std::string text = xml;
  text.replace(text.find(scalable), scalable.size(), "<functions network_quota=\"fast\"/>");
  std::ofstream(bad) << text;
  const auto r = run_cli("run " + bad + " -q --out " + dir.path("bad"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("field 'functions/@network_quota': 'fast' for function_service/@network_quota") != std::string::npos);
}

TEST_CASE("peer groups: the shipped mixed-peers experiment runs, sweeps a group's size, reports and replays") {
  TempDir dir;
  const std::string shipped = P2PSIM_SOURCE_DIR "/experiments/mixed_peers.xml";
  auto r = run_cli("run " + shipped + " --out " + dir.path("run"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("12 peers on 8xt3.medium+4xc5.large") != std::string::npos);
  CHECK(r.output.find("[t3.medium] comm+wait/iter (s)") != std::string::npos);
  CHECK(r.output.find("[c5.large] gradient/iter (s)") != std::string::npos);
  const auto j = nlohmann::json::parse(p2psim::read_text(dir.path("run/result.json")));
  REQUIRE(j["scenario"]["peer_groups"].size() == 2);
  // groups.csv: a row per system and group, whose times agree with result.json's.
  const std::string groups = p2psim::read_text(dir.path("run/groups.csv"));
  CHECK(std::count(groups.begin(), groups.end(), '\n') == 1 + 4 * 2);
  for (const auto& [name, system] : j["systems"].items()) {
    CAPTURE(name);
    REQUIRE(system["groups"].size() == 2);
    double slowest_end = 0;
    for (const auto& g : system["groups"]) slowest_end = std::max(slowest_end, g["end_s"].get<double>());
    CHECK(slowest_end == doctest::Approx(system["total_s"].get<double>()).epsilon(1e-12));
    // Every peer of a synchronous design averages every gradient of its round: no group ends a round early.
    CHECK(system["groups"][1]["end_s"].get<double>() ==
          doctest::Approx(system["groups"][0]["end_s"].get<double>()).epsilon(0.05));
  }
  // A sweep of the second group's size, and the report on it.
  std::string xml = p2psim::read_text(shipped);
  xml.replace(xml.find("</experiment>"), 13,
              R"(<sweep><axis select="peers/group[2]/@count" values="2 4"/></sweep></experiment>)");
  std::ofstream(dir.path("sweep.xml")) << xml;
  auto sweep = run_cli("sweep " + dir.path("sweep.xml") + " --out " + dir.path("sweep") + " -j 2");
  INFO(sweep.output);
  REQUIRE(sweep.exit_code == 0);
  const std::string results = p2psim::read_text(dir.path("sweep/results.csv"));
  CHECK(results.find(",10,8xt3.medium+2xc5.large,") != std::string::npos);  // peers, instance_type
  CHECK(results.find(",12,8xt3.medium+4xc5.large,") != std::string::npos);
  // The sweep's groups.csv: each run's rows after its scenario id and axis value.
  const std::string merged = p2psim::read_text(dir.path("sweep/groups.csv"));
  CHECK(merged.rfind("scenario_id,peers/group[2]/@count,experiment,system,group,", 0) == 0);
  CHECK(std::count(merged.begin(), merged.end(), '\n') == 1 + 2 * 4 * 2);  // 2 scenarios x 4 systems x 2 groups
  CHECK(merged.find(",2,mixed_peers,ring,c5.large,c5.large,2,") != std::string::npos);
  auto report = run_cli("report " + dir.path("sweep") + " --format png");
  INFO(report.output);
  CHECK(report.exit_code == 0);
  // The replay: two small groups train for real on the schedule.
  xml = p2psim::read_text(shipped);
  xml.replace(xml.find("train_samples=\"3072\""), 20, "train_samples=\"256\"");
  xml.replace(xml.find("iterations=\"10\""), 15, "iterations=\"3\"");
  // The first group's shards larger than the others' (the c5.large peers: 32 each).
  xml.replace(xml.find("count=\"8\""), 9, "count=\"2\" shard_samples=\"96\"");
  xml.replace(xml.find("count=\"4\""), 9, "count=\"2\"");
  xml.replace(xml.find("</experiment>"), 13, R"(<accuracy target="0.1" eval_every="3" test_samples="200"/></experiment>)");
  std::ofstream(dir.path("accuracy.xml")) << xml;
  auto replay = run_cli("run " + dir.path("accuracy.xml") + " -q --out " + dir.path("accuracy"),
                        "P2PSIM_CACHE_DIR=" + dir.path("cache"));
  INFO(replay.output);
  REQUIRE(replay.exit_code == 0);
  const auto a = nlohmann::json::parse(p2psim::read_text(dir.path("accuracy/result.json")));
  for (const auto& [name, system] : a["systems"].items()) {
    CAPTURE(name);
    CHECK(system["accuracy"]["replayed"] == true);
  }
  const auto schedule = nlohmann::json::parse(p2psim::read_text(dir.path("accuracy/schedule.json")));
  REQUIRE(schedule["training"]["peer_shards"].size() == 2);
  CHECK(schedule["training"]["peer_shards"][0]["shard_samples"] == 96);
  CHECK(schedule["training"]["peer_shards"][1]["shard_samples"] == 32);
}

TEST_CASE("report on one run draws each system's timeline and writes a Chrome trace, pdf output embeds fonts") {
  TempDir dir;
  REQUIRE(run_cli("run " P2PSIM_SOURCE_DIR "/tests/scenarios/serverless_tree/experiment.xml -q --out " +
                  dir.path("run")).exit_code == 0);
  auto r = run_cli("report " + dir.path("run") + " --format png,pdf --size two-column");
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("trace.json") != std::string::npos);
  CHECK(p2psim::read_text(dir.path("run/report/timeline_tree.png")).compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  const std::string pdf = p2psim::read_text(dir.path("run/report/timeline_tree.pdf"));
  CHECK(pdf.compare(0, 5, "%PDF-") == 0);
  CHECK(pdf.find("/FontFile2") != std::string::npos);
  // Every phase of the trace is an event of the Chrome trace (plus the process and thread names).
  const auto trace = nlohmann::json::parse(p2psim::read_text(dir.path("run/report/trace.json")));
  const std::string csv = p2psim::read_text(dir.path("run/trace.csv"));
  const auto phases = std::count(csv.begin(), csv.end(), '\n') - 1;
  int complete = 0;
  for (const auto& e : trace["traceEvents"]) complete += e["ph"] == "X";
  CHECK(complete == phases);
  CHECK(run_cli("report " + dir.path("run") + " --format gif").exit_code == 2);
  CHECK(run_cli("report " + dir.path("run") + " --facet nope").exit_code == 2);
}

TEST_CASE("report renders every figure and a self-contained HTML report, and recommend answers limits") {
  TempDir dir;
  std::filesystem::copy_file(P2PSIM_SOURCE_DIR "/notebooks/example_results/results.csv", dir.path("results.csv"));
  auto r = run_cli("report " + dir.root.string());
  REQUIRE(r.exit_code == 0);
  int pngs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("report"))) {
    const auto ext = e.path().extension();
    if (ext != ".png" && ext != ".svg") continue;
    const std::string bytes = p2psim::read_text(e.path().string());
    CAPTURE(e.path());
    CHECK(bytes.size() > 5000);  // a drawn figure, not an empty canvas
    if (ext == ".png") {
      ++pngs;
      CHECK(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
      CHECK(std::filesystem::exists(e.path().parent_path() / (e.path().stem().string() + ".svg")));
    }
  }
  CHECK(pngs >= 4);  // time vs cost, phases, against peers, against memory, heatmaps
  const std::string html = p2psim::read_text(dir.path("report/report.html"));
  CHECK(html.find("Pareto-optimal configurations") != std::string::npos);
  CHECK(html.find("data:image/png;base64,") != std::string::npos);
  CHECK(html.find("p2psim 0.1.0") != std::string::npos);

  auto deadline = run_cli("recommend " + dir.root.string() + " --deadline-s 30");
  CHECK(deadline.exit_code == 0);
  CHECK(deadline.output.find("cheapest within the deadline") != std::string::npos);
  auto budget = run_cli("recommend " + dir.root.string() + " --budget-usd 0.01");
  CHECK(budget.exit_code == 0);
  CHECK(budget.output.find("fastest within the budget") != std::string::npos);
  auto impossible = run_cli("recommend " + dir.root.string() + " --deadline-s 1");
  CHECK(impossible.exit_code == 3);
  CHECK(impossible.output.find("no configuration meets the deadline of 1 s") != std::string::npos);
  auto missing = run_cli("report " + dir.path("nothing"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("no results.csv or result.csv") != std::string::npos);
  CHECK(run_cli("recommend " + dir.root.string()).exit_code == 2);  // neither limit given
  auto infinite = run_cli("recommend " + dir.root.string() + " --deadline-s inf");  // every configuration meets it
  CHECK(infinite.exit_code == 2);
  CHECK(infinite.output.find("--deadline-s inf: expected a finite number >= 0") != std::string::npos);
}

TEST_CASE("run: the bill is split by role, and <cost include_broker> chooses what the cost ratio counts") {
  TempDir dir;
  auto experiment = [&](const std::string& name, const std::string& cost) {
    std::ofstream(dir.path(name)) << R"(<experiment name="c" seed="1">
  <workload model="squeezenet1_1" input_shape="3x21x21" dataset="mnist" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.medium"/>)" << cost << "\n</experiment>\n";
    REQUIRE(run_cli("run " + dir.path(name) + " -q --out " + dir.path(name + ".out")).exit_code == 0);
    return nlohmann::json::parse(p2psim::read_text(dir.path(name + ".out/result.json")));
  };
  const auto all = experiment("all.xml", "");
  const auto without = experiment("without.xml", R"(<cost include_broker="false"/>)");
  CHECK(all["cost_ratio_includes_broker"] == true);
  CHECK(without["cost_ratio_includes_broker"] == false);
  auto cost = [](const nlohmann::json& r, const char* system, const char* item) {
    return r["systems"][system]["cost_usd"][item].get<double>();
  };
  for (const char* system : {"instance", "serverless"}) {
    CAPTURE(system);
    const auto& roles = all["systems"][system]["cost_usd"]["by_role"];
    CHECK(roles["compute"].get<double>() + roles["storage"].get<double>() + roles["orchestration"].get<double>() +
              roles["shared_infrastructure"].get<double>() ==
          doctest::Approx(cost(all, system, "total")));
    CHECK(roles["shared_infrastructure"].get<double>() == cost(all, system, "broker"));
  }
  // The same run either way; only what the ratio counts changes.
  CHECK(cost(without, "serverless", "total") == cost(all, "serverless", "total"));
  CHECK(all["systems"]["serverless"]["vs_baseline"]["cost_ratio"].get<double>() ==
        doctest::Approx(cost(all, "serverless", "total") / cost(all, "instance", "total")));
  CHECK(without["systems"]["serverless"]["vs_baseline"]["cost_ratio"].get<double>() ==
        doctest::Approx((cost(all, "serverless", "total") - cost(all, "serverless", "broker")) /
                        (cost(all, "instance", "total") - cost(all, "instance", "broker"))));
  CHECK(cost(all, "instance", "broker") > 0);
}

TEST_CASE("run: compute_extrapolated (result.csv and result.json) marks a system whose own steps are extrapolated, not one beside it") {
  // The hand-made calibration measured 1 and 2 threads. A t2.medium peer has 2 vCPUs (measured); a 10,240 MB
  // function about 5.8 (extrapolated); a 1,024 MB one less than 1 (measured).
  TempDir dir;
  auto extrapolated = [&](const std::string& memory_mb) {
    const std::string name = "m" + memory_mb;
    std::ofstream(dir.path(name + ".xml")) << R"(<experiment name="x" seed="1">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="1"/>
  <peers count="2" instance_type="t2.medium"/>
  <functions memory_mb=")" << memory_mb << R"("/>
</experiment>
)";
    REQUIRE(run_cli("run " + dir.path(name + ".xml") + " -q --out " + dir.path(name)).exit_code == 0);
    std::istringstream csv(p2psim::read_text(dir.path(name + "/result.csv")));
    std::string header, row;
    std::getline(csv, header);
    std::vector<std::string> names;
    std::stringstream h(header);
    for (std::string f; std::getline(h, f, ',');) names.push_back(f);
    const auto column = std::find(names.begin(), names.end(), "compute_extrapolated") - names.begin();
    std::map<std::string, std::string> by_system;
    while (std::getline(csv, row)) {
      std::vector<std::string> fields;
      std::stringstream r(row);
      for (std::string f; std::getline(r, f, ',');) fields.push_back(f);
      REQUIRE(fields.size() > static_cast<size_t>(column));
      by_system[fields[1]] = fields[column];
    }
    // result.json says the same of each system.
    const auto json = nlohmann::json::parse(p2psim::read_text(dir.path(name + "/result.json")));
    for (const auto& [system, value] : by_system)
      CHECK(json["systems"][system]["compute_extrapolated"].get<bool>() == (value == "true"));
    return by_system;
  };
  const auto big = extrapolated("10240"), small = extrapolated("1024");
  CHECK(big.at("serverless") == "true");
  CHECK(big.at("instance") == "false");
  CHECK(small.at("serverless") == "false");
  CHECK(small.at("instance") == "false");
}

TEST_CASE("run: a remainder minibatch of a few samples runs (VGG-11, 12 peers, batch 64: a 6-sample last batch)") {
  TempDir dir;
  // 50,000 CIFAR-10 samples / 12 peers = 4,166 each = 65 x 64 + 6, a case of experiments/paper_grid.xml.
  std::ofstream(dir.path("rest.xml")) << R"(<experiment name="rest" seed="1">
  <workload model="vgg11" input_shape="3x32x32" dataset="cifar10" batch_size="64" iterations="1"/>
  <peers count="12" instance_type="t2.medium"/>
</experiment>
)";
  auto r = run_cli("run " + dir.path("rest.xml") + " -q --out " + dir.path("out"));
  CHECK(r.exit_code == 0);
  CAPTURE(r.output);
  const auto result = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")));
  CHECK(result["scenario"]["minibatch_sizes"].back().get<int>() == 6);
  CHECK(result["systems"]["serverless"]["status"] == "ok");
}

namespace {

// A validation case of `dir`'s experiment.xml: the peer's shard download measured at `mb_per_s`, when `measured`.
void write_download_case(const TempDir& dir, const std::string& name, const std::string& mb_per_s,
                         const std::string& measured = "2020") {
  std::ofstream(dir.path(name + ".case.xml"))
      << "<case name=\"" << name << "\" role=\"validation\" design=\"object_storage\">\n"
      << "  <source group=\"G-" << name << "\" reference=\"R\" url=\"https://example.org/table\" where=\"row 1\" "
         "measured=\"" << measured << "\"/>\n"
      << "  <experiment file=\"experiment.xml\" system=\"peer\"/>\n"
      << "  <metric name=\"mbps\" kind=\"throughput\" unit=\"MB/s\" quantity=\"shard_fetch_mb_per_s\" measured=\""
      << mb_per_s << "\"/>\n</case>\n";
}

// A folder of validation cases: one peer loading all of MNIST on the test profile, made exact.
void write_validation_cases(const TempDir& dir, const std::string& recorded_abs_error) {
  const std::string src = P2PSIM_SOURCE_DIR;
  std::ofstream(dir.path("experiment.xml")) << R"(<experiment name="v" seed="1">
  <profile file=")" << src << R"(/tests/data/test_profile.xml">
    <override select="simulation/@network_model" value="CM02"/>
    <override select="network/@one_way_latency_s" value="0"/>
  </profile>
  <calibration files=")" << src << R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="1" instance_type="t2.large"/>
  <systems><system name="peer" strategy="p2p_all_to_all" compute="peer"/></systems>
</experiment>
)";
  write_download_case(dir, "download", "100");
  std::ofstream(dir.path("recorded_errors.csv")) << "case,metric,abs_error_percent\ndownload,mbps," << recorded_abs_error
                                                 << "\n";
  // By hand: the one metric 40.5 % off (59.53 MB/s against 100), slower, its band (the test profile's spreads)
  // short of 100.
  std::ofstream(dir.path("accuracy_by_design.csv"))
      << "design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,with_band,inside_band,"
         "sources,error_p10_percent,error_p90_percent,held_out_with_band,held_out_inside_band\n"
         "object_storage,time,1,40.5,40.5,0,1,0,1,,,0,0\n"
         "every_design,time,1,40.5,40.5,0,1,0,1,,,0,0\n";
}

}  // namespace

TEST_CASE("validate: a case predicted at 0 is bad input, exit 2, naming its file, line and field") {
  // The peer system runs no workflow: a cost metric of the workflow alone is predicted at 0 USD, an infinite
  // error, which no spread of errors can hold.
  TempDir dir;
  write_validation_cases(dir, "40");
  write_download_case(dir, "other", "80");  // a second source, so that spreads are drawn
  std::ofstream(dir.path("free.case.xml"))
      << "<case name=\"free\" role=\"validation\" design=\"object_storage\">\n"
         "  <source group=\"G-free\" reference=\"R\" url=\"https://example.org/t\" where=\"row 1\" measured=\"2020\"/>\n"
         "  <experiment file=\"experiment.xml\" system=\"peer\"/>\n"
         "  <metric name=\"usd\" kind=\"cost\" unit=\"USD\" quantity=\"cost_usd_per_iteration\" services=\"workflow\"\n"
         "          measured=\"0.01\"/>\n</case>\n";
  const auto r = run_cli("validate --cases " + dir.root.string() + " -q --replicates 0");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("free.case.xml:4: field 'predicted'") != std::string::npos, r.output);
}

TEST_CASE("validate: predicted against measured, written and drawn, the guard fails when an error grows") {
  TempDir dir;
  // 188.16 MB at the t2.large NIC's 62.5 MB/s after a 0.15 s first byte: 59.53 MB/s, 40.47 % under 100.
  const double expected = 188.16 / (0.15 + 188.16 / 62.5);
  write_validation_cases(dir, "40");
  const auto out = dir.path("out");
  auto r = run_cli("validate --cases " + dir.root.string() + " --out " + out + " --check-recorded");
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  char predicted[32];
  std::snprintf(predicted, sizeof predicted, "%.4g", expected);  // the table's format
  CHECK(r.output.find(predicted) != std::string::npos);
  CHECK(r.output.find("time: 1 metrics, median |error| 40.5 %, worst 40.5 % (download mbps)") != std::string::npos);
  nlohmann::json j;
  std::ifstream(out + "/validation.json") >> j;
  CHECK(j["rows"][0]["predicted"].get<double>() == doctest::Approx(expected).epsilon(1e-6));
  CHECK(j["rows"][0]["experiment"] == "experiment.xml");  // relative to the cases' folder: no checkout's path
  CHECK(j["summary"]["time"]["median_abs_error_percent"].get<double>() == doctest::Approx(100 - expected));
  // One source: no spread of errors and no other source to band it by (tests/test_validation.cpp, by hand).
  CHECK(j["summary"]["time"]["sources"] == 1);
  CHECK(j["summary"]["time"]["error_p10_percent"].is_null());
  CHECK(j["summary"]["time"]["held_out_with_band"] == 0);
  CHECK(j["summary"]["time"]["held_out_coverage_percent"].is_null());
  CHECK(j["rows"][0]["held_out_error_p10_percent"].is_null());
  CHECK(r.output.find("held out:") == std::string::npos);
  CHECK(std::filesystem::file_size(out + "/validation.png") > 1000);
  CHECK(std::filesystem::file_size(out + "/validation_errors.png") > 1000);
  CHECK(std::filesystem::is_regular_file(out + "/validation.csv"));
  // A run's results beside the validation: the report draws the validation figure too.
  REQUIRE(run_cli("run " + dir.path("experiment.xml") + " -q --out " + out).exit_code == 0);
  r = run_cli("report " + out + " --format png");
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(std::filesystem::file_size(out + "/report/validation.png") > 1000);
  CHECK(std::filesystem::file_size(out + "/report/validation_errors.png") > 1000);

  write_validation_cases(dir, "35");  // recorded 35 %: 40.5 % is 5.5 points worse
  r = run_cli("validate --cases " + dir.root.string() + " --check-recorded -q");
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("download mbps: error 40.5 % grew past the recorded 35.0 %") != std::string::npos);
  CHECK(run_cli("validate --cases " + dir.root.string() + " --check-recorded --tolerance-points 6 -q").exit_code == 0);

  // The summary by design that `run` prints must be this run's: a stale one fails the guard until recorded.
  write_validation_cases(dir, "40");
  const std::string by_design = p2psim::read_text(dir.path("accuracy_by_design.csv"));
  std::ofstream(dir.path("accuracy_by_design.csv")) << by_design.substr(0, by_design.find('\n') + 1);
  r = run_cli("validate --cases " + dir.root.string() + " --check-recorded -q");
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("accuracy_by_design.csv does not hold this run's summary by design") != std::string::npos);
  r = run_cli("validate --cases " + dir.root.string() + " --check-recorded --replicates 3 -q");
  CHECK(r.exit_code == 0);  // drawn with other replicates: not comparable, said so
  CHECK(r.output.find("accuracy_by_design.csv not checked: it holds every case at 20 replicates") != std::string::npos);
  REQUIRE(run_cli("validate --cases " + dir.root.string() + " --record -q").exit_code == 0);
  CHECK(p2psim::read_text(dir.path("accuracy_by_design.csv")) == by_design);

  // A recorded-errors file that is not one, and a tolerance that is not a number: clear errors, exit 2.
  std::ofstream(dir.path("recorded_errors.csv")) << "case,metric,abs_error_percent\ndownload,mbps,abc\n";
  r = run_cli("validate --cases " + dir.root.string() + " --check-recorded -q");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(dir.path("recorded_errors.csv")) != std::string::npos);
  std::ofstream(dir.path("recorded_errors.csv")) << "case,metric\ndownload,mbps\n";
  r = run_cli("validate --cases " + dir.root.string() + " --check-recorded -q");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("abs_error_percent") != std::string::npos);
  r = run_cli("validate --cases " + dir.root.string() + " --tolerance-points five");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--tolerance-points") != std::string::npos);

  r = run_cli("validate --cases " + dir.root.string() + " --case nonesuch");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--case nonesuch: no such case") != std::string::npos);
  r = run_cli("validate --cases " + dir.root.string() + " --case download --case download");  // counted twice
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--case download: given twice") != std::string::npos);
  std::ofstream(dir.path("bad.case.xml")) << "<case name=\"bad\" role=\"validation\" design=\"d\">\n  <source/>\n</case>\n";
  r = run_cli("validate --cases " + dir.root.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(dir.path("bad.case.xml") + ":2: field 'source/@group'") != std::string::npos);
}

TEST_CASE("validate: two measurements of one configuration report the floor they put under the worst error") {
  TempDir dir;
  write_validation_cases(dir, "40");
  // The same download measured again at 150 MB/s: p2psim predicts both alike (59.53 MB/s), and no one value meets
  // 100 and 150 better than 120 does, 20 % off each.
  write_download_case(dir, "again", "150");
  const auto out = dir.path("out");
  const auto r = run_cli("validate --cases " + dir.root.string() + " --out " + out + " -q");
  CHECK_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("2 of them measure 1 group of configurations that p2psim cannot tell apart (one prediction a "
                      "group): as one value cannot meet measurements that differ, these alone put the worst error at "
                      "20.0 % or more (the widest group: again mbps, download mbps)") != std::string::npos);
  nlohmann::json j;
  std::ifstream(out + "/validation.json") >> j;
  const auto& alike = j["summary"]["time"]["predicted_alike"];
  REQUIRE(alike.size() == 1);
  CHECK(alike[0]["floor_abs_error_percent"].get<double>() == doctest::Approx(20));
  CHECK(alike[0]["metrics"].size() == 2);
  CHECK(j["summary"]["cost"]["predicted_alike"].empty());
  // Per design: both downloads, predicted at 59.53 MB/s, slower than either measurement.
  const auto& storage = j["summary"]["time"]["by_design"]["object_storage"];
  CHECK(storage["metrics"] == 2);
  CHECK(storage["predicted_faster"] == 0);
  CHECK(storage["median_abs_error_percent"].get<double>() == doctest::Approx(50 * ((1 - 59.53 / 100) + (1 - 59.53 / 150))).epsilon(1e-3));
  CHECK(j["summary"]["cost"]["by_design"].empty());
}

TEST_CASE("validate and run: a case is simulated as of its measurement's date, where the profile's history knows it") {
  // The test profile with a history: its own first byte (0.15 s) measured 2024-04, 0.65 s measured 2021-09.
  TempDir dir;
  std::string profile = fixture::test_profile_text();
  const std::string history = R"(  <history>
    <value select="object_storage/@get_first_byte_median_s" measured="2024-04"/>
    <value select="object_storage/@get_first_byte_median_s" measured="2021-09" value="0.65"/>
  </history>
</cloud>)";
  profile.replace(profile.rfind("</cloud>"), 8, history);
  std::ofstream(dir.path("profile.xml")) << profile;
  const auto experiment = [&](const std::string& as_of) {
    return R"(<experiment name="v" seed="1">
  <profile file="profile.xml")" + as_of + R"(>
    <override select="simulation/@network_model" value="CM02"/>
    <override select="network/@one_way_latency_s" value="0"/>
  </profile>
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
  <peers count="1" instance_type="t2.large"/>
  <systems><system name="peer" strategy="p2p_all_to_all" compute="peer"/></systems>
</experiment>
)";
  };
  std::ofstream(dir.path("experiment.xml")) << experiment("");
  for (const auto& [name, date] : {std::pair{"old", "2021-11"}, std::pair{"new", "2024-09"}, std::pair{"undated", "not stated"}})
    write_download_case(dir, name, "100", date);
  // By hand: 188.16 MB at the t2.large NIC's 62.5 MB/s after the first byte (sigma 0).
  const double then = 188.16 / (0.65 + 188.16 / 62.5), now = 188.16 / (0.15 + 188.16 / 62.5);
  auto r = run_cli("validate --cases " + dir.root.string() + " --replicates 0 -q --out " + dir.path("as_measured"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  nlohmann::json j;
  std::ifstream(dir.path("as_measured") + "/validation.json") >> j;
  std::map<std::string, std::pair<double, std::string>> got;
  for (const auto& row : j["rows"]) got[row["case"]] = {row["predicted"].get<double>(), row["profile_as_of"].get<std::string>()};
  CHECK(got["old"].first == doctest::Approx(then).epsilon(1e-6));
  CHECK(got["old"].second == "2021-11");
  CHECK(got["new"].first == doctest::Approx(now).epsilon(1e-6));  // 2024-04 is nearer to 2024-09
  CHECK(got["new"].second == "2024-09");
  CHECK(got["undated"].first == doctest::Approx(now).epsilon(1e-6));  // no date: the profile as written
  CHECK(got["undated"].second == "");
  r = run_cli("validate --cases " + dir.root.string() + " --replicates 0 -q --today --out " + dir.path("today"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::ifstream(dir.path("today") + "/validation.json") >> j;
  for (const auto& row : j["rows"]) {
    CHECK(row["predicted"].get<double>() == doctest::Approx(now).epsilon(1e-6));
    CHECK(row["profile_as_of"] == "");
  }
  r = run_cli("validate --cases " + dir.root.string() + " --replicates 0 -q --today --check-recorded");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--today: the recorded errors are of each case as of its date") != std::string::npos);

  // p2psim run as of a date: the same transfer as validate's; a date that is not one exits 2 naming line and field.
  std::ofstream(dir.path("experiment.xml")) << experiment(R"( as_of="2021-10-02")");
  r = run_cli("run " + dir.path("experiment.xml") + " -q --out " + dir.path("run_then"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::ofstream(dir.path("experiment.xml")) << experiment("");
  r = run_cli("run " + dir.path("experiment.xml") + " -q --out " + dir.path("run_now"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  nlohmann::json then_run, now_run;
  std::ifstream(dir.path("run_then") + "/result.json") >> then_run;
  std::ifstream(dir.path("run_now") + "/result.json") >> now_run;
  CHECK(then_run["scenario"]["profile_as_of"] == "2021-10-02");
  CHECK(now_run["scenario"]["profile_as_of"] == "");
  const double then_total = then_run["systems"]["peer"]["total_s"].get<double>(),
               now_total = now_run["systems"]["peer"]["total_s"].get<double>();
  CHECK(then_total - now_total == doctest::Approx(0.5).epsilon(1e-6));  // one GET, 0.5 s more to its first byte
  std::ofstream(dir.path("experiment.xml")) << experiment(R"( as_of="last year")");
  r = run_cli("run " + dir.path("experiment.xml") + " -q");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.output.find("experiment.xml:2: field 'profile/@as_of': expected YYYY-MM or YYYY-MM-DD, got 'last year'") !=
                    std::string::npos,
                r.output);
}

TEST_CASE("run: the table tells a throttled burstable peer from an unlimited one spending surplus credits") {
  // t2.medium (standard mode) throttles when its credits run out; t3.medium (unlimited, no launch credits) keeps
  // full speed on surplus credits from the start: one row each, never the other's.
  const auto standard = run_cli("run " P2PSIM_SOURCE_DIR "/experiments/squeezenet_mnist.xml");
  REQUIRE(standard.exit_code == 0);
  CHECK(standard.output.find("CPU throttled, credits out, from (s)") != std::string::npos);
  CHECK(standard.output.find("surplus credits spent from") == std::string::npos);
  const auto mixed = run_cli("run " P2PSIM_SOURCE_DIR "/experiments/mixed_peers.xml");
  REQUIRE(mixed.exit_code == 0);
  CHECK(mixed.output.find("CPU surplus credits spent from (s)") != std::string::npos);
  CHECK(mixed.output.find("CPU throttled") == std::string::npos);
}

TEST_CASE("run: each system's functions' memory as they ran, a design's own size beside the experiment's") {
  TempDir dir;
  std::ofstream(dir.path("memory.xml")) << R"(<experiment name="memory" seed="1">
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="1"/>
  <peers count="4" instance_type="t2.large"/>
  <functions memory_mb="2048"/>
  <systems>
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
    <system name="sharded" strategy="serverless_sharded" shards="2" reducer_memory_mb="512"/>
  </systems>
</experiment>
)";
  const auto r = run_cli("run " + dir.path("memory.xml") + " --out " + dir.path("out"));
  REQUIRE(r.exit_code == 0);
  // The sharded design's peers train on their instances and its reducers run at 512 MB, not the experiment's 2,048.
  const auto json = nlohmann::json::parse(p2psim::read_text(dir.path("out/result.json")))["systems"];
  CHECK(json["instance"]["usage"]["function_memory_mb"] == nlohmann::json::array());
  CHECK(json["serverless"]["usage"]["function_memory_mb"] == nlohmann::json::array({2048}));
  CHECK(json["sharded"]["usage"]["function_memory_mb"] == nlohmann::json::array({512}));
  const auto at = r.output.find("functions' memory (MB)");
  REQUIRE(at != std::string::npos);
  std::istringstream cells(r.output.substr(at + 22, r.output.find('\n', at) - at - 22));
  std::vector<std::string> shown{std::istream_iterator<std::string>(cells), std::istream_iterator<std::string>()};
  CHECK(shown == std::vector<std::string>{"none", "2048", "512"});
  // And in result.csv, beside the experiment's function_memory_mb, which every row repeats.
  const std::string csv = p2psim::read_text(dir.path("out/result.csv"));
  const auto used_at = csv_column(csv, "function_memory_used_mb");
  REQUIRE(used_at);
  const size_t column = *used_at;
  std::vector<std::string> used;
  for (const auto& row : csv_rows(csv)) used.push_back(column < row.size() ? row[column] : "");
  CHECK(used == std::vector<std::string>{"", "2048", "512"});
}

TEST_CASE("run: an iteration whose parts add up to it has no other part, not the subtraction's rounding") {
  // The main job's instance system wrote other_s_per_iteration = 1.95399252e-14, its parts' rounding.
  TempDir dir;
  const auto r = run_cli("run -q " + std::string(P2PSIM_SOURCE_DIR) + "/experiments/vgg11_cifar.xml --out " +
                         dir.path("out"));
  REQUIRE(r.exit_code == 0);
  const std::string csv = p2psim::read_text(dir.path("out/result.csv"));
  const auto at = csv_column(csv, "other_s_per_iteration");
  REQUIRE(at);
  const size_t column = *at;
  const auto rows = csv_rows(csv);
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) CHECK(row.at(column) == "0");
}

TEST_CASE("run: every row of the table ends in the same column, the longest label's included") {
  // "CPU throttled, credits out, from (s)" was 2 characters wider than the label column, its values 2 to the right.
  const auto r = run_cli("run " + std::string(P2PSIM_SOURCE_DIR) + "/experiments/vgg11_cifar.xml --replicates 3");
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.output);
  std::vector<std::string> table;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("strategy ", 0) == 0) inside = true;
    if (inside && line.empty()) break;
    if (inside) table.push_back(line);
  }
  REQUIRE(table.size() > 20);
  CHECK(std::any_of(table.begin(), table.end(), [](const std::string& l) { return l.rfind("CPU throttled", 0) == 0; }));
  for (const auto& line : table) {
    CAPTURE(line);
    CHECK(line.size() == table.front().size());
  }
}
