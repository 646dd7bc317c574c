// What a prediction rests on (app/sensitivity.hpp): a scaling override, and each mechanism's constants made slower
// alone against what the design's physics allows.
#include <doctest/doctest.h>

#include <fstream>

#include "app/run_experiment.hpp"
#include "app/sensitivity.hpp"
#include "sim_fixture.hpp"

using namespace p2psim;

TEST_CASE("a scaling override multiplies every attribute it matches and its spread, and passes over none") {
  TempDir dir;
  const std::string profile_path = dir.path("profile.xml");
  std::string text = fixture::test_profile_text();
  const std::string from = R"(stream_bandwidth_bps="87500000")";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(),
               R"(stream_bandwidth_bps="87500000" stream_bandwidth_bps_p10="80000000" stream_bandwidth_bps_p90="99000000")");
  std::ofstream(profile_path) << text;
  const auto nominal = load_cloud_profile(profile_path);
  ProfileOverride slower_stream{"object_storage/@stream_bandwidth_bps", "", "x.xml", 1};
  slower_stream.scale = 1 / 1.1;
  ProfileOverride half_cpus{"instance_types/instance/@cpu_speed_factor", "", "x.xml", 2};  // the test profile's
  half_cpus.scale = 0.5;
  ProfileOverride nothing{"no_such_element/@at_all", "", "x.xml", 3};
  nothing.scale = 2;
  const auto p = load_cloud_profile(profile_path, {slower_stream, half_cpus, nothing});
  CHECK(p.storage.stream_bandwidth_bps == doctest::Approx(8.75e7 / 1.1).epsilon(1e-12));
  REQUIRE(p.spreads.size() == 1);  // the spread moved with its value, so the value stays inside it
  CHECK(p.spreads[0].p10 == doctest::Approx(8e7 / 1.1).epsilon(1e-12));
  CHECK(p.spreads[0].p90 == doctest::Approx(9.9e7 / 1.1).epsilon(1e-12));
  REQUIRE(p.instance_types.size() == nominal.instance_types.size());
  REQUIRE(p.instance_types.size() > 1);
  for (const auto& [name, type] : nominal.instance_types) {
    CAPTURE(name);
    CHECK(p.instance_types.at(name).cpu_speed_factor == doctest::Approx(type.cpu_speed_factor / 2).epsilon(1e-12));
  }
  // Another factor on the same attribute is another profile, not the one parsed before (profiles are memoised by
  // their overrides).
  CHECK(load_cloud_profile(profile_path, {half_cpus}).instance_types.at("t2.large").cpu_speed_factor ==
        doctest::Approx(nominal.instance_types.at("t2.large").cpu_speed_factor / 2).epsilon(1e-12));
  half_cpus.scale = 0.25;
  const auto quarter = load_cloud_profile(profile_path, {half_cpus});
  CHECK(quarter.instance_types.at("t2.large").cpu_speed_factor ==
        doctest::Approx(nominal.instance_types.at("t2.large").cpu_speed_factor / 4).epsilon(1e-12));
}

TEST_CASE("run --sensitivity: a mechanism a system does not use moves it not at all, its own CPU by at most the "
          "slowdown, and the same run gives the same rows") {
  TempDir dir;
  app::RunOptions o;
  o.experiment_path = fixture::write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="2"/>
    <peers count="2" instance_type="t2.large"/>)");
  o.sensitivity = true;
  const auto run = app::run_experiment(o);
  REQUIRE(run->result.sensitivity);
  const auto& rows = run->result.sensitivity->rows;
  CHECK(run->result.sensitivity->slowdown == app::kSensitivitySlowdown);
  auto row = [&](const std::string& group, const std::string& system) -> const SensitivityRow& {
    for (const auto& r : rows)
      if (r.group == group && r.system == system) return r;
    FAIL("no row for " << group << " and " << system);
    return rows.front();
  };
  // The paper's two systems used no database: its group is not run. The instance peers' small gradients go inline
  // through the broker's instance, across instances' NICs: that group is.
  for (const auto& r : rows) CHECK(r.group != "database");
  CHECK(row("ec2_network", "instance").feasible);
  // The instance baseline runs no function and no workflow: slower functions change nothing of it, to the bit.
  for (const char* group : {"function_compute", "function_cold_start", "workflow", "object_storage_from_functions"}) {
    CAPTURE(group);
    CHECK(row(group, "instance").feasible);
    CHECK(row(group, "instance").time_change_percent == 0);
    CHECK(row(group, "instance").cost_change_percent == 0);
  }
  // Its peers' CPUs 10 % slower: every CPU phase 10 % longer, and nothing else, so its time grows, by less than 10 %.
  // At least its training steps' share of 10 %: every peer trains on its own path, alike, and each step takes 10 %
  // longer.
  const auto& cpu = row("instance_compute", "instance");
  const SystemResult& instance = run->result.systems.front();
  REQUIRE(instance.name == "instance");
  const double steps_share = fixture::peer_phase_total(instance.run, 0, Phase::Compute) / instance.total_s;
  CHECK(steps_share > 0.01);
  CHECK(cpu.time_change_percent >= 10 * steps_share - 1e-6);
  CHECK(cpu.time_change_percent <= 10 + 1e-9);
  // The serverless system's functions bill their time: slower functions cost more.
  CHECK(row("function_compute", "serverless").cost_change_percent > 0);
  const auto again = app::run_experiment(o);
  REQUIRE(again->result.sensitivity);
  CHECK(sensitivity_csv(*again->result.sensitivity) == sensitivity_csv(*run->result.sensitivity));
}

TEST_CASE("run --sensitivity: a scalar run's CPU group slows its CPUs' scalar speeds") {
  TempDir dir;
  // The test profile with a scalar speed on t2.large, which a scalar workload's peers compute at.
  std::string text = fixture::test_profile_text();
  const std::string type = "<instance type=\"t2.large\"";
  text.insert(text.find(type) + type.size(), " cpu_scalar_speed_factor=\"0.5\"");
  std::ofstream(dir.path("profile.xml")) << text;
  std::ofstream(dir.path("scalar.xml"))
      << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << dir.path("profile.xml") << "\">"
      << fixture::kExactOverrides << "</profile>\n  <calibration files=\"" << fixture::kSource
      << "/tests/data/hand_calibration.csv\"/>\n"
      << R"(  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="2000" iterations="2"
            cpu_work="scalar"/>
  <peers count="2" instance_type="t2.large"/>
  <architectures run="instance"/>
</experiment>)";
  app::RunOptions o;
  o.experiment_path = dir.path("scalar.xml");
  o.sensitivity = true;
  const auto run = app::run_experiment(o);
  REQUIRE(run->result.sensitivity);
  const SystemResult& instance = run->result.systems.front();
  const double steps_share = fixture::peer_phase_total(instance.run, 0, Phase::Compute) / instance.total_s;
  CHECK(steps_share > 0.01);
  bool found = false;
  for (const auto& r : run->result.sensitivity->rows)
    if (r.group == "instance_compute" && r.system == "instance") {
      found = true;  // its steps 10 % longer: the scalar speed is among the group's constants
      CHECK(r.time_change_percent >= 10 * steps_share - 1e-6);
      CHECK(r.time_change_percent <= 10 + 1e-9);
    }
  CHECK(found);
}
