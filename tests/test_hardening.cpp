// Inputs a hostile but realistic user gives, each refused with exit 2 naming the file and field before anything
// runs, or run to a correct end: files without a size limit, memory no cloud allows, crash times past the
// run's bounds, output paths that cannot be written, bytes that are not UTF-8, a disk that fills mid-write.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "../sim/util/atomic_file.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The designs' workload (experiments/designs_compare.xml) with one system and an extra element.
std::string experiment(const std::string& system, const std::string& extra = "") {
  return R"(<experiment name="hard" seed="1">
  <workload model="vgg11_cifar" input_shape="3x32x32" dataset="cifar10" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.large"/>
  <systems>)" + system + R"(</systems>
  )" + extra + "\n</experiment>\n";
}

const std::string kInstance = R"(<system name="instance" strategy="p2p_all_to_all" compute="peer"/>)";

}  // namespace

TEST_CASE("input files are read within a size limit: a device without end is refused at once, not read into memory") {
  TempDir dir;
  auto r = run_cli("run /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("/dev/zero: larger than 16 MiB") != std::string::npos);
  // A regular file past the limit: refused the same way, wherever it is referenced from (here, the profile).
  {
    std::ofstream big(dir.path("big.xml"));
    big << "<platform>" << std::string(17u << 20, ' ') << "</platform>";
  }
  std::ofstream(dir.path("e.xml")) << experiment(kInstance, R"(<profile file=")" + dir.path("big.xml") + R"("/>)");
  r = run_cli("run " + dir.path("e.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("big.xml: larger than 16 MiB") != std::string::npos);
  // A named pipe no one writes to: read as empty at once (a blocking open would wait for ever for a writer).
  REQUIRE(mkfifo(dir.path("pipe.xml").c_str(), 0600) == 0);
  r = run_cli("run " + dir.path("pipe.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("pipe.xml:1: malformed XML: No document element found") != std::string::npos);
  // A device where a calibration file is named: said what it is, not "no such file".
  std::ofstream(dir.path("dev.xml")) << experiment(kInstance, R"(<calibration files="/dev/zero"/>)");
  r = run_cli("run " + dir.path("dev.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("field 'calibration/@files': /dev/zero is not a regular file") != std::string::npos);
}

TEST_CASE("a file with a second top-level element is refused at its line, not read as its first alone") {
  TempDir dir;
  std::ofstream(dir.path("e.xml")) << experiment(kInstance) << R"(<experiment name="second" seed="2"/>)" << "\n";
  const auto r = run_cli("run " + dir.path("e.xml") + " -q --out " + dir.path("out"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("e.xml:7: a second top-level element <experiment>: a file holds one (<experiment>)") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(dir.path("out")));
}

TEST_CASE("aggregator memory: sizes no function service offers, or too small for the runtime, are refused") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"(<system name="s" strategy="serverless_sharded" shards="4" reducer_memory_mb="1"/>)",
       "field 'systems/system[@name='s']/@reducer_memory_mb': expected 128..10240, got 1"},
      {R"(<system name="t" strategy="serverless_tree" aggregator_memory_mb="1"/>)",
       "field 'systems/system[@name='t']/@aggregator_memory_mb': expected 128..10240, got 1"},
      {R"(<system name="t" strategy="serverless_tree" aggregator_memory_mb="200"/>)",
       "@aggregator_memory_mb': 200 MB cannot hold the runtime"},
      {R"(<system name="s" strategy="serverless_sharded" shards="4" reducer_memory_mb="20000"/>)",
       "expected 128..10240, got 20000"},
  };
  for (const auto& [system, message] : cases) {
    CAPTURE(system);
    std::ofstream(dir.path("e.xml")) << experiment(system);
    const auto r = run_cli("run " + dir.path("e.xml"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
  // The smallest size that holds the runtime and the tree's one gradient buffer runs.
  std::ofstream(dir.path("ok.xml")) << experiment(R"(<system name="t" strategy="serverless_tree" aggregator_memory_mb="400"/>)");
  CHECK(run_cli("run -q " + dir.path("ok.xml")).exit_code == 0);
}

TEST_CASE("crash times: a crash after training ends never happens, times past a simulated year are refused") {
  TempDir dir;
  std::ofstream(dir.path("late.xml"))
      << experiment(kInstance, R"(<failures crash_peer="1" crash_at_s="1e7" rejoin_after_s="5" peer_timeout_s="10"/>)");
  std::ofstream(dir.path("none.xml")) << experiment(kInstance);
  auto late = run_cli("run -q " + dir.path("late.xml") + " --out " + dir.path("late"));
  auto none = run_cli("run -q " + dir.path("none.xml") + " --out " + dir.path("none"));
  REQUIRE(late.exit_code == 0);
  REQUIRE(none.exit_code == 0);
  const auto with = nlohmann::json::parse(slurp(dir.path("late/result.json")))["systems"]["instance"];
  const auto without = nlohmann::json::parse(slurp(dir.path("none/result.json")))["systems"]["instance"];
  CHECK(with["status"] == "ok");  // was "infeasible: still running after a year"
  CHECK(with["total_s"] == without["total_s"]);
  CHECK(slurp(dir.path("late/trace.csv")) == slurp(dir.path("none/trace.csv")));
  for (const auto& [failures, field] : std::vector<std::pair<std::string, std::string>>{
           {R"(<failures crash_peer="1" crash_at_s="1e8" peer_timeout_s="10"/>)", "failures/@crash_at_s"},
           {R"(<failures crash_peer="1" crash_at_s="10" rejoin_after_s="1e9"/>)", "failures/@rejoin_after_s"},
           {R"(<failures crash_peer="1" crash_at_s="3e7" rejoin_after_s="3e7"/>)", "failures/@rejoin_after_s"},
           {R"(<failures crash_peer="1" crash_at_s="10" peer_timeout_s="1e9"/>)", "failures/@peer_timeout_s"}}) {
    CAPTURE(failures);
    std::ofstream(dir.path("bad.xml")) << experiment(kInstance, failures);
    const auto r = run_cli("run " + dir.path("bad.xml"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("field '" + field + "'") != std::string::npos);
  }
}

TEST_CASE("output paths: a file, a folder for a file, a link to nothing, /proc or a name too long, refused before anything runs") {
  TempDir dir;
  std::ofstream(dir.path("e.xml")) << experiment(kInstance);
  std::ofstream(dir.path("a_file")) << "keep";
  fs::create_directories(dir.path("a_folder"));
  fs::create_symlink(dir.path("nothing"), dir.path("dangling"));
  fs::create_symlink(dir.path("loop2"), dir.path("loop1"));
  fs::create_symlink(dir.path("loop1"), dir.path("loop2"));
  const std::vector<std::pair<std::string, std::string>> cases{
      {"run " + dir.path("e.xml") + " --out " + dir.path("a_file"), "is a file, expected a folder"},
      {"run " + dir.path("e.xml") + " --out " + dir.path("a_file/below"), "is a file, expected a folder"},
      {"sweep " + dir.path("e.xml") + " --out " + dir.path("a_file"), "is a file, expected a folder"},
      {"merge " + dir.path("a_folder") + " --out " + dir.path("a_file"), "not a sweep result folder"},
      {"validate --case none --out " + dir.path("a_file"), "is a file, expected a folder"},
      // Each of these passed the check and failed only when the results were written, after the simulation.
      {"run " + dir.path("e.xml") + " --out /proc/p2psim_out", "cannot write into '/proc'"},
      {"sweep " + dir.path("e.xml") + " --out /proc/p2psim_out", "cannot write into '/proc'"},
      {"run " + dir.path("e.xml") + " --out " + dir.path("dangling"), "is a symbolic link to nothing"},
      {"run " + dir.path("e.xml") + " --out " + dir.path(std::string(300, 'a')), "File name too long"},
      {"run " + dir.path("e.xml") + " --out " + dir.path("loop1/below"), "Too many levels of symbolic links"},
      {"validate --record --cases " + dir.path("loop1"), "Too many levels of symbolic links"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    const auto r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
  CHECK(slurp(dir.path("a_file")) == "keep");
  // validate --record onto a folder: refused before any case runs, no .partial left beside it.
  const std::string cases_dir = dir.path("cases");
  fs::create_directories(cases_dir + "/recorded_errors.csv");
  const auto r = run_cli("validate --cases " + cases_dir + " --record");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--record: '") != std::string::npos);
  CHECK(r.output.find("is a folder, expected a file name") != std::string::npos);
}

TEST_CASE("bytes that are not UTF-8: in a path, results are written as valid JSON, in a file, refused at their line") {
  TempDir dir;
  const std::string odd = dir.path("caf\xe9");  // Latin-1: a legal Linux file name, not UTF-8
  fs::create_directories(odd);
  std::ofstream(odd + "/e.xml") << experiment(kInstance);
  const auto r = run_cli("run -q '" + odd + "/e.xml' --out '" + odd + "/out'");
  CHECK(r.exit_code == 0);  // was exit 1 (json type_error.316) and an empty folder
  const auto json = nlohmann::json::parse(slurp(odd + "/out/result.json"));
  CHECK(json["systems"]["instance"]["status"] == "ok");
  CHECK(fs::exists(odd + "/out/trace.csv"));
  std::ofstream(dir.path("notes.xml")) << experiment(kInstance, "<!-- caf\xe9 -->");
  const auto bad = run_cli("run " + dir.path("notes.xml"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("notes.xml:5: byte 0xE9 is not UTF-8") != std::string::npos);
}

TEST_CASE("a set of result files is written whole or not at all (a disk that fills mid-write)") {
  TempDir dir;
  std::ofstream(dir.path("result.json")) << "old";
  // The second file cannot be written (its temporary name is taken by a folder): nothing is replaced, and
  // nothing half-written stays.
  fs::create_directories(dir.path(".trace.csv." + std::to_string(::getpid()) + ".partial"));
  CHECK_THROWS_WITH_AS(p2psim::write_files_atomically(dir.root, {{"result.json", "new"}, {"trace.csv", "rows"}}),
                       doctest::Contains("nothing written"), std::runtime_error);
  CHECK(slurp(dir.path("result.json")) == "old");
  CHECK(!fs::exists(dir.path(".result.json." + std::to_string(::getpid()) + ".partial")));
  fs::remove(dir.path(".trace.csv." + std::to_string(::getpid()) + ".partial"));
  p2psim::write_files_atomically(dir.root, {{"result.json", "new"}, {"trace.csv", "rows"}});
  CHECK(slurp(dir.path("result.json")) == "new");
  CHECK(slurp(dir.path("trace.csv")) == "rows");
}

TEST_CASE("limits: a design past its size limit, or past this machine's memory maps, is refused before it runs") {
  TempDir dir;
  auto run = [&](int peers, const std::string& system) {
    std::string xml = experiment(system);
    xml.replace(xml.find("count=\"4\""), 9, "count=\"" + std::to_string(peers) + "\"");
    std::ofstream(dir.path("big.xml")) << xml;
    return run_cli("run -q " + dir.path("big.xml"));
  };
  auto r = run(257, R"(<system name="x" strategy="spirt"/>)");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("big.xml:4: field 'systems/system[@name='x']/@strategy': spirt is simulated with up to 256 "
                      "peers, not 257") != std::string::npos);
  r = run(4097, R"(<system name="x" strategy="parameter_server"/>)");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("parameter_server is simulated with up to 4096 peers") != std::string::npos);
  // The paper's two systems, which the file does not declare, have no line: the peers' count is named at its own.
  std::string implicit = experiment("");
  implicit.replace(implicit.find("count=\"4\""), 9, "count=\"2000\"");
  implicit.erase(implicit.find("<systems></systems>"), 19);
  std::ofstream(dir.path("implicit.xml")) << implicit;
  r = run_cli("run -q " + dir.path("implicit.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("implicit.xml:3: field 'peers/@count': system 'instance': p2p_all_to_all is simulated with up "
                      "to 1024 peers, not 2000") != std::string::npos);
  // With groups, their total is past the limit, not either count: <peers>'s line.
  std::string grouped = implicit;
  grouped.replace(grouped.find(R"(<peers count="2000" instance_type="t2.large"/>)"), 46,
                  "<peers>\n    <group count=\"600\" instance_type=\"t2.large\"/>\n"
                  "    <group count=\"600\" instance_type=\"t2.large\" name=\"b\"/>\n  </peers>");
  std::ofstream(dir.path("grouped.xml")) << grouped;
  r = run_cli("run -q " + dir.path("grouped.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("grouped.xml:3: field 'peers/group/@count (their total)': system 'instance': p2p_all_to_all is "
                      "simulated with up to 1024 peers, not 1200") != std::string::npos);
  // Its peers computed (servers with a fixed-rate NIC, whose credits cannot run out): no limit of its own, and
  // no actor per peer (the four servers, the task that steps the peers, the engine's).
  r = run_cli("run --check " + [&] {
    std::string xml = experiment(R"(<system name="x" strategy="parameter_server" servers="4" server_type="m5.8xlarge"/>)");
    xml.replace(xml.find("count=\"4\""), 9, "count=\"5000\"");
    std::ofstream(dir.path("computed.xml")) << xml;
    return dir.path("computed.xml");
  }());
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("6 actors") != std::string::npos);
  // The same peers as actors (--exact-participants): refused before it runs, where it used to start a simulation
  // that grows as P^3 and did not end; --check says so too, with every peer an actor.
  r = run_cli("run -q --exact-participants " + dir.path("computed.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("computed.xml:4: field 'systems/system[@name='x']/@strategy': parameter_server is simulated "
                      "with up to 4096 peers, not 5000: its peers are actors here (--exact-participants") !=
        std::string::npos);
  r = run_cli("run --check --exact-participants " + dir.path("computed.xml"));
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("5e+03 actors") != std::string::npos);
  // 35,000 ring peers: 70,000 memory maps and more, past the default vm.max_map_count of 65,530, where SimGrid
  // aborted ("Failed to protect stack").
  std::ifstream limit("/proc/sys/vm/max_map_count");
  double maps = 0;
  limit >> maps;
  if (maps > 0 && maps < 70000) {
    r = run(35000, R"(<system name="x" strategy="ring_allreduce"/>)");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("vm.max_map_count") != std::string::npos);
  }
}

// The memory estimate `run` checks before simulating, against the peak the run then takes (the largest RSS of the
// process and the children it waited for, from wait4): never below it, and at most twice it, for every design
// at two sizes (mnist_cnn on the hand calibration, thousands to hundreds of thousands of trace rows).
TEST_CASE("limits: each design's estimated peak memory is above its measured peak and within 2x, at two sizes") {
  TempDir dir;
  for (const std::string system :
       {R"(p2p_all_to_all" compute="peer)", R"(p2p_all_to_all" compute="functions)", "ring_allreduce",
        R"(parameter_server" servers="2)", R"(serverless_sharded" shards="3)", "serverless_tree", "spirt",
        R"(lambdaml" pattern="scatter_reduce)", R"(lambdaml" pattern="allreduce)"})
    for (const auto& [peers, iterations] : std::vector<std::pair<int, int>>{{8, 300}, {16, 600}}) {
      CAPTURE(system);
      CAPTURE(peers);
      std::ofstream(dir.path("m.xml")) << R"(<experiment name="m" seed="1">
  <calibration files=")" P2PSIM_SOURCE_DIR R"(/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations=")"
                                       << iterations << R"("/>
  <peers count=")" << peers << R"(" instance_type="m5.large"/>
  <systems><system name="x" strategy=")" << system << R"("/></systems>
</experiment>
)";
      const auto check = run_cli("run " + dir.path("m.xml") + " --check");
      REQUIRE(check.exit_code == 0);
      std::smatch m;
      REQUIRE(std::regex_search(check.output, m, std::regex("simulation: about ([0-9]+) MB at its peak")));
      const double estimate_mb = std::stod(m[1]);
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        const std::string xml = dir.path("m.xml"), out = dir.path("out");
        ::execl(P2PSIM_BIN, P2PSIM_BIN, "run", xml.c_str(), "-q", "--out", out.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
      }
      int status = 0;
      rusage usage{};
      REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);
      const double peak_mb = usage.ru_maxrss * 1024.0 / 1e6;
      CHECK(estimate_mb >= peak_mb);
      CHECK(estimate_mb <= 2 * peak_mb);
    }
}

TEST_CASE("silently ignored input is refused: elements inside <system>, text inside <sweep> or any element") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases{
      {experiment(R"(<system name="x" strategy="ring_allreduce"><shards>4</shards></system>)"),
       "field 'systems/system/shards': <system> holds no element: a system's parameters are its attributes"},
      {experiment(kInstance, R"(<sweep>peers/@count 4 8<axis select="peers/@count" values="4 8"/></sweep>)"),
       "field 'sweep': text inside <sweep> is not read"},
      {experiment(kInstance, R"(<functions memory_mb="2048">3008</functions>)"), "text inside <functions> is not read"},
  };
  for (const auto& [xml, message] : cases) {
    CAPTURE(xml);
    std::ofstream(dir.path("e.xml")) << xml;
    const auto r = run_cli((xml.find("<sweep>") != std::string::npos ? "sweep --list " : "run ") + dir.path("e.xml"));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
}

TEST_CASE("a profile or price override that selects several attributes is refused: an override sets one value") {
  TempDir dir;
  std::ofstream(dir.path("e.xml")) << experiment(
      kInstance, R"(<profile><override select="instance_types/instance/@vcpus" value="4"/></profile>)");
  auto r = run_cli("run " + dir.path("e.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("field 'override/@select': 'instance_types/instance/@vcpus' selects") != std::string::npos);
  CHECK(r.output.find("an override sets one") != std::string::npos);
  std::ofstream(dir.path("e.xml")) << experiment(
      kInstance, R"(<prices><override select="instances/instance/@per_hour_usd" value="0"/></prices>)");
  r = run_cli("run " + dir.path("e.xml"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("field 'override/@select': 'instances/instance/@per_hour_usd' selects") != std::string::npos);
  CHECK(r.output.find("an override sets one") != std::string::npos);
}

TEST_CASE("run --check: every system's footprint, exit 0 when everything fits and 3 when not") {
  TempDir dir;
  std::ofstream(dir.path("ok.xml")) << experiment(kInstance + R"(<system name="r" strategy="ring_allreduce"/>)");
  auto r = run_cli("run --check " + dir.path("ok.xml"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("system instance (p2p_all_to_all):") != std::string::npos);
  CHECK(r.output.find("system r (ring_allreduce):") != std::string::npos);
  CHECK(r.output.find("simulation: about") != std::string::npos);
  // A function of 128 MB holds no VGG-11 step: it was "DOES NOT FIT" with exit 0.
  std::ofstream(dir.path("small.xml"))
      << experiment(R"(<system name="serverless" strategy="p2p_all_to_all" compute="functions"/>)",
                    R"(<functions memory_mb="128"/>)");
  r = run_cli("run --check " + dir.path("small.xml"));
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("DOES NOT FIT") != std::string::npos);
}

TEST_CASE("run: a slower system reads 'slower', and a design whose peers run the baseline's steps improves by 0 exactly") {
  TempDir dir;
  std::ofstream(dir.path("cmp.xml")) << experiment(
      kInstance + R"(<system name="ps" strategy="parameter_server"/><system name="lml" strategy="lambdaml"/>)",
      R"(<functions memory_mb="3008"/>)");
  const auto r = run_cli("run " + dir.path("cmp.xml") + " --out " + dir.path("out"));
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(slurp(dir.path("out/result.json")));
  const double lml = json["systems"]["lml"]["vs_baseline"]["total_time_speedup"].get<double>();
  REQUIRE(lml < 1);  // LambdaML's functions on this workload: slower than the instances
  const auto at = r.output.find("total time (lml vs instance): ");
  REQUIRE(at != std::string::npos);
  CHECK(r.output.substr(at, r.output.find('\n', at) - at) ==
        fmt::format("total time (lml vs instance): {:.2f}x slower", 1 / lml));
  // The parameter server's peers compute the instance baseline's steps: its improvement is 0, not -2.2e-14.
  CHECK(json["systems"]["ps"]["vs_baseline"]["gradient_time_improvement_percent"].get<double>() == 0.0);
  CHECK(r.output.find("improvement (ps vs instance): 0.00 %") != std::string::npos);
}

TEST_CASE("run: an infeasible system's times are empty cells in result.csv, its cost what it spent") {
  TempDir dir;
  // A 1,024 MB function holds no VGG-11 step at batch 1,024 (it needs about 2,020 MB): the serverless system stops.
  std::ofstream(dir.path("oom.xml")) << experiment(
      kInstance + R"(<system name="serverless" strategy="p2p_all_to_all" compute="functions"/>)",
      R"(<functions memory_mb="1024"/>)");
  REQUIRE(run_cli("run " + dir.path("oom.xml") + " -q --out " + dir.path("out")).exit_code == 0);
  std::istringstream csv(slurp(dir.path("out/result.csv")));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) {
    rows.emplace_back();
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) rows.back().push_back(cell);
    if (!line.empty() && line.back() == ',') rows.back().push_back("");
  }
  const auto& header = rows.at(0);
  auto cell = [&](const std::string& system, const std::string& column) {
    const auto c = static_cast<size_t>(std::find(header.begin(), header.end(), column) - header.begin());
    for (const auto& row : rows)
      if (!row.empty() && std::find(row.begin(), row.end(), system) != row.end()) return row.at(c);
    return std::string("(no row)");
  };
  CHECK(cell("serverless", "status") == "infeasible");
  for (const char* time : {"total_s", "iteration_s", "gradient_s_per_iteration", "communication_s_per_iteration",
                           "aggregate_update_s_per_iteration", "barrier_s_per_iteration", "other_s_per_iteration",
                           "paper_gradient_s_per_iteration"}) {
    CAPTURE(time);
    CHECK(cell("serverless", time).empty());
    CHECK_FALSE(cell("instance", time).empty());
  }
  CHECK(std::stod(cell("serverless", "phase_out_of_memory_s")) > 0);  // how it failed is kept
  CHECK(std::stod(cell("serverless", "total_usd")) > 0);  // what it spent before it stopped
}

TEST_CASE("run --check: each memory line names the systems whose steps run there, and nothing no system runs is checked") {
  TempDir dir;
  // 128 MB functions hold no VGG-11 step, but the ring and the parameter server run no function: exit 0, and the
  // one line is their peers'.
  std::ofstream(dir.path("peers.xml")) << experiment(
      R"(<system name="r" strategy="ring_allreduce"/><system name="ps" strategy="parameter_server"/>)",
      R"(<functions memory_mb="128"/>)");
  auto r = run_cli("run --check " + dir.path("peers.xml"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("r, ps: a peer (t2.large, 8.00 GiB) needs ") != std::string::npos);
  CHECK(r.output.find("function (") == std::string::npos);
  // A t2.micro (1 GiB) holds no step, but neither system below runs one on a peer: the functions' lines
  // name their systems, gradient functions and LambdaML's worker functions (a whole worker's step) apart.
  std::string functions = experiment(
      R"(<system name="serverless" strategy="p2p_all_to_all" compute="functions"/>)"
      R"(<system name="lml" strategy="lambdaml"/>)",
      R"(<functions memory_mb="512"/>)");  // (at 128 MB LambdaML's pass would outrun the function timeout)
  functions.replace(functions.find("t2.large"), 8, "t2.micro");
  std::ofstream(dir.path("functions.xml")) << functions;
  r = run_cli("run --check " + dir.path("functions.xml"));
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("a peer (") == std::string::npos);
  CHECK(r.output.find("serverless: a gradient function (512 MB) needs up to ") != std::string::npos);
  CHECK(r.output.find("lml: a worker function (512 MB) needs ") != std::string::npos);
  CHECK(r.output.find("MB for its largest step: DOES NOT FIT") != std::string::npos);
}

TEST_CASE("merge: one scenario with other results in two folders is refused, rows carry their seed") {
  TempDir dir;
  auto sweep = [&](const std::string& name, const std::string& seed) {
    std::string xml = experiment(kInstance, R"(<sweep><axis select="peers/@count" values="2 4"/></sweep>)");
    xml.replace(xml.find("seed=\"1\""), 8, "seed=\"" + seed + "\"");
    std::ofstream(dir.path(name + ".xml")) << xml;
    return run_cli("sweep " + dir.path(name + ".xml") + " -j 2 --out " + dir.path(name));
  };
  REQUIRE(sweep("a", "1").exit_code == 0);
  REQUIRE(sweep("b", "1").exit_code == 0);
  CHECK(run_cli("merge " + dir.path("a") + " " + dir.path("b") + " --out " + dir.path("ab")).exit_code == 0);
  CHECK(slurp(dir.path("ab/results.csv")) == slurp(dir.path("a/results.csv")));  // the same runs, kept once
  const std::string header = slurp(dir.path("a/results.csv")).substr(0, slurp(dir.path("a/results.csv")).find('\n'));
  CHECK(header.substr(header.size() - 5) == ",seed");
  // A run of b edited (as another input file or p2psim would give): refused, naming both folders.
  for (const auto& entry : fs::directory_iterator(dir.path("b/runs"))) {
    const std::string csv = (entry.path() / "result.csv").string();
    std::string text = slurp(csv);
    text.replace(text.rfind(",1\n"), 3, ",9\n");
    std::ofstream(csv) << text;
    break;
  }
  const auto r = run_cli("merge " + dir.path("a") + " " + dir.path("b") + " --out " + dir.path("ab2"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("has other results here than in " + dir.path("a/runs/")) != std::string::npos);
  // Into a sweep's own folder not among those merged: refused, its table kept; among them: merged, and said.
  const std::string a_table = slurp(dir.path("a/results.csv"));
  const auto into_a = run_cli("merge " + dir.path("ab") + "/../b --out " + dir.path("a"));
  CHECK(into_a.exit_code == 2);
  CHECK(into_a.output.find("is a sweep's result folder not among those merged") != std::string::npos);
  CHECK(slurp(dir.path("a/results.csv")) == a_table);
  const auto with_a = run_cli("merge " + dir.path("a") + " --out " + dir.path("a") + "/.");
  CHECK(with_a.exit_code == 0);
  CHECK(with_a.output.find("(replaced the table there)") != std::string::npos);
  CHECK(slurp(dir.path("a/results.csv")) == a_table);
}

TEST_CASE("fit flags a calibration sample far from its configuration's median, and run says so") {
  TempDir dir;
  std::string csv = slurp(P2PSIM_SOURCE_DIR "/tests/data/hand_calibration.csv");
  // Four more repeats of each 1-thread step within 2 %, and one at 30 s where the others say 1.1 s.
  for (const char* row : {"1000,1,0,1199882,4799528,0,1.11", "1000,1,0,1199882,4799528,0,1.09",
                          "1000,1,0,1199882,4799528,0,1.12", "60000,1,0,1199882,4799528,0,7.05",
                          "60000,1,0,1199882,4799528,0,6.98", "60000,1,0,1199882,4799528,0,7.02",
                          "1000,1,0,1199882,4799528,0,30"})
    csv += std::string("train_step,mnist_cnn,10,1x28x28,") + row + "\n";
  std::ofstream(dir.path("cal.csv")) << csv;
  const long outlier_line = static_cast<long>(std::count(csv.begin(), csv.end(), '\n'));
  auto fit = run_cli("fit " + dir.path("cal.csv"));
  CHECK(fit.exit_code == 0);
  CHECK(fit.output.find("outlier: " + dir.path("cal.csv") + ":" + std::to_string(outlier_line) +
                        ": train_step mnist_cnn@1x28x28: 30 s where its configuration's median is 1.1") !=
        std::string::npos);
  CHECK(fit.output.find("outlier:", fit.output.find("outlier:") + 1) == std::string::npos);  // only that one
  std::ofstream(dir.path("e.xml")) << R"(<experiment name="o" seed="1">
  <calibration files=")" + dir.path("cal.csv") + R"("/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="2"/>
  <peers count="4" instance_type="t2.large"/>
</experiment>
)";
  const auto run = run_cli("run -q " + dir.path("e.xml"));
  CHECK(run.exit_code == 0);
  CHECK(run.output.find("warning: the calibration of mnist_cnn@1x28x28 holds 1 sample(s) far from") != std::string::npos);
  // An experiment with bad input gets its one error, not the warning before it.
  std::ofstream(dir.path("bad.xml")) << R"(<experiment name="o" seed="1">
  <calibration files=")" + dir.path("cal.csv") + R"("/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="2"/>
  <peers count="4" instance_type="t2.large"/>
  <systems><system name="x" strategy="serverless_sharded" storage_prefixes="0"/></systems>
</experiment>
)";
  const auto bad = run_cli("run -q " + dir.path("bad.xml"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("warning") == std::string::npos);
  CHECK(std::count(bad.output.begin(), bad.output.end(), '\n') == 1);
}

TEST_CASE("a calibration CSV's bad cell or row is named in p2psim's words at its line and column") {
  TempDir dir;
  const std::string header = "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,"
                             "payload_bytes,repeat,seconds\n";
  const std::string row = "train_step,mnist_cnn,10,1x28x28,1000,1,0,1199882,4799528,0,1.1\n";
  const std::pair<std::string, std::string> cases[] = {
      {header + row + "train_step,mnist_cnn,10,1x28x28,1000,one,0,1199882,4799528,0,1.1\n",
       "bad.csv:3: field 'threads': expected a number, got 'one'"},
      {header + row + "train_step,mnist_cnn,10,1x28x28,1000,1,0,1199882\n", "bad.csv:3: the row has fewer cells than the header"},
      {header + row + row.substr(0, row.size() - 1) + ",7,8\n", "bad.csv:3: the row has more cells than the header"},
      {"seconds," + header, "bad.csv:1: field 'seconds': column is given twice"},
      {"", "bad.csv:1: the file is empty: expected a header row"},
  };
  for (const auto& [text, message] : cases) {
    CAPTURE(message);
    std::ofstream(dir.path("bad.csv"), std::ios::trunc) << text;
    const auto fit = run_cli("fit " + dir.path("bad.csv"));
    CHECK(fit.exit_code == 2);
    CHECK(fit.output.find(message) != std::string::npos);
    CHECK(fit.output.find("in file") == std::string::npos);  // not the parser's own sentence
  }
}

TEST_CASE("a function speed factor too slow for a storage client the profile names is blamed on the override") {
  TempDir dir;
  std::ofstream(dir.path("slow.xml")) << R"(<experiment name="slow" seed="1">
  <profile file=")" P2PSIM_SOURCE_DIR R"(/platforms/aws_us_east_1.xml">
    <override select="function_service/@cpu_speed_factor_x86" value="0.1"/>
  </profile>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.large"/>
</experiment>
)";
  const auto r = run_cli("run --check " + dir.path("slow.xml"));
  CHECK(r.exit_code == 2);
  // Lithops's measured loop less a cheaper client's saving over the factor would go below zero: the factor's
  // fault, at the override's line (3), with the least factor the client allows.
  CHECK(r.output.find(dir.path("slow.xml") + ":3: field 'override/@value': '0.1' for "
                      "function_service/@cpu_speed_factor_x86 is not valid") != std::string::npos);
  CHECK(r.output.find("would cost no CPU per byte on a function whose 'function_service/@cpu_speed_factor_x86' is "
                      "0.1: it costs ") != std::string::npos);
  CHECK(r.output.find("so that factor must exceed 0.15") != std::string::npos);
}
