// Spreads on constants (spread.hpp) and replicates of a run (replicates.hpp): parsing with clear errors, draws
// that hit the stated percentiles, and the CLI's --replicates end to end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <tuple>

#include "app/replicates.hpp"
#include "inputs/cloud_profile.hpp"
#include "inputs/profile_history.hpp"
#include "inputs/replicate_experiment.hpp"
#include "inputs/spread.hpp"
#include "results/replicate_bands.hpp"
#include "run_cli.hpp"
#include "sim_fixture.hpp"
#include "temp_dir.hpp"
#include "util/input_error.hpp"
#include "util/read_text.hpp"

using namespace p2psim;

namespace {
const std::string kProfile = std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml";

// The test profile with `from` replaced by `to` (once), written into `dir`.
std::string profile_with(const TempDir& dir, const std::string& from, const std::string& to) {
  std::string text = fixture::test_profile_text();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const std::string path = dir.path("profile.xml");
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& profile, const std::string& as_of = "") {
  try {
    load_cloud_profile(profile, {}, as_of);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("replicates: a band prints its three values with the decimals of four digits of its median, in scientific notation under a thousandth") {
  CHECK(band_text({0.17701, 0.17994, 0.18012}, 4) == "0.1770/0.1799/0.1801");  // not 0.177/0.18/0.18
  CHECK(band_text({517.4, 979.04, 1280.6}, 3) == "517/979/1281");
  CHECK(band_text({0.0012, 0.00125, 0.0013}, 4) == "0.001200/0.001250/0.001300");  // a thousandth: still decimals
  CHECK(band_text({0.000061234, 0.000071234, 0.00008}, 4) == "6.123e-05/7.123e-05/8.000e-05");
  CHECK(band_text({0, 0, 0}, 4) == "0.000/0.000/0.000");  // nothing spent: no log of zero
}

TEST_CASE("spreads: a band's draws have its p10, median and p90, an sd's lognormal has its mean") {
  Spread band;
  band.nominal = 10, band.min = 0, band.max = 1e9;
  band.kind = Spread::Kind::Band, band.p10 = 6, band.p90 = 20;  // asymmetric: each side its own width
  CHECK(band.at(-1.2815515655446004) == doctest::Approx(6).epsilon(1e-12));
  CHECK(band.at(0) == doctest::Approx(10).epsilon(1e-12));
  CHECK(band.at(1.2815515655446004) == doctest::Approx(20).epsilon(1e-12));
  Spread sd;
  sd.nominal = 100, sd.min = 0, sd.max = 1e9, sd.sd = 30;
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int r = 0; r < n; ++r) {
    const double v = sd.draw(7, r);
    sum += v, sum2 += v * v;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK(mean == doctest::Approx(100).epsilon(0.01));
  CHECK(std::sqrt(var) == doctest::Approx(30).epsilon(0.03));
  Spread clamped = band;
  clamped.max = 15;  // a draw never leaves the field's range
  CHECK(clamped.at(3) == 15);
  CHECK(sd.draw(7, 3) == sd.draw(7, 3));  // deterministic
  CHECK(quantile({3, 1, 2, 4}, 0.5) == doctest::Approx(2.5));
  CHECK(quantile({1, 2, 3, 4, 5}, 0.1) == doctest::Approx(1.4));
}

TEST_CASE("spreads: the profile's are read with the attribute they belong to, an override drops its value's") {
  TempDir dir;
  const auto path = profile_with(dir, R"(stream_bandwidth_bps="87500000")",
                                 R"(stream_bandwidth_bps="87500000" stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="99000000")");
  const auto p = load_cloud_profile(path);
  REQUIRE(p.spreads.size() == 1);
  CHECK(p.spreads[0].select == "object_storage[1]/@stream_bandwidth_bps");
  CHECK(p.spreads[0].p10 == 8e7);
  CHECK(p.spreads[0].p90 == 9.9e7);
  // A replicate's draw goes back in as an override of that very attribute.
  const ProfileOverride drawn{p.spreads[0].select, "91000000", "x.xml", 1};
  const auto replicate = load_cloud_profile(path, {drawn});
  CHECK(replicate.storage.stream_bandwidth_bps == 9.1e7);
  CHECK(replicate.spreads.empty());  // the override's value has no spread of the profile's
}

TEST_CASE("spreads: a constant drawn with another takes its deviate, alone once that one is overridden") {
  TempDir dir;
  // A stream read off one measured request less the first byte: a first byte at its p90 leaves the stream at its p90.
  const auto path = profile_with(
      dir, R"(get_first_byte_median_s="0.15")",
      R"(get_first_byte_median_s="0.15" get_first_byte_median_s_p10="0.1" get_first_byte_median_s_p90="0.2")"
      R"( stream_bandwidth_bps_drawn_with="get_first_byte_median_s")");
  const std::string with_spread = read_text(path);
  std::ofstream(path) << std::regex_replace(with_spread, std::regex(R"(stream_bandwidth_bps="87500000")"),
                                            R"(stream_bandwidth_bps="87500000" stream_bandwidth_bps_p10="80000000" )"
                                            R"(stream_bandwidth_bps_p90="99000000")");
  const auto p = load_cloud_profile(path);
  REQUIRE(p.spreads.size() == 2);
  const auto& first_byte = p.spreads[0].field.find("first_byte") != std::string::npos ? p.spreads[0] : p.spreads[1];
  const auto& stream = &first_byte == &p.spreads[0] ? p.spreads[1] : p.spreads[0];
  CHECK(stream.drawn_with == first_byte.select);
  int above = 0;
  for (int r = 0; r < 200; ++r) {
    // The same deviate: each at the same quantile of its own band (both lognormal sides at their nominal values).
    const double z_first_byte = std::log(first_byte.draw(7, r) / 0.15), z_stream = std::log(stream.draw(7, r) / 8.75e7);
    CHECK((z_first_byte > 0) == (z_stream > 0));
    const double zf = z_first_byte / (z_first_byte > 0 ? std::log(0.2 / 0.15) : -std::log(0.1 / 0.15));
    const double zs = z_stream / (z_stream > 0 ? std::log(9.9e7 / 8.75e7) : -std::log(8e7 / 8.75e7));
    CHECK(zf == doctest::Approx(zs).epsilon(1e-9));
    above += z_stream > 0;
  }
  CHECK(above > 70);  // not one side only: about half above the median
  CHECK(above < 130);
  // Overridden (as a replicate's draw is), the first byte has no spread, and the stream draws alone.
  const auto fixed = load_cloud_profile(path, {{first_byte.select, "0.12", "x.xml", 1}});
  REQUIRE(fixed.spreads.size() == 1);
  CHECK(fixed.spreads[0].drawn_with.empty());
  // Each drawn with the other would draw apart after all: refused, as a chain would be.
  const std::string tied = read_text(path);  // read before the stream below truncates the file
  std::ofstream(path) << std::regex_replace(tied, std::regex(R"(get_first_byte_median_s_p90="0.2")"),
                                            R"(get_first_byte_median_s_p90="0.2" )"
                                            R"(get_first_byte_median_s_drawn_with="stream_bandwidth_bps")");
  const std::string loop = error_of(path);
  CHECK_MESSAGE(loop.find("is itself drawn with another: draw both with the one that draws alone") != std::string::npos, loop);
}

TEST_CASE("spreads: bad ones are refused with file, line and field") {
  TempDir dir;
  const std::string base = R"(stream_bandwidth_bps="87500000")";
  auto check = [&](const std::string& to, const std::string& field, const std::string& what) {
    const std::string e = error_of(profile_with(dir, base, to));
    CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
    CHECK_MESSAGE(e.find(field) != std::string::npos, e);
    CHECK_MESSAGE(e.find(what) != std::string::npos, e);
  };
  check(base + R"( stream_bandwidth_bps_sd="-1")", "stream_bandwidth_bps_sd", "expected a number in");
  check(base + R"( stream_bandwidth_bps_p10="90000000" stream_bandwidth_bps_p90="99000000")",
        "stream_bandwidth_bps_p10", "must not exceed the value");
  check(base + R"( stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="70000000")",
        "stream_bandwidth_bps_p90", "must not be below the value");
  check(base + R"( stream_bandwidth_bps_p10="80000000")", "stream_bandwidth_bps_p90", "needs both");
  check(base + R"( stream_bandwidth_bps_sd="1" stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="90000000")",
        "stream_bandwidth_bps_sd", "not both");
  // Drawn with nothing, with itself, or with a constant without a spread.
  check(base + R"( stream_bandwidth_bps_drawn_with="get_first_byte_median_s")", "stream_bandwidth_bps_drawn_with",
        "stream_bandwidth_bps has none");
  check(base + R"( stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="99000000" )"
               R"(stream_bandwidth_bps_drawn_with="get_first_byte_median_s")",
        "stream_bandwidth_bps_drawn_with", "'get_first_byte_median_s' is no other attribute of <object_storage> with a spread");
  check(base + R"( stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="99000000" )"
               R"(stream_bandwidth_bps_drawn_with="stream_bandwidth_bps")",
        "stream_bandwidth_bps_drawn_with", "is no other attribute");
  // Beside a text attribute, or in a file that takes none (an experiment), a spread is an error too.
  const std::string e = error_of(profile_with(dir, R"(name="test_profile")", R"(name="test_profile" name_sd="1")"));
  CHECK(e.find("name_sd") != std::string::npos);
}

TEST_CASE("profile: a function network's token bucket takes its sustained rate, its size and its refill, or none") {
  TempDir dir;
  // The test profile's bucket never runs dry (its rate above any function's); here it is replaced.
  const std::string base = R"(network_sustained_bps="1000000000000" network_burst_bytes="0" network_refill_bps="1000000000000")";
  const auto all = load_cloud_profile(profile_with(
      dir, base, R"(network_sustained_bps="77500000" network_burst_bytes="292000000" network_refill_bps="40000000")"));
  CHECK(all.functions.network_sustained_bps == 7.75e7);
  CHECK(all.functions.network_burst_bytes == 2.92e8);
  CHECK(all.functions.network_refill_bps == 4e7);
  const auto rates = all.functions.storage_rates(3008, {all.functions.storage_client_bps_per_vcpu, 1});
  CHECK(rates.sustained_bps == 7.75e7);
  CHECK(rates.burst_bytes == 2.92e8);
  CHECK(rates.refill_bps == 4e7);
  // The quota's attribute stays: without a bucket, "default" has nothing to scale and is accepted as it is.
  CHECK(load_cloud_profile(profile_with(dir, base, "")).functions.network_sustained_bps == 0);  // none: no bucket
  for (const auto& [given, missing] :
       {std::pair{R"(network_sustained_bps="77500000" network_refill_bps="40000000")", "network_burst_bytes"},
        std::pair{R"(network_burst_bytes="292000000" network_refill_bps="40000000")", "network_sustained_bps"},
        std::pair{R"(network_sustained_bps="77500000" network_burst_bytes="292000000")", "network_refill_bps"}}) {
    const std::string e = error_of(profile_with(dir, base, given));
    CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
    CHECK_MESSAGE(e.find(missing) != std::string::npos, e);
  }
  const std::string e =
      error_of(profile_with(dir, base, R"(network_sustained_bps="0" network_burst_bytes="1" network_refill_bps="1")"));
  CHECK_MESSAGE(e.find("network_sustained_bps") != std::string::npos, e);
  // An idle bucket refilling faster than it sustains is refused.
  const std::string fast = error_of(profile_with(
      dir, base, R"(network_sustained_bps="77500000" network_burst_bytes="292000000" network_refill_bps="80000000")"));
  CHECK_MESSAGE(fast.find("function_service/@network_refill_bps': must not exceed network_sustained_bps") !=
                    std::string::npos, fast);
}

TEST_CASE("profile: a LIST's page holds at least one key, a listed key takes no negative time, a first byte takes time") {
  TempDir dir;
  const std::string list = R"(list_per_key_s="0.001" list_max_keys="1000")";
  for (const auto& [from, to, field] :
       {std::tuple{list, std::string(R"(list_per_key_s="0.001" list_max_keys="0")"), "list_max_keys"},
        std::tuple{list, std::string(R"(list_per_key_s="-0.001" list_max_keys="1000")"), "list_per_key_s"},
        std::tuple{std::string(R"(get_first_byte_median_s="0.15")"), std::string(R"(get_first_byte_median_s="0")"),
                   "get_first_byte_median_s"}}) {
    CAPTURE(to);
    const std::string e = error_of(profile_with(dir, from, to));
    CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
    CHECK_MESSAGE(e.find(field) != std::string::npos, e);
  }
}

TEST_CASE("profile: a fan-out's interval cap under its first interval is refused at its line") {
  TempDir dir;
  const std::string e = error_of(profile_with(dir, R"(parallel_max_interval_s="0.2")", R"(parallel_max_interval_s="0.1")"));
  CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
  CHECK_MESSAGE(e.find("parallel_max_interval_s") != std::string::npos, e);
  CHECK_MESSAGE(e.find("[0.2,") != std::string::npos, e);  // at least the first interval
}

TEST_CASE("profile: a storage client costs what the measured loop did, plus the difference here over the speed") {
  // By hand: the measured loop moves 125 MB/s a vCPU (8 ns a byte). Here get_object costs 1.3 ns a byte less than
  // the md5 loop and the transfer manager 0.2 ns less; on a CPU at half this one's speed, 2.6 and 0.4 ns less.
  TempDir dir;
  auto fs = load_cloud_profile(kProfile).functions;
  fs.storage_client_bps_per_vcpu = 1.25e8;
  fs.storage_client_measured_with = "get_object_md5";
  CHECK(fs.client_bps_per_vcpu("get_object_md5", 0.5) == doctest::Approx(1.25e8).epsilon(1e-12));
  CHECK(fs.client_bps_per_vcpu("get_object", 0.5) == doctest::Approx(1 / 5.4e-9).epsilon(1e-12));
  CHECK(fs.client_bps_per_vcpu("transfer_manager", 0.5) == doctest::Approx(1 / 7.6e-9).epsilon(1e-12));
  CHECK(fs.client_bps_per_vcpu("transfer_manager", 1.0) == doctest::Approx(1 / 7.8e-9).epsilon(1e-12));
  // A function of 442 MB (a quarter vCPU): both its streams and one stream at its CPU share of that rate.
  const auto rates = fs.storage_rates(442, fs.client_rate("get_object", 0.5));
  CHECK(rates.all_streams_bps == doctest::Approx(442 / 1769.0 / 5.4e-9).epsilon(1e-12));
  CHECK(rates.stream_bps == doctest::Approx(442 / 1769.0 / 5.4e-9).epsilon(1e-12));
  CHECK_THROWS_AS(fs.client_bps_per_vcpu("download", 1.0), std::invalid_argument);

  // Bad profiles: file, line and field.
  const std::string clients = R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="1"/>)";
  for (const auto& [from, to, field, what] : {
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="0.1e-9" max_cores="1"/>)"),
                      "storage_client/@cpu_s_per_byte_on_reference_cpu", "would cost no CPU per byte"},
           std::tuple{clients, std::string(R"(<storage_client name="get_object" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="1"/>)"),
                      "storage_client/@name", "'get_object' is given twice"},
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="0.5"/>)"),
                      "storage_client/@max_cores", "expected a number in"},
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="many"/>)"),
                      "storage_client/@max_cores", "expected a number"},
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9"/>)"),
                      "max_cores", "required"},
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="all" max_cores_p10="1" max_cores_p90="2"/>)"),
                      "storage_client/@max_cores_", "takes no spread"},
           std::tuple{clients, std::string(""), "function_service/storage_client", "transfer_manager"},
           std::tuple{std::string(R"(storage_client_measured_with="get_object")"),
                      std::string(R"(storage_client_measured_with="lithops")"), "storage_client_measured_with",
                      "'lithops' is no <storage_client name>"},
           std::tuple{clients, std::string(R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="-1e-9" max_cores="1"/>)"),
                      "cpu_s_per_byte_on_reference_cpu", "expected a number in"}}) {
    CAPTURE(to);
    const std::string e = error_of(profile_with(dir, from, to));
    CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
    CHECK_MESSAGE(e.find(field) != std::string::npos, e);
    CHECK_MESSAGE(e.find(what) != std::string::npos, e);
  }
}

