// Experiment parsing and validation: defaults, derived quantities, and bad input named by file, line, field.
#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <map>

#include "results/results.hpp"
#include "sim_fixture.hpp"
#include "util/read_text.hpp"

using namespace p2psim;
using fixture::write_experiment;

namespace {
const char* kMnist4 = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.medium"/>)";

// Loading, resolving and checking every system, as `p2psim run` does before simulating.
std::string load_error(const std::string& path) {
  try {
    check_systems(fixture::scenario(path));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("unset values come from experiments/defaults.xml") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, kMnist4));
  const auto& e = s.experiment;
  CHECK(e.exchange.poll_interval_s == 2);
  CHECK(e.exchange.consume == Consume::Poll);
  // Which systems wait at the barrier, and how they send, are the design's own defaults now (not defaults.xml's).
  CHECK_FALSE(e.barrier.instance.has_value());
  CHECK_FALSE(e.exchange.instance_transport.has_value());
  CHECK(e.warnings.empty());
  CHECK(e.functions.memory_mb == 3008);
  CHECK(e.workflow_status_poll_interval_s == 2);
  // No <systems>: the paper's two, instance-based the baseline.
  REQUIRE(e.systems.size() == 2);
  CHECK(e.systems[0].name == "instance");
  CHECK(e.systems[0].params.at("compute") == "peer");
  CHECK(e.systems[1].name == "serverless");
  CHECK(e.systems[1].params.at("compute") == "functions");
  CHECK(e.baseline == "instance");
}

TEST_CASE("minibatches and invocations derive from the dataset's real size") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, kMnist4));
  CHECK(s.peer_groups[0].shard_samples == 15000);  // MNIST's 60,000 over 4 peers
  CHECK(s.peer_groups[0].minibatches.size() == 15);
  CHECK(s.peer_groups[0].minibatches.front() == 1024);
  CHECK(s.peer_groups[0].minibatches.back() == 15000 - 14 * 1024);
  CHECK(s.gradient_bytes == 4799528);
  CHECK(s.sends_inline(Transport::Auto));  // the instance system's default: 4.8 MB is under the broker's 128 MiB
  CHECK_FALSE(s.sends_inline(Transport::Storage));  // the paper's serverless path uses S3

  auto grouped = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="cifar10" minibatches_per_peer="5" iterations="1"/>
    <peers count="10" instance_type="t2.medium"/>
    <functions minibatches_per_invocation="2"/>)"));
  CHECK(grouped.peer_groups[0].minibatches == std::vector<long long>(5, 1000));  // CIFAR-10's 50,000 / 10 peers / 5
  REQUIRE(grouped.peer_groups[0].invocations.size() == 3);
  CHECK(grouped.peer_groups[0].invocations[2].size() == 1);
}

TEST_CASE("a profile value can be overridden from the experiment") {
  TempDir dir;
  auto t = fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(<functions keep_alive_s="42"/>)"));
  CHECK(t.profile.functions.keep_alive_s == 42);
}

