// Every CPU its own speed: speed factors from cited per-core benchmark scores, and training steps measured on
// the target itself used as measured.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <pugixml.hpp>

#include "sim_fixture.hpp"
#include "util/input_error.hpp"
#include "util/read_text.hpp"

using namespace p2psim;

namespace {
const std::string kShippedProfile = fixture::kSource + "/platforms/aws_us_east_1.xml";

/// The factor and its p10, p90 on a derivation file's last line, "`name` F (p10 A, p90 B)".
std::array<double, 3> derived_factor(const std::string& kernel_file, const std::string& name) {
  const std::string text = read_text(fixture::kSource + "/calibration/kernels/" + kernel_file);
  const auto at = text.rfind(name + " ");
  REQUIRE(at != std::string::npos);
  std::array<double, 3> v{};
  REQUIRE(std::sscanf(text.c_str() + at + name.size(), " %lf (p10 %lf, p90 %lf)", &v[0], &v[1], &v[2]) == 3);
  return v;
}

}  // namespace

TEST_CASE("each instance type's speeds are its cited benchmark scores over the calibration CPU's, one a kind of work") {
  const auto profile = load_cloud_profile(kShippedProfile);
  pugi::xml_document doc;
  REQUIRE(doc.load_file(kShippedProfile.c_str()));
  const double reference = doc.child("cloud").child("cpu_reference").attribute("single_core_score").as_double();
  const double scalar_reference = doc.child("cloud").child("cpu_reference").attribute("scalar_score").as_double();
  REQUIRE(reference > 0);
  REQUIRE(scalar_reference > 0);
  int checked = 0;
  for (auto n : doc.child("cloud").child("instance_types").children("instance")) {
    const std::string type = n.attribute("type").value();
    CAPTURE(type);
    CHECK_FALSE(std::string(n.attribute("cpu_source").value()).empty());  // every score says where it is from
    const auto& t = profile.instance_types.at(type);
    CHECK(t.cpu_speed_factor == doctest::Approx(n.attribute("cpu_single_core_score").as_double() / reference));
    CHECK(t.cpu_scalar_speed_factor ==
          doctest::Approx(n.attribute("cpu_scalar_score").as_double() / scalar_reference));
    // Geekbench puts the Zen 5 part 1.36-1.57x further ahead of these Xeons than deflate does (sections 7 and 9 of
    // docs/research/cpu_speed_factors.md): every older CPU is closer on scalar work.
    CHECK(t.cpu_scalar_speed_factor > 1.3 * t.cpu_speed_factor);
    ++checked;
  }
  CHECK(checked >= 10);
  // Haswell (t2), Skylake (m5) and Cascade Lake (c5) are three different speeds, in that order.
  const double t2 = profile.instance_types.at("t2.large").cpu_speed_factor;
  const double m5 = profile.instance_types.at("m5.large").cpu_speed_factor;
  const double c5 = profile.instance_types.at("c5.large").cpu_speed_factor;
  CHECK(t2 < m5);
  CHECK(m5 < c5);
  const auto& f = profile.functions;
  // Lambda x86's two speeds, each its derivation's: the zip's (scalar work) and the GEMM's (vector work).
  const auto node = doc.child("cloud").child("function_service");
  const auto zip = derived_factor("lambda_x86_cpu_speed.txt", "cpu_scalar_speed_factor_x86");
  const auto gemm = derived_factor("lambda_x86_vector_speed.txt", "cpu_speed_factor_x86");
  CHECK(f.cpu_scalar_speed_factor_x86 == zip[0]);
  CHECK(node.attribute("cpu_scalar_speed_factor_x86_p10").as_double() == zip[1]);
  CHECK(node.attribute("cpu_scalar_speed_factor_x86_p90").as_double() == zip[2]);
  CHECK(f.cpu_speed_factor_x86 == gemm[0]);
  CHECK(node.attribute("cpu_speed_factor_x86_p10").as_double() == gemm[1]);
  CHECK(node.attribute("cpu_speed_factor_x86_p90").as_double() == gemm[2]);
  // Like every Intel type measured by one source (0.64-0.74 of their scalar factors, section 9 of
  // docs/research/cpu_speed_factors.md), Lambda's x86 vCPU is further behind the Zen 5 part on vector work.
  CHECK(f.cpu_speed_factor_x86 < f.cpu_scalar_speed_factor_x86);
  // arm64's vector factor is Graviton2's Geekbench score over the calibration CPU's, as every instance type's.
  CHECK(f.cpu_speed_factor_arm ==
        doctest::Approx(node.attribute("cpu_single_core_score_arm").as_double() / reference));
  CHECK(f.cpu_scalar_speed_factor_arm ==
        doctest::Approx(node.attribute("cpu_scalar_score_arm").as_double() / scalar_reference));
  // On scalar work Graviton2 runs about as fast as Lambda's x86 (gzip 0.50 against the zip's 0.45).
  CHECK(f.cpu_scalar_speed_factor_arm > f.cpu_scalar_speed_factor_x86);
}