TEST_CASE("profile: a storage client reaches at most its max cores of a CPU share, and an instance's client runs on its own CPU") {
  // By hand: the measured loop moves 125 MB/s a vCPU (8 ns a byte); the transfer manager costs 0.2 ns less here, so
  // 7.8 ns a byte of a vCPU at this CPU's speed. A function of 3,538 MB has two vCPUs, on a 1 GB/s network.
  auto fs = load_cloud_profile(kProfile).functions;
  fs.storage_client_bps_per_vcpu = 1.25e8;
  fs.storage_client_measured_with = "get_object_md5";
  fs.network = {{128, 1e9, 1e9}};
  REQUIRE(fs.vcpus(3538) == doctest::Approx(2.0));
  const auto one_core = fs.client_rate("transfer_manager", 1.0);  // the test profile's: max_cores="1"
  CHECK(one_core.max_cores == 1);
  CHECK(fs.storage_rates(3538, one_core).all_streams_bps == doctest::Approx(1 / 7.8e-9).epsilon(1e-12));
  CHECK(fs.storage_rates(3538, one_core).stream_bps == doctest::Approx(1 / 7.8e-9).epsilon(1e-12));
  // A client with no bound of its own uses both vCPUs; below one vCPU both move at the share.
  fs.storage_client_max_cores["transfer_manager"] = std::numeric_limits<double>::infinity();
  const auto all_cores = fs.client_rate("transfer_manager", 1.0);
  CHECK(fs.storage_rates(3538, all_cores).all_streams_bps == doctest::Approx(2 / 7.8e-9).epsilon(1e-12));
  CHECK(fs.storage_rates(442, all_cores).all_streams_bps == doctest::Approx(442 / 1769.0 / 7.8e-9).epsilon(1e-12));
  CHECK(fs.storage_rates(442, one_core).all_streams_bps == doctest::Approx(442 / 1769.0 / 7.8e-9).epsilon(1e-12));
  // An instance's client: the loop's cost here over the vCPU's speed (1.6 ns / 0.5), no Lambda rate in it.
  const auto instance = load_cloud_profile(kProfile).functions.instance_client_rate("transfer_manager", 0.5);
  CHECK(instance.bps_per_vcpu == doctest::Approx(0.5 / 1.6e-9).epsilon(1e-12));
  CHECK(instance.bps_on(4) == doctest::Approx(0.5 / 1.6e-9).epsilon(1e-12));
  CHECK_THROWS_AS(fs.instance_client_rate("download", 1.0), std::invalid_argument);

  // "all" in a profile: no bound.
  TempDir dir;
  const auto unbounded = load_cloud_profile(profile_with(
      dir, R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="1"/>)",
      R"(<storage_client name="transfer_manager" cpu_s_per_byte_on_reference_cpu="1.6e-9" max_cores="all"/>)"));
  CHECK(std::isinf(unbounded.functions.storage_client_max_cores.at("transfer_manager")));
}