TEST_CASE("the account's network quota: the profile's by default, scaled when the experiment asks, bad ones named") {
  TempDir dir;
  CHECK_FALSE(fixture::scenario(write_experiment(dir, kMnist4)).profile.functions.network_quota_scalable);
  const auto scaled =
      fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(<functions network_quota="scalable"/>)"));
  CHECK(scaled.profile.functions.network_quota_scalable);
  CHECK(scaled.profile.functions.network_quota.size() == 2);  // the test profile's two documented sizes

  const auto fast = write_experiment(dir, std::string(kMnist4) + R"(<functions network_quota="fast"/>)");
  CHECK(load_error(fast).find(fixture::line_tag(fast, "network_quota=\"fast\"") + " field 'functions/@network_quota': 'fast' for "
                              "function_service/@network_quota is not valid") != std::string::npos);

  // A profile's own mistakes, named at its line and field.
  const std::string shipped = fixture::test_profile_text();
  auto profile_error = [&](const std::string& from, const std::string& to) {
    std::string text = shipped;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const std::string path = dir.path("profile.xml");
    std::ofstream(path) << text;
    try {
      load_cloud_profile(path);
    } catch (const InputError& e) {
      return e.field + ": " + e.message;
    }
    return std::string("no error");
  };
  CHECK(profile_error("<network_quota memory_mb=\"10240\"", "<network_quota memory_mb=\"2048\"")
            .find("network_quota/@memory_mb: must increase") != std::string::npos);
  CHECK(profile_error(" network_quota=\"default\"", "")
            .find("function_service/@network_quota: required beside <network_quota>") != std::string::npos);
  CHECK(profile_error("<network_quota memory_mb=\"10240\" bandwidth_bps=\"250000000\"/>",
                      "<network_quota memory_mb=\"10240\" bandwidth_bps=\"-1\"/>")
            .find("network_quota/@bandwidth_bps") != std::string::npos);
}

TEST_CASE("a function's network may be given at several memory sizes, the profile's network once") {
  // The test profile's one point (55 MB/s a stream and in all at 128 MB) and a second at 1,128 MB (155 and 255
  // MB/s): 628 MB lies halfway, 105 and 155 MB/s; below the first and above the last, their values.
  TempDir dir;
  const std::string shipped = fixture::test_profile_text();
  const std::string point = R"(<network memory_mb="128" stream_bps="55000000" total_bps="55000000"/>)";
  const auto at = shipped.find(point);
  REQUIRE(at != std::string::npos);
  std::string text = shipped;
  text.insert(at + point.size(), R"(<network memory_mb="1128" stream_bps="155000000" total_bps="255000000"/>)");
  std::ofstream(dir.path("profile.xml")) << text;
  const auto f = load_cloud_profile(dir.path("profile.xml")).functions;
  REQUIRE(f.network.size() == 2);
  CHECK(f.network_at(628).stream_bps == doctest::Approx(105e6));
  CHECK(f.network_at(628).total_bps == doctest::Approx(155e6));
  CHECK(f.network_at(64).stream_bps == doctest::Approx(55e6));
  CHECK(f.network_at(4096).total_bps == doctest::Approx(255e6));
  // The profile's own <network> (the instances' and the model's) stays one.
  const auto top = text.find("<network ");
  REQUIRE(top != std::string::npos);
  REQUIRE(top < at);  // the profile's, before function_service's
  const auto end = text.find('>', top);
  text.insert(end + 1, text.substr(top, end + 1 - top) + (text[end - 1] == '/' ? "" : "</network>"));
  std::ofstream(dir.path("profile.xml")) << text;
  CHECK_THROWS_WITH_AS(load_cloud_profile(dir.path("profile.xml")),
                       doctest::Contains("<network> is given twice inside <"), InputError);
}