TEST_CASE("a speed of each kind is given once: a factor or a score with its reference (an instance's scalar one may be absent)") {
  TempDir dir;
  const std::string text = fixture::test_profile_text();
  const std::string micro = "<instance type=\"t2.micro\"";
  const auto at = text.find(micro);
  REQUIRE(at != std::string::npos);
  // The test profile with `attributes` added to t2.micro (and its factor taken away when `without_factor`).
  auto micro_with = [&](const std::string& name, const std::string& attributes, bool without_factor = false) {
    std::string changed = text;
    if (without_factor) changed.erase(changed.find("cpu_speed_factor=\"1.0\"", at), std::string("cpu_speed_factor=\"1.0\"").size());
    changed.insert(at + micro.size(), " " + attributes);
    std::ofstream(dir.path(name)) << changed;
    return dir.path(name);
  };
  CHECK_THROWS_WITH_AS(load_cloud_profile(micro_with("both.xml", "cpu_single_core_score=\"1000\"")),
                       doctest::Contains("give exactly one of cpu_speed_factor and cpu_single_core_score"),
                       InputError);
  CHECK_THROWS_WITH_AS(load_cloud_profile(micro_with("score.xml", "cpu_single_core_score=\"1000\"", true)),
                       doctest::Contains("needs <cpu_reference single_core_score=...>"), InputError);
  CHECK_THROWS_WITH_AS(
      load_cloud_profile(micro_with("both_scalar.xml", "cpu_scalar_speed_factor=\"0.5\" cpu_scalar_score=\"20\"")),
      doctest::Contains("give at most one of cpu_scalar_speed_factor and cpu_scalar_score"), InputError);
  CHECK_THROWS_WITH_AS(load_cloud_profile(micro_with("scalar_score.xml", "cpu_scalar_score=\"20\"")),
                       doctest::Contains("a benchmark score needs <cpu_reference scalar_score=...>"), InputError);
  CHECK(load_cloud_profile(micro_with("scalar.xml", "cpu_scalar_speed_factor=\"0.5\"")).instance_types.at("t2.micro")
            .cpu_scalar_speed_factor == doctest::Approx(0.5));
  CHECK(load_cloud_profile(fixture::kSource + "/tests/data/test_profile.xml").instance_types.at("t2.micro")
            .cpu_scalar_speed_factor == 0);  // absent: no scalar speed, which only a scalar workload needs
  // A function's is required: its runtime import is scalar work whatever the workload.
  std::string no_function_scalar = text;
  const std::string function_scalar = "cpu_scalar_speed_factor_x86=\"1.0\"";
  REQUIRE(no_function_scalar.find(function_scalar) != std::string::npos);
  no_function_scalar.erase(no_function_scalar.find(function_scalar), function_scalar.size());
  std::ofstream(dir.path("no_function_scalar.xml")) << no_function_scalar;
  CHECK_THROWS_WITH_AS(load_cloud_profile(dir.path("no_function_scalar.xml")),
                       doctest::Contains("give exactly one of cpu_scalar_speed_factor_x86 and cpu_scalar_score_x86"),
                       InputError);
}