TEST_CASE("profile history: a date takes each dated constant's value measured nearest to it, ties the later") {
  CHECK(measurement_day("2021-09").has_value());
  CHECK(measurement_day("2024-04-18").has_value());
  CHECK(*measurement_day("2021-09-01") < *measurement_day("2021-09"));  // a month alone is its middle
  for (const char* not_a_date : {"2021", "2021-13", "not stated (paper of 2021-06)", "2021-9", ""})
    CHECK_FALSE(measurement_day(not_a_date).has_value());

  TempDir dir;
  // The profile's own 87.5 MB/s (with a spread) measured 2024-01, 50 MB/s measured 2022-01.
  const std::string path = profile_with(dir, "</cloud>", R"(<history>
    <value select="object_storage/@stream_bandwidth_bps" measured="2024-01"/>
    <value select="object_storage/@stream_bandwidth_bps" measured="2022-01" value="50000000"/>
  </history></cloud>)");
  {
    std::string text = read_text(path);  // a spread on the dated attribute, which an earlier value drops
    text.replace(text.find(R"(stream_bandwidth_bps="87500000")"), 32,
                 R"(stream_bandwidth_bps="87500000" stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="90000000")");
    std::ofstream(path) << text;
  }
  const auto spread_of_stream = [](const CloudProfile& p) {
    return std::count_if(p.spreads.begin(), p.spreads.end(),
                         [](const Spread& s) { return s.field.find("stream_bandwidth_bps") != std::string::npos; });
  };
  const auto as_written = load_cloud_profile(path);
  CHECK(as_written.storage.stream_bandwidth_bps == 8.75e7);
  CHECK(spread_of_stream(as_written) == 1);
  const auto then = load_cloud_profile(path, {}, "2021-11");  // before both: the earlier is nearer
  CHECK(then.storage.stream_bandwidth_bps == 5e7);
  CHECK(spread_of_stream(then) == 0);
  CHECK(load_cloud_profile(path, {}, "2022-11").storage.stream_bandwidth_bps == 5e7);  // 10 months against 14
  CHECK(load_cloud_profile(path, {}, "2023-03").storage.stream_bandwidth_bps == 8.75e7);  // 14 against 10
  CHECK(load_cloud_profile(path, {}, "2023-01").storage.stream_bandwidth_bps == 8.75e7);  // halfway, a tie: the later
  CHECK(load_cloud_profile(path, {}, "2023-01-14").storage.stream_bandwidth_bps == 5e7);  // a day nearer the earlier
  CHECK(load_cloud_profile(path, {}, "2026-12").storage.stream_bandwidth_bps == 8.75e7);
  // An experiment's override is applied after the history: it wins.
  const ProfileOverride mine{"object_storage/@stream_bandwidth_bps", "6e7", "experiment.xml", 3};
  CHECK(load_cloud_profile(path, {mine}, "2021-11").storage.stream_bandwidth_bps == 6e7);

  // Bad histories: the profile's line and field, whatever the date.
  const std::string own = R"(<value select="object_storage/@stream_bandwidth_bps" measured="2024-01"/>)";
  for (const auto& [to, field, what] : {
           std::tuple{std::string(R"(<value select="object_storage/@stream_bandwidth_bps" measured="Jan 2024"/>)"),
                      "history/value/@measured", "expected YYYY-MM or YYYY-MM-DD, got 'Jan 2024'"},
           std::tuple{std::string(R"(<value select="object_storage/@stream_bandwidth_bps" measured="2024-01" value="1"/>)"),
                      "history/value/@value", "exactly one <value> without a value must date the profile's own (found 0)"},
           std::tuple{own + own, "history/value/@measured", "has a second value measured 2024-01"},
           std::tuple{own + R"(<value select="object_storage/@stream_bandwidth_bps" measured="2023-01" source="x"/>)",
                      "history/value/@value", "(found 2)"},
           std::tuple{std::string(R"(<value select="object_storage/@stream_bandwidth" measured="2024-01"/>)"),
                      "history/value/@select", "selects 0 attributes"},
           std::tuple{own + R"(<value select="object_storage/@stream_bandwidth_bps" measured="2024-01" unit="MB"/>)",
                      "unit", "unknown attribute"}}) {
    CAPTURE(to);
    std::string text = read_text(path);
    text.replace(text.find(own), own.size(), to);
    std::ofstream(path) << text;
    const std::string e = error_of(path);
    CHECK_MESSAGE(e.find("profile.xml:") != std::string::npos, e);
    CHECK_MESSAGE(e.find(field) != std::string::npos, e);
    CHECK_MESSAGE(e.find(what) != std::string::npos, e);
    text.replace(text.find(to), to.size(), own);
    std::ofstream(path) << text;
  }
  // An earlier value that is no valid value is blamed on its own line and field, with a date that applies it or
  // without one.
  std::string text = read_text(path);
  text.replace(text.find(R"(value="50000000")"), 16, R"(value="-5")");
  std::ofstream(path) << text;
  const std::string line = std::to_string(std::count(text.begin(), text.begin() + text.find(R"(value="-5")"), '\n') + 1);
  for (const std::string as_of : {"2021-11", "2026-12", ""}) {
    CAPTURE(as_of);
    const std::string e = error_of(path, as_of);
    CHECK_MESSAGE(e.find("profile.xml:" + line + ": field 'history/value/@value'") != std::string::npos, e);
  }
}