TEST_CASE("prices: the platform's price book unless the experiment gives another, with overrides of its own") {
  TempDir dir;
  const auto own = fixture::scenario(write_experiment(dir, kMnist4));
  CHECK(own.prices.path == std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_prices.xml");
  CHECK(own.prices.instance_per_hour_usd("t2.medium") == 0.1);
  auto s = fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(
    <prices><override select="instances/instance[@type='t2.medium']/@per_hour_usd" value="1.5"/></prices>)"));
  CHECK(s.prices.instance_per_hour_usd("t2.medium") == 1.5);
  CHECK(s.prices.instance_per_hour_usd("t2.large") == 0.1);
  // Another book: the shipped AWS one, on the test platform; the provenance lists it.
  auto aws = fixture::scenario(write_experiment(
      dir, std::string(kMnist4) + "<prices file=\"" P2PSIM_SOURCE_DIR "/platforms/prices/aws_us_east_1_2026-11.xml\"/>"));
  CHECK(aws.prices.instance_per_hour_usd("t2.medium") == 0.0464);
  CHECK(aws.prices.provider == "aws");
  const auto files = aws.input_files();
  CHECK(std::find(files.begin(), files.end(), aws.prices.path) != files.end());
}

TEST_CASE("a price in the platform file is refused with where prices are now") {
  TempDir dir;
  const std::string path = write_experiment(
      dir, kMnist4, R"(<override select="instance_types/instance[@type='t2.medium']/@price_per_hour_usd" value="1.5"/>)");
  try {
    fixture::scenario(path);
    FAIL("an override of a price in the platform file was accepted");
  } catch (const InputError& e) {
    CHECK(e.file == path);
    CHECK(e.field == "override/@select");
    CHECK(e.message.find("selects no attribute of") != std::string::npos);
    CHECK(e.message.find("in the price book now") != std::string::npos);
  }
}

TEST_CASE("bad experiments name the file, the line and the field") {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {R"(<peers count="-3" instance_type="t2.medium"/>)",
       "field 'peers/@count': expected an integer in [1, 100000], got -3"},
      {R"(<peers count="0" instance_type="t2.medium"/>)", "field 'peers/@count'"},
      {R"(<peers count="four" instance_type="t2.medium"/>)", "expected an integer, got 'four'"},
      {R"(<peers count="4" instance_type="t2.huge"/>)", "field 'peers/@instance_type': unknown instance type 't2.huge'"},
      {R"(<peers cont="4" instance_type="t2.medium"/>)", "field 'peers/@cont': unknown attribute"},
      {R"(<peer count="4"/>)", "unknown element <peer> inside <experiment>"},
      {R"(<functions memory_mb="64"/>)", "field 'functions/@memory_mb': expected 128..10240 MB, got 64"},
      {R"(<functions arch="sparc"/>)", "expected one of x86, arm, got 'sparc'"},
      {R"(<exchange consume="sometimes"/>)", "field 'exchange/@consume'"},
      // Numbers are plain decimals: no hexadecimal, '+', spaces or "nan" taken for something else.
      {R"(<functions memory_mb="0x800"/>)", "field 'functions/@memory_mb': expected an integer, got '0x800'"},
      {R"(<functions memory_mb="+2048"/>)", "expected an integer, got '+2048'"},
      {R"(<functions memory_mb=" 2048"/>)", "expected an integer, got ' 2048'"},
      {R"(<functions memory_mb="99999999999999999999999"/>)",
       "expected an integer in [1, 1048576], got '99999999999999999999999'"},
      {R"(<exchange poll_interval_s="nan"/>)", "field 'exchange/@poll_interval_s'"},
      // Given twice: which one was meant is not guessed.
      {R"(<functions memory_mb="2048"/><functions memory_mb="1024"/>)", "<functions> is given twice inside <experiment>"},
      // What the cost ratio counts is said, not guessed.
      {R"(<cost include_broker="maybe"/>)", "field 'cost/@include_broker'"},
      {R"(<cost include_brokers="false"/>)", "field 'cost/@include_brokers': unknown attribute"},
      // Limits (docs/limits.md): values that would never finish are refused.
      {R"(<stragglers slowdown="1e300 1"/>)", "field 'stragglers/@slowdown': expected factors in [1, 1000], got '1e300'"},
      {R"(<stragglers slowdown=" "/>)", "field 'stragglers/@slowdown': lists no factor"},
      {R"(<failures broker_outage_from_s="1" broker_outage_to_s="1e9"/>)",
       "field 'failures/@broker_outage_to_s': expected times in [0, 31536000] s (a simulated year"},
  };
  for (const auto& [body, message] : cases) {
    CAPTURE(body);
    const std::string peers = body.find("<peer") == std::string::npos ? R"(<peers count="4" instance_type="t2.medium"/>)" : "";
    const auto path = write_experiment(dir, R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="2"/>
)" + body + peers);
    const auto error = load_error(path);
    CHECK(error.find(message) != std::string::npos);
    CHECK(error.find(fixture::line_tag(path, body)) != std::string::npos);
    CHECK(error.find(dir.path("experiment.xml")) != std::string::npos);
  }
}

