// Experiments for simulation tests: the test profile (tests/data/test_profile.xml: the shipped performance
// values with round prices), made exact with overrides, and a hand-made calibration in which one mnist_cnn
// step takes 1 + 1e-4 * batch seconds on one thread (0.6x that on two), and serialisation costs next to nothing, 1e-12 s (its
// own test charges it: "serialisation: ...", tests/test_simulation.cpp).
#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "inputs/experiment.hpp"
#include "scenario/scenario.hpp"
#include "simulation/simulate.hpp"
#include "temp_dir.hpp"

namespace fixture {

inline const std::string kSource = P2PSIM_SOURCE_DIR;

/// The test profile's text, its price book named by its absolute path, so that a changed copy elsewhere loads whole.
inline std::string test_profile_text() {
  std::ifstream in(kSource + "/tests/data/test_profile.xml");
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const std::string prices = "file=\"test_prices.xml\"";
  const auto at = text.find(prices);
  if (at == std::string::npos) throw std::logic_error("the test profile names no test_prices.xml");
  text.replace(at, prices.size(), "file=\"" + kSource + "/tests/data/test_prices.xml\"");
  return text;
}

/// Removes what makes hand computation hard: CM02 (no TCP corrections), no network latency, no cold-start
/// spread. Values like first-byte latency and bandwidths stay the profile's own.
inline const char* kExactOverrides = R"(
    <override select="simulation/@network_model" value="CM02"/>
    <override select="network/@one_way_latency_s" value="0"/>
    <override select="function_service/cold_start/@image_sigma" value="0"/>)";

/// The test profile, written into `dir`, with JSON gradients priced (kv_store/json_codec, per element: encode 4e-7 s,
/// parse a function's text 1.5e-7 s and the average's 1e-7 s, 20 bytes of text; inside the database 3e-7 s to decode and add one gradient, 2e-7 s to divide and
/// encode, 16 bytes of text; `max_value_bytes` the database's largest value) and a t2.large that runs scalar work at
/// half its speed on vector work; its SSH tunnel costs nothing, as the test profile's. Returns its path.
inline std::string json_test_profile(const TempDir& dir, const std::string& max_value_bytes = "536870912") {
  std::string text = test_profile_text();
  const std::string kv = R"(<kv_store per_request_cpu_s="0.00001" source="S62">)";
  const std::string type = R"(<instance type="t2.large")";
  if (text.find(kv) == std::string::npos || text.find(type) == std::string::npos)
    throw std::logic_error("the test profile's kv_store or t2.large is not as json_test_profile expects");
  text.replace(text.find(kv), kv.size(),
               R"(<kv_store per_request_cpu_s="0.00001" source="S62">
    <json_codec python_encode_s_per_element_on_reference_cpu="4e-7" python_decode_gradient_s_per_element_on_reference_cpu="1.5e-7"
                python_decode_average_s_per_element_on_reference_cpu="1e-7"
                python_bytes_per_element="20" lua_decode_add_s_per_element_on_reference_cpu="3e-7"
                lua_encode_s_per_element_on_reference_cpu="2e-7" lua_bytes_per_element="16"
                max_value_bytes=")" + max_value_bytes + R"("/>)");
  text.insert(text.find(type) + type.size(), R"( cpu_scalar_speed_factor="0.5")");
  std::ofstream(dir.path("json_profile.xml")) << text;
  return dir.path("json_profile.xml");
}

/// kExactOverrides, less those of a constant that `extra` (more overrides) sets, then `extra`: an experiment gives
/// a constant one value, so a test's own override takes the place of the exact one.
inline std::string exact_overrides_then(const std::string& extra) {
  std::string out;
  std::istringstream lines(kExactOverrides);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto at = line.find("select=\"");
    if (at != std::string::npos &&
        extra.find(line.substr(at, line.find('"', at + 8) + 1 - at)) != std::string::npos)
      continue;
    out += "\n" + line;
  }
  return out + extra;
}

/// Writes an experiment into `dir` with `body` inside <experiment>, after the profile (the test profile unless
/// `profile` names another) and calibration.
inline std::string write_experiment(const TempDir& dir, const std::string& body,
                                    const std::string& extra_overrides = "",
                                    const std::string& profile = kSource + "/tests/data/test_profile.xml") {
  const std::string path = dir.path("experiment.xml");
  std::ofstream(path) << "<experiment name=\"t\" seed=\"7\">\n  <profile file=\"" << profile
                      << "\">" << exact_overrides_then(extra_overrides)
                      << "\n  </profile>\n  <calibration files=\"" << kSource
                      << "/tests/data/hand_calibration.csv\"/>\n"
                      << body << "\n</experiment>\n";
  return path;
}

/// ":N:" where N is the first line of `path` containing `needle`, as error messages write it.
inline std::string line_tag(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n, line.find(needle) != std::string::npos) return ":" + std::to_string(n) + ":";
  return ":?:";
}

inline p2psim::Scenario scenario(const std::string& path) {
  return p2psim::resolve_scenario(
      p2psim::load_experiment(path, kSource + "/experiments/defaults.xml"));
}

/// The system of that name (without <systems>: "instance" and "serverless", the paper's two).
inline const p2psim::SystemSpec& system(const p2psim::Scenario& s, const std::string& name) {
  for (const auto& sys : s.experiment.systems)
    if (sys.name == name) return sys;
  throw std::out_of_range("no system named " + name);
}

/// Simulates one system in a child process (SimGrid: one engine per process).
inline p2psim::RunOutput simulate(const p2psim::Scenario& s, const std::string& system_name) {
  return p2psim::simulate_isolated(s, system(s, system_name));
}

/// Total duration of every `phase` record, or only those of function invocation `invocation`.
inline double phase_total(const p2psim::RunOutput& r, p2psim::Phase phase, int invocation = -2) {
  double total = 0;
  for (const auto& p : r.trace)
    if (p.phase == phase && (invocation == -2 || p.invocation == invocation)) total += p.end_s - p.start_s;
  return total;
}

/// Total duration of `peer`'s own `phase` records (not its functions').
inline double peer_phase_total(const p2psim::RunOutput& r, int peer, p2psim::Phase phase) {
  double total = 0;
  for (const auto& p : r.trace)
    if (p.peer == peer && p.phase == phase && p.invocation < 0) total += p.end_s - p.start_s;
  return total;
}

/// Duration of `peer`'s first `phase` record (its own, not its functions'); -1 when there is none.
inline double phase_of(const p2psim::RunOutput& r, int peer, p2psim::Phase phase) {
  for (const auto& p : r.trace)
    if (p.peer == peer && p.phase == phase && p.invocation < 0) return p.end_s - p.start_s;
  return -1.0;
}

}  // namespace fixture