TEST_CASE("training steps measured on the target run as measured, whatever the target's speed factor") {
  TempDir dir;
  // Measured on an m5.large: 3 + 1e-4 b seconds on one thread, half that on two.
  std::ofstream(dir.path("m5.csv"))
      << "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds\n"
      << "train_step,mnist_cnn,10,1x28x28,1000,1,0,1199882,4799528,0,3.1\n"
      << "train_step,mnist_cnn,10,1x28x28,60000,1,0,1199882,4799528,0,9\n"
      << "train_step,mnist_cnn,10,1x28x28,1000,2,0,1199882,4799528,0,1.55\n"
      << "train_step,mnist_cnn,10,1x28x28,60000,2,0,1199882,4799528,0,4.5\n";
  auto write = [&](const std::string& name, bool own) {
    std::ofstream(dir.path(name))
        << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << fixture::kSource
        << "/tests/data/test_profile.xml\">" << fixture::kExactOverrides
        << "<override select=\"instance_types/instance[@type='m5.large']/@cpu_speed_factor\" value=\"0.5\"/>"
        << "</profile>\n  <calibration files=\"" << fixture::kSource << "/tests/data/hand_calibration.csv\">"
        << (own ? "<target instance_type=\"m5.large\" files=\"" + dir.path("m5.csv") + "\"/>" : "")
        << "</calibration>\n"
        << R"(  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1"
            iterations="1" compute_variability="none"/>
  <peers count="2" instance_type="m5.large"/>
  <architectures run="instance"/>
</experiment>)";
    return dir.path(name);
  };
  // One 30,000-sample minibatch per peer on 2 vCPUs.
  const auto own = fixture::scenario(write("own.xml", true));
  CHECK(own.peer_groups[0].steps.has_value());
  CHECK(own.wall_step_s(StepTarget::Peer, 30000) == doctest::Approx(0.5 * (3 + 1e-4 * 30000)));
  CHECK(fixture::peer_phase_total(fixture::simulate(own, "instance"), 0, Phase::Compute) ==
        doctest::Approx(3.0).epsilon(1e-6));
  // Without it: the calibration CPU's 0.6 (1 + 1e-4 b) on two threads, at half that CPU's speed.
  const auto scaled = fixture::scenario(write("scaled.xml", false));
  CHECK_FALSE(scaled.peer_groups[0].steps.has_value());
  CHECK(fixture::peer_phase_total(fixture::simulate(scaled, "instance"), 0, Phase::Compute) ==
        doctest::Approx(0.6 * (1 + 1e-4 * 30000) / 0.5).epsilon(1e-6));
}