TEST_CASE("names that would break a CSV row, or are not text, are refused") {
  TempDir dir;
  // (A raw double quote cannot even be written: the XML is malformed, reported as such elsewhere.)
  for (const std::string name : {"a,b", "two\nlines", "caf\xc3", "tab\there"}) {
    CAPTURE(name);
    const std::string path = dir.path("named.xml");
    std::ofstream(path) << "<experiment name=\"" << name << "\" seed=\"1\">\n"
                        << "<workload model=\"mnist_cnn\" input_shape=\"1x28x28\" dataset=\"mnist\" batch_size=\"1024\"/>\n"
                        << "<peers count=\"4\" instance_type=\"t2.medium\"/>\n</experiment>\n";
    // Bytes that are not UTF-8 are refused by the reader, at their line, before any field is read.
    const std::string expected = name == "caf\xc3" ? "named.xml:1: byte 0xC3 is not UTF-8"
                                                    : "named.xml:1: field 'experiment/@name': expected 1-64 letters";
    CHECK(load_error(path).find(expected) != std::string::npos);
  }
}

TEST_CASE("a hostile nesting depth is refused before anything walks the tree (it used to crash the run)") {
  TempDir dir;
  const std::string path = dir.path("deep.xml");
  std::ofstream out(path);
  out << "<experiment name=\"deep\" seed=\"1\"><workload>";
  for (int i = 0; i < 30000; ++i) out << "<a>";
  for (int i = 0; i < 30000; ++i) out << "</a>";
  out << "</workload></experiment>\n";
  out.close();
  CHECK(load_error(path).find("deep.xml:1: elements nested more than 32 deep") != std::string::npos);
}

TEST_CASE("a comment XML forbids (\"--\" inside, or a last \"-\") is refused at its line, wherever it stands") {
  // pugixml reads them; Python's parser, which the analysis layer uses, refuses the whole file.
  TempDir dir;
  const std::string forbidden = "a comment holds \"--\" or ends in \"-\", which XML forbids inside comments";
  const std::pair<const char*, std::string> cases[] = {
      {"before_root.xml", "<!-- usage:\n  p2psim run x.xml --out y -->\n<experiment name=\"x\" seed=\"1\"/>\n"},
      {"inside.xml", "<experiment name=\"x\" seed=\"1\">\n  <!-- fine -->\n  <peers count=\"4\">\n    <!-- one\n-- two -->\n"
                     "  </peers>\n</experiment>\n"},
      {"trailing.xml", "<experiment name=\"x\" seed=\"1\">\n\n  <!-- ends in a dash --->\n</experiment>\n"},
  };
  const long lines[] = {2, 5, 3};
  for (size_t k = 0; k < 3; ++k) {
    CAPTURE(cases[k].first);
    std::ofstream(dir.path(cases[k].first)) << cases[k].second;
    const std::string where = std::string(cases[k].first) + ":" + std::to_string(lines[k]) + ": " + forbidden;
    CHECK(load_error(dir.path(cases[k].first)).find(where) != std::string::npos);
  }
  // Dashes that XML allows: single ones, and "- -".
  std::ofstream(dir.path("allowed.xml")) << "<experiment name=\"x\" seed=\"1\">\n  <!-- -o results - - and -j 2 -->\n"
                                         << kMnist4 << "\n</experiment>\n";
  CHECK(load_error(dir.path("allowed.xml")).find("comment") == std::string::npos);
}