TEST_CASE("run --replicates: p10/p50/p90 per system, the same bytes twice, and a bad count is exit 2") {
  TempDir dir;
  const std::string experiment = std::string(P2PSIM_SOURCE_DIR) + "/experiments/squeezenet_mnist.xml";
  for (const char* out : {"a", "b"})
    REQUIRE(run_cli("run " + experiment + " -q --replicates 6 --out " + dir.path(out)).exit_code == 0);
  CHECK(read_text(dir.path("a/result.csv")) == read_text(dir.path("b/result.csv")));
  CHECK(read_text(dir.path("a/result.json")) == read_text(dir.path("b/result.json")));
  const auto j = nlohmann::json::parse(read_text(dir.path("a/result.json")));
  CHECK(j["replicates"]["n"] == 6);
  for (const auto& [name, system] : j["systems"].items()) {
    const auto& t = system["replicates"]["total_s"];
    CHECK(system["replicates"]["finished"] == 6);
    CHECK(t["p10"].get<double>() <= t["p50"].get<double>());
    CHECK(t["p50"].get<double>() <= t["p90"].get<double>());
    CHECK(t["p10"].get<double>() < t["p90"].get<double>());  // the shipped profile's spreads move the result
  }
  const std::string csv = read_text(dir.path("a/result.csv"));
  CHECK(csv.find("total_s_p10,total_s_p50,total_s_p90,total_usd_p10") != std::string::npos);
  // The table gives a band's three numbers the same decimals, enough for four digits of its median (it printed
  // 0.177/0.18/0.18 for 0.1770/0.1799/0.1801).
  const auto table = run_cli("run " + experiment + " --replicates 6").output;
  const std::string label = "cost (USD) p10/p50/p90 of 6 draws";
  const auto line_at = table.find(label);
  REQUIRE(line_at != std::string::npos);
  CHECK(table.find("total (s) p10/p50/p90 of 6 draws") != std::string::npos);
  const auto cells_at = line_at + label.size();
  std::istringstream cells(table.substr(cells_at, table.find('\n', line_at) - cells_at));
  int bands = 0;
  for (std::string cell; cells >> cell; ++bands) {
    CAPTURE(cell);
    std::vector<std::string> parts;
    for (std::istringstream in(cell); parts.size() < 4;) {
      std::string part;
      if (!std::getline(in, part, '/')) break;
      parts.push_back(part);
    }
    REQUIRE(parts.size() == 3);
    // Digits after the point, of the mantissa where the number has an exponent (under a thousandth).
    const auto decimals = [](const std::string& v) { return v.substr(0, v.find('e')).size() - v.find('.') - 1; };
    CHECK(parts[0].find('.') != std::string::npos);
    CHECK(decimals(parts[0]) == decimals(parts[1]));
    CHECK(decimals(parts[1]) == decimals(parts[2]));
    const double p50 = std::stod(parts[1]);
    if (parts[1].find('e') != std::string::npos)
      CHECK(decimals(parts[1]) == 3);
    else
      CHECK(p50 >= std::pow(10.0, 3.0 - static_cast<double>(decimals(parts[1]))) * 0.9999);  // four digits at least
  }
  CHECK(bands == static_cast<int>(j["systems"].size()));
  for (const char* bad : {"0", "1001", "x"}) {
    const auto r = run_cli("run " + experiment + " -q --replicates " + std::string(bad));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("--replicates") != std::string::npos);
  }
}