TEST_CASE("peer groups: each group's steps are checked and timed on its own calibration and its own shard") {
  TempDir dir;
  // An m5.large measured between 1,000 and 15,000 samples (3 + 1e-4 b seconds on one thread, half on two): its
  // 15,000-sample shard is inside; the t2.large group's 45,000 is not, and need not be (the hand calibration
  // times it).
  std::ofstream(dir.path("m5.csv"))
      << "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds\n"
      << "train_step,mnist_cnn,10,1x28x28,1000,1,0,1199882,4799528,0,3.1\n"
      << "train_step,mnist_cnn,10,1x28x28,15000,1,0,1199882,4799528,0,4.5\n"
      << "train_step,mnist_cnn,10,1x28x28,1000,2,0,1199882,4799528,0,1.55\n"
      << "train_step,mnist_cnn,10,1x28x28,15000,2,0,1199882,4799528,0,2.25\n";
  std::ofstream(dir.path("groups.xml"))
      << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << fixture::kSource
      << "/tests/data/test_profile.xml\">" << fixture::kExactOverrides << "</profile>\n  <calibration files=\""
      << fixture::kSource << "/tests/data/hand_calibration.csv\"><target instance_type=\"m5.large\" files=\""
      << dir.path("m5.csv") << "\"/></calibration>\n"
      << R"(  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1"
            iterations="1" compute_variability="none"/>
  <peers>
    <group count="1" instance_type="t2.large" shard_samples="45000"/>
    <group count="1" instance_type="m5.large"/>
  </peers>
  <systems><system name="ring" strategy="ring_allreduce"/></systems>
</experiment>)";
  const auto s = fixture::scenario(dir.path("groups.xml"));
  CHECK_FALSE(s.peer_groups[0].steps.has_value());
  CHECK(s.peer_groups[1].steps.has_value());
  CHECK_FALSE(s.peer_extrapolation.batch);
  const auto r = fixture::simulate(s, "ring");
  CHECK(fixture::peer_phase_total(r, 0, Phase::Compute) == doctest::Approx(0.6 * (1 + 1e-4 * 45000)).epsilon(1e-6));
  CHECK(fixture::peer_phase_total(r, 1, Phase::Compute) == doctest::Approx(2.25).epsilon(1e-6));
}

TEST_CASE("a target calibration names one target, once") {
  TempDir dir;
  std::ofstream(dir.path("x.csv")) << read_text(fixture::kSource + "/tests/data/hand_calibration.csv");
  auto path = fixture::write_experiment(
      dir, R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1"/>
    <peers count="2" instance_type="m5.large"/>)");
  std::string text = read_text(path);
  const std::string cal = "/tests/data/hand_calibration.csv\"/>";
  const auto at = text.find(cal);
  REQUIRE(at != std::string::npos);
  text.replace(at, cal.size(), "/tests/data/hand_calibration.csv\"><target instance_type=\"m5.large\" function_arch=\"arm\" files=\"" +
                                   dir.path("x.csv") + "\"/></calibration>");
  std::ofstream(path) << text;
  CHECK_THROWS_WITH_AS(fixture::scenario(path), doctest::Contains("give exactly one of instance_type and function_arch"),
                       InputError);
  // Two targets, an instance type and a function architecture, as experiments/vgg11_cifar.xml documents; the
  // same target twice is refused, naming it.
  auto with_targets = [&](const std::string& targets) {
    std::string t = read_text(path);
    const auto open = t.find("<target ");
    const auto close = t.find("</calibration>");
    REQUIRE(open != std::string::npos);
    REQUIRE(close != std::string::npos);
    t.replace(open, close - open, targets);
    std::ofstream(path) << t;
  };
  const std::string m5 = "<target instance_type=\"m5.large\" files=\"" + dir.path("x.csv") + "\"/>";
  with_targets(m5 + "<target function_arch=\"arm\" files=\"" + dir.path("x.csv") + "\"/>");
  const auto two = fixture::scenario(path);
  CHECK(two.experiment.target_calibration_paths.size() == 2);
  CHECK(two.experiment.target_calibration_paths.count("instance:m5.large") == 1);
  CHECK(two.experiment.target_calibration_paths.count("function:arm") == 1);
  with_targets(m5 + m5);
  CHECK_THROWS_WITH_AS(fixture::scenario(path), doctest::Contains("a second calibration for the same target (instance:m5.large)"),
                       InputError);
  // A type the profile does not know: a typo, refused at its <target>, not left unused without a word.
  with_targets(m5 + "<target instance_type=\"t9.huge\" files=\"" + dir.path("x.csv") + "\"/>");
  CHECK_THROWS_WITH_AS(fixture::scenario(path),
                       doctest::Contains("field 'calibration/target/@instance_type': unknown instance type 't9.huge'"),
                       InputError);
}