TEST_CASE("an override's bad value is named at the override's line, a folder is not called a missing file") {
  TempDir dir;
  const std::string body = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.medium"/>)";
  const auto path = write_experiment(dir, body, R"(
    <override select="function_service/@keep_alive_s" value="soon"/>)");
  const auto error = load_error(path);
  CHECK(error.find(fixture::line_tag(path, "value=\"soon\"") + " field 'override/@value': 'soon' for "
                   "function_service/@keep_alive_s is not valid") != std::string::npos);
  CHECK(load_error(dir.root.string()).find("is a folder, expected a file") != std::string::npos);
}

TEST_CASE("a constant given two values in one experiment is refused at the second, not decided by order") {
  TempDir dir;
  const std::string body = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024" iterations="2"/>
  <peers count="4" instance_type="t2.medium"/>)";
  // Two <override>s of one select: the second is named, with the line of the first.
  const auto twice = write_experiment(dir, body, R"(
    <override select="function_service/@keep_alive_s" value="60"/>
    <override select="function_service/@keep_alive_s" value="600"/>)");
  const std::string first = fixture::line_tag(twice, "value=\"60\"");  // ":N:"
  CHECK(load_error(twice).find(fixture::line_tag(twice, "value=\"600\"") +
                               " field 'override/@select': 'function_service/@keep_alive_s' is given another value at line " +
                               first.substr(1, first.size() - 2) + " (an <override>): give it one value") !=
        std::string::npos);
  // An attribute of <functions> that stands for the same constant as an <override>.
  const auto both = write_experiment(dir, body + R"(
  <functions concurrency_limit="10"/>)", R"(
    <override select="function_service/@concurrency_limit" value="50"/>)");
  CHECK(load_error(both).find(fixture::line_tag(both, "<functions") +
                              " field 'functions/@concurrency_limit': 'function_service/@concurrency_limit' is given "
                              "another value at line") != std::string::npos);
  // A price overridden twice.
  const auto prices = write_experiment(dir, body + R"(
  <prices>
    <override select="instances/instance[@type='t2.medium']/@per_hour_usd" value="1.5"/>
    <override select="instances/instance[@type='t2.medium']/@per_hour_usd" value="2"/>
  </prices>)");
  CHECK(load_error(prices).find(fixture::line_tag(prices, "value=\"2\"") + " field 'override/@select'") !=
        std::string::npos);
  // Two different constants are two values, as before.
  const auto two = write_experiment(dir, body, R"(
    <override select="function_service/@keep_alive_s" value="60"/>
    <override select="function_service/@concurrency_limit" value="50"/>)");
  CHECK(load_error(two) == "no error");
}

TEST_CASE("workload errors") {
  TempDir dir;
  auto err = [&](const std::string& workload) {
    return load_error(write_experiment(dir, workload + R"(<peers count="4" instance_type="t2.medium"/>)"));
  };
  CHECK(err(R"(<workload model="vgg99" input_shape="3x32x32" dataset="mnist" batch_size="64"/>)")
            .find("field 'workload/@model': unknown model 'vgg99' (known: vgg11") != std::string::npos);
  CHECK(err(R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="64" minibatches_per_peer="2"/>)")
            .find("exactly one of batch_size and minibatches_per_peer") != std::string::npos);
  CHECK(err(R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="imagenet" batch_size="64"/>)")
            .find("expected one of mnist, fashion_mnist, cifar10") != std::string::npos);
  CHECK(err(R"(<workload model="mnist_cnn" input_shape="1x28" dataset="mnist" batch_size="1024"/>)")
            .find("field 'workload/@input_shape': expected CxHxW") != std::string::npos);
  // The hand-made calibration covers batches 1,000..60,000, so 500..120,000 with extrapolation.
  CHECK(err(R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="64"/>)")
            .find("field 'workload/@batch_size': batch size 24 is outside what the calibration of "
                  "mnist_cnn@1x28x28 supports") != std::string::npos);  // 15,000 samples: 234 of 64 and one of 24
  CHECK(err(R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1000"/>)")
            .find("field 'workload/@minibatches_per_peer': batch size 15 is outside") != std::string::npos);
}

