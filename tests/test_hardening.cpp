// Inputs a hostile but realistic user gives, each refused with exit 2 naming the file and field before anything
// runs, or run to a correct end: files without a size limit, memory no cloud allows, crash times past the
// run's bounds, output paths that cannot be written, bytes that are not UTF-8, a disk that fills mid-write.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../sim/atomic_file.hpp"
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

TEST_CASE("crash times: a crash after training ends never happens; times past a simulated year are refused") {
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

TEST_CASE("output paths: a file, or a folder for a file, is refused before anything runs") {
  TempDir dir;
  std::ofstream(dir.path("e.xml")) << experiment(kInstance);
  std::ofstream(dir.path("a_file")) << "keep";
  fs::create_directories(dir.path("a_folder"));
  const std::vector<std::pair<std::string, std::string>> cases{
      {"run " + dir.path("e.xml") + " --out " + dir.path("a_file"), "is a file, expected a folder"},
      {"run " + dir.path("e.xml") + " --out " + dir.path("a_file/below"), "is a file, expected a folder"},
      {"sweep " + dir.path("e.xml") + " --out " + dir.path("a_file"), "is a file, expected a folder"},
      {"merge " + dir.path("a_folder") + " --out " + dir.path("a_file"), "not a sweep result folder"},
      {"validate --case none --out " + dir.path("a_file"), "is a file, expected a folder"},
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

TEST_CASE("bytes that are not UTF-8: in a path, results are written as valid JSON; in a file, refused at their line") {
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