TEST_CASE("a scalar workload runs every CPU of the run at its scalar factor, which the profile must give") {
  TempDir dir;
  // The test profile with scalar factors on m5.large (a quarter of the calibration CPU, where its vector factor,
  // overridden below, is a half) and on x86 functions (an eighth).
  std::string text = fixture::test_profile_text();
  auto insert_after = [&](const std::string& anchor, const std::string& what) {
    const auto at = text.find(anchor);
    REQUIRE(at != std::string::npos);
    text.insert(at + anchor.size(), what);
  };
  insert_after("<instance type=\"m5.large\"", " cpu_scalar_speed_factor=\"0.25\"");
  const std::string one = "cpu_scalar_speed_factor_x86=\"1.0\"";
  REQUIRE(text.find(one) != std::string::npos);
  text.replace(text.find(one), one.size(), "cpu_scalar_speed_factor_x86=\"0.125\"");
  std::ofstream(dir.path("profile.xml")) << text;
  auto write = [&](const std::string& name, const std::string& kind, const std::string& type,
                   const std::string& systems = "<architectures run=\"instance\"/>") {
    std::ofstream(dir.path(name))
        << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << dir.path("profile.xml") << "\">"
        << fixture::kExactOverrides
        << "<override select=\"instance_types/instance[@type='m5.large']/@cpu_speed_factor\" value=\"0.5\"/>"
        << "</profile>\n  <calibration files=\"" << fixture::kSource << "/tests/data/hand_calibration.csv\"/>\n"
        << "  <workload model=\"mnist_cnn\" input_shape=\"1x28x28\" dataset=\"mnist\" minibatches_per_peer=\"1\"\n"
        << "            iterations=\"1\" compute_variability=\"none\" cpu_work=\"" << kind << "\"/>\n"
        << "  <peers count=\"2\" instance_type=\"" << type << "\"/>\n  " << systems << "\n</experiment>";
    return dir.path(name);
  };
  // The hand calibration's step on two threads, 0.6 (1 + 1e-4 b) reference seconds, on one 30,000-sample minibatch.
  const double reference_s = 0.6 * (1 + 1e-4 * 30000);
  const auto vector = fixture::scenario(write("vector.xml", "vector", "m5.large"));
  CHECK(vector.function_speed_factor == doctest::Approx(1.0));
  CHECK(fixture::peer_phase_total(fixture::simulate(vector, "instance"), 0, Phase::Compute) ==
        doctest::Approx(reference_s / 0.5).epsilon(1e-6));
  const auto scalar = fixture::scenario(write("scalar.xml", "scalar", "m5.large"));
  CHECK(scalar.peer_groups[0].type.cpu_speed_factor == doctest::Approx(0.25));
  CHECK(scalar.function_speed_factor == doctest::Approx(0.125));
  CHECK(fixture::peer_phase_total(fixture::simulate(scalar, "instance"), 0, Phase::Compute) ==
        doctest::Approx(reference_s / 0.25).epsilon(1e-6));
  // A type without one: refused, naming the experiment's field and the type, never run at the vector factor.
  const auto missing = write("missing.xml", "scalar", "c5.large");
  const std::string names_it =
      fixture::line_tag(missing, "<workload") + " field 'workload/@cpu_work': \"scalar\" needs instance type 'c5.large'";
  CHECK_THROWS_WITH_AS(fixture::scenario(missing), doctest::Contains(names_it.c_str()), InputError);
  // A parameter server's host computes at its type's scalar speed too: a server type without one is refused.
  const std::string ps = "<systems><system name=\"ps\" strategy=\"parameter_server\" server_type=\"c5.large\"/></systems>";
  CHECK_THROWS_WITH_AS(fixture::simulate(fixture::scenario(write("server.xml", "scalar", "m5.large", ps)), "ps"),
                       doctest::Contains("\"scalar\" needs instance type 'c5.large'"), InputError);
  CHECK_THROWS_WITH_AS(fixture::scenario(write("bad.xml", "simd", "m5.large")),
                       doctest::Contains("field 'workload/@cpu_work': expected one of vector, scalar, got 'simd'"), InputError);
}