TEST_CASE("a gradient over the broker's maximum message size sent inline is refused") {
  TempDir dir;
  // mnist_cnn's 4,799,528-byte gradient against a broker that takes 1 MB at most.
  const std::string body = R"(
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1024"/>
  <peers count="4" instance_type="t2.large"/>
  <exchange instance_transport="inline"/>)";
  const std::string small_broker = R"(<override select="broker/@max_message_bytes" value="1000000"/>)";
  const auto path = write_experiment(dir, body, small_broker);
  CHECK(load_error(path).find(fixture::line_tag(path, "<exchange") +
                              " field 'exchange/@instance_transport': a 4799528-byte mnist_cnn gradient sent inline "
                              "exceeds the broker's maximum message size of 1000000 bytes") != std::string::npos);
  // Declared on a system, the error names the system's own attribute.
  const auto sys = write_experiment(dir, body + R"(
  <systems><system name="fast" strategy="p2p_all_to_all" transport="inline"/></systems>)", small_broker);
  CHECK(load_error(sys).find(fixture::line_tag(sys, "<system name") +
                             " field 'systems/system[@name='fast']/@transport': a 4799528-byte") != std::string::npos);
}

TEST_CASE("missing files, malformed XML and overrides that select nothing") {
  TempDir dir;
  CHECK(load_error(dir.path("nope.xml")).find("nope.xml: cannot open file") != std::string::npos);
  std::ofstream(dir.path("broken.xml")) << "<experiment name=\"x\">\n  <peers count=\"4\"\n</experiment>\n";
  CHECK(load_error(dir.path("broken.xml")).find("broken.xml:3: malformed XML") != std::string::npos);
  const auto path = write_experiment(dir, kMnist4, R"(
    <override select="function_service/@no_such_value" value="1"/>)");
  CHECK(load_error(path).find(fixture::line_tag(path, "no_such_value") +
                              " field 'override/@select': 'function_service/@no_such_value' selects no attribute") !=
        std::string::npos);
  std::ofstream(dir.path("nocal.xml")) << R"(<experiment name="x"><calibration files="/nonexistent.csv"/></experiment>)";
  CHECK(load_error(dir.path("nocal.xml")).find("field 'calibration/@files': no such file: /nonexistent.csv") !=
        std::string::npos);
}

TEST_CASE("inputs a process parsed or hashed are read again once the file is rewritten, overrides kept apart") {
  // A sweep's scenarios inherit what their parent read (file_stamp.hpp); a file changed since is not stale.
  TempDir dir;
  const std::string profile = dir.path("profile.xml");
  const std::string shipped = fixture::test_profile_text();
  auto write = [](const std::string& path, const std::string& text) { std::ofstream(path) << text; };
  write(profile, shipped);
  CHECK(load_cloud_profile(profile).storage.aggregate_bandwidth_bps == 50e9);
  const ProfileOverride narrower{"object_storage/@aggregate_bandwidth_bps", "7000000000", "x.xml", 3};
  CHECK(load_cloud_profile(profile, {narrower}).storage.aggregate_bandwidth_bps == 7e9);
  CHECK(load_cloud_profile(profile).storage.aggregate_bandwidth_bps == 50e9);  // not the override's
  std::string rewritten = shipped;
  rewritten.replace(rewritten.find("aggregate_bandwidth_bps=\"50000000000\""), 37,
                    "aggregate_bandwidth_bps=\"9000000000\"");
  write(profile, rewritten);
  CHECK(load_cloud_profile(profile).storage.aggregate_bandwidth_bps == 9e9);
  CHECK(load_cloud_profile(profile, {narrower}).storage.aggregate_bandwidth_bps == 7e9);

  const std::string file = dir.path("input.csv"), same = dir.path("same.csv");
  write(file, "a\n");
  const std::string first = file_hash(file);
  write(file, "bb\n");
  write(same, "bb\n");
  CHECK(file_hash(file) != first);
  CHECK(file_hash(file) == file_hash(same));
}