TEST_CASE("run --sensitivity: the main job says what each system rests on, in the table's output and sensitivity.csv") {
  TempDir dir;
  const std::string experiment = std::string(P2PSIM_SOURCE_DIR) + "/experiments/vgg11_cifar.xml";
  const auto r = run_cli("run " + experiment + " --sensitivity --out " + dir.path("out"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("what each prediction rests on (each group of the profile's constants 10 % slower alone") !=
        std::string::npos);
  const std::string csv = read_text(dir.path("out/sensitivity.csv"));
  CHECK(csv.rfind("group,label,system,slowdown,feasible,time_change_percent,cost_change_percent\n", 0) == 0);
  // The paper's design used these (records/mechanisms.hpp), and no database or network between instances.
  for (const char* group : {"instance_compute,", "function_compute,", "function_cold_start,", "workflow,",
                            "object_storage_first_byte,", "object_storage_from_ec2,", "object_storage_from_functions,",
                            "broker,"})
    CHECK(csv.find(std::string("\n") + group) != std::string::npos);
  CHECK(csv.find("\ndatabase,") == std::string::npos);
  CHECK(csv.find("\nec2_network,") == std::string::npos);
  // 2 systems x 8 groups, and the header.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 8);
  // Without the option, no such file.
  REQUIRE(run_cli("run " + experiment + " -q --out " + dir.path("plain")).exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path("plain/sensitivity.csv")));
}