TEST_CASE("a setting the rest of the experiment leaves idle is warned of at its line, and still checked") {
  TempDir dir;
  const std::string idle = write_experiment(dir, std::string(kMnist4) + R"(
  <synchronization staleness_bound="2"/>
  <exchange topk_ratio="0.05" error_feedback="true" compress_functions="false"/>
  <failures crash_at_s="30" rejoin_after_s="0.0"/>
  <stragglers tail_shape="2"/>)");
  const auto s = fixture::scenario(idle);
  std::map<std::string, long> warned;
  for (const auto& w : s.experiment.warnings) {
    CHECK(w.message.rfind("has no effect ", 0) == 0);
    warned[w.field] = w.line;
  }
  CHECK(warned == std::map<std::string, long>{
                      {"synchronization/@staleness_bound", std::stol(fixture::line_tag(idle, "staleness_bound").substr(1))},
                      {"exchange/@topk_ratio", std::stol(fixture::line_tag(idle, "topk_ratio").substr(1))},
                      {"exchange/@error_feedback", std::stol(fixture::line_tag(idle, "error_feedback").substr(1))},
                      {"failures/@crash_at_s", std::stol(fixture::line_tag(idle, "crash_at_s").substr(1))},
                      {"stragglers/@tail_shape", std::stol(fixture::line_tag(idle, "tail_shape").substr(1))}});
  // Idle at defaults.xml's own value (compress_functions, rejoin_after_s, as a number) is what idle means: no warning.
  // Where the rest makes them count, no warning either.
  const auto used = fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(
  <synchronization mode="async" staleness_bound="2"/>
  <exchange compression="topk" topk_ratio="0.05" error_feedback="true"/>
  <stragglers tail_probability="0.1" tail_shape="2"/>)"));
  CHECK(used.experiment.warnings.empty());
  // An idle value is still bad input when it is bad.
  CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(
  <synchronization staleness_bound="soon"/>)")),
                       doctest::Contains("synchronization/@staleness_bound"), InputError);
}

TEST_CASE("the paper's transport and barrier are the all-to-all's own, the old global settings still load, with a note") {
  TempDir dir;
  // Old style: the global settings are read, each noted as deprecated with its line and field.
  const std::string old_style = write_experiment(dir, std::string(kMnist4) + R"(
  <exchange instance_transport="storage"/>
  <barrier instance="false"/>)");
  const auto s = fixture::scenario(old_style);
  CHECK(s.experiment.exchange.instance_transport == Transport::Storage);
  CHECK(s.experiment.barrier.instance == false);
  REQUIRE(s.experiment.warnings.size() == 2);
  CHECK(s.experiment.warnings[0].field == "exchange/@instance_transport");
  CHECK(":" + std::to_string(s.experiment.warnings[0].line) + ":" == fixture::line_tag(old_style, "instance_transport"));
  CHECK(s.experiment.warnings[0].message.find("give transport=") != std::string::npos);
  CHECK(s.experiment.warnings[1].field == "barrier/@instance");
  // Asynchronous training with no barrier said anywhere loads (the design's default under async is none); a
  // barrier asked for under async is refused.
  fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(<synchronization mode="async"/>)"));
  CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, std::string(kMnist4) + R"(
    <synchronization mode="async"/><barrier instance="true"/>)")),
                       doctest::Contains("asynchronous training has no barrier"), InputError);
}

TEST_CASE("a constant's source must be a key of its file's <sources>: a typo or a missing key is named at its line") {
  TempDir dir;
  const std::string profile_text = read_text(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  const std::string prices_text = read_text(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_prices.xml");
  // Each file loads as shipped (the test profile's "none: why" too).
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  CHECK_NOTHROW(load_price_book(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_prices.xml", profile));
  auto error_of = [&](const std::string& name, const std::string& text, bool prices) -> InputError {
    const std::string path = dir.path(name);
    std::ofstream(path) << text;
    try {
      if (prices)
        load_price_book(path, profile);
      else
        load_cloud_profile(path);
    } catch (const InputError& e) {
      return e;
    }
    FAIL("accepted " << name);
    return InputError("", 0, "", "");
  };
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  const auto typo = error_of("typo.xml", replaced(profile_text, "source=\"M1\"", "source=\"M11\""), false);
  CHECK(typo.field == "runtime/@source");
  CHECK(typo.line > 0);
  CHECK(typo.message == "source 'M11' is not a key of <sources> in this file");
  // A key cited among others ("S26, L1") is checked too, and so is one in a price book.
  const auto second = error_of("second.xml", replaced(profile_text, "source=\"S26, L1\"", "source=\"S26, L99\""), false);
  CHECK(second.message.find("'L99'") != std::string::npos);
  const auto unkeyed = error_of("unkeyed.xml", replaced(profile_text, "source=\"M1\"", "source=\"a blog\""), false);
  CHECK(unkeyed.message.find("names no key of <sources>") != std::string::npos);
  const auto twice = error_of("twice.xml", replaced(profile_text, "<source key=\"M1\"", "<source key=\"S26\""), false);
  CHECK(twice.message == "key 'S26' is defined twice");
  // Every attribute named *source is checked, an assumption said as one passes, and a key no citation could match
  // is refused where it is defined.
  const auto nic =
      error_of("nic.xml", replaced(profile_text, "nic_source=\"assumption: 0.1", "nic_source=\"N99: 0.1"), false);
  CHECK(nic.field == "instance_types/instance/@nic_source");
  CHECK(nic.message == "source 'N99' is not a key of <sources> in this file");
  const auto shape =
      error_of("shape.xml", replaced(profile_text, "<source key=\"M1\"", "<source key=\"memory\""), false);
  CHECK(shape.field == "sources/source/@key");
  CHECK(shape.message.find("key 'memory': expected capitals") == 0);
  // A source's date: a year first, or when a page that gives none was read; "current" or none at all is refused.
  for (const std::string date : {"current", "n.d.", "SimGrid 3.32", "26-11-29", "2024-", "2024-99-99", "read 2026", "2024-26"}) {
    CAPTURE(date);
    const auto undated = error_of("undated.xml", replaced(profile_text, "torchvision 0.14.1\" date=\"2026-11\"",
                                                          "torchvision 0.14.1\" date=\"" + date + "\""), false);
    CHECK(undated.field == "sources/source/@date");
    CHECK(undated.message.find("'" + date + "': expected a date beginning with its year") == 0);
  }
  const auto no_date = error_of("no_date.xml", replaced(profile_text, "torchvision 0.14.1\" date=\"2026-11\"",
                                                        "torchvision 0.14.1\""), false);
  CHECK(no_date.field == "sources/source/@date");
  std::filesystem::copy_file(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_prices.xml", dir.path("test_prices.xml"));
  for (const std::string date : {"read 2026-11-29", "2019-2021", "2023 (archived)", "2020-12-01", "2023-11/12", "2025-01 to 2026-04"}) {
    CAPTURE(date);
    std::ofstream(dir.path("dated.xml")) << replaced(profile_text, "torchvision 0.14.1\" date=\"2026-11\"",
                                                     "torchvision 0.14.1\" date=\"" + date + "\"");
    CHECK_NOTHROW(load_cloud_profile(dir.path("dated.xml")));
  }
  const auto price_source = prices_text.find("source=\"");
  REQUIRE(price_source != std::string::npos);
  std::string bad_prices = prices_text;
  bad_prices.insert(price_source + 8, "Q77, ");
  const auto in_prices = error_of("prices.xml", bad_prices, true);
  CHECK(in_prices.message == "source 'Q77' is not a key of <sources> in this file");
}
