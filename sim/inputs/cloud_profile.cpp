#include "cloud_profile.hpp"

#include <fmt/core.h>

#include <cctype>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "../util/file_stamp.hpp"
#include "../util/parse_number.hpp"
#include "profile_history.hpp"
#include "source_keys.hpp"
#include "xml_reader.hpp"

namespace p2psim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const std::string kSource = "source";

}  // namespace

// Prices moved from the platform file to its price book: an override of one says where it went.
static std::string price_hint(const std::string& select) {
  if (select.find("price") == std::string::npos && select.find("billing") == std::string::npos) return "";
  return " (prices and billing rules are in the price book now, e.g. platforms/prices/aws_us_east_1_2026-11.xml: "
         "override them in <prices><override select=\"...\"/></prices>, docs/experiment_schema.md)";
}

// A scaling override: each matched attribute and its spread times o.scale. A value that is not a number (a
// client's max_cores="all") is left for the reader to refuse or accept as it is.
void scale_attributes(const pugi::xpath_node_set& hits, const ProfileOverride& o) {
  for (const auto& hit : hits) {
    if (!hit.attribute()) continue;
    const std::string name = hit.attribute().name();
    for (const std::string& n : {name, name + "_sd", name + "_p10", name + "_p90"})
      if (auto a = hit.parent().attribute(n.c_str()))
        if (const auto v = parse_real(a.value())) a.set_value(fmt::format("{:.17g}", *v * o.scale).c_str());
  }
}

void apply_overrides(XmlFile& xml, const std::vector<ProfileOverride>& overrides) {
  auto root = xml.document().document_element();
  for (const auto& o : overrides) {
    pugi::xpath_node_set hits;
    try {
      hits = root.select_nodes(o.select.c_str());
    } catch (const pugi::xpath_exception& e) {
      throw InputError(o.file, o.line, o.element + "/@select", std::string("invalid XPath: ") + e.what());
    }
    if (o.scale != 0) {
      scale_attributes(hits, o);
      continue;
    }
    int attributes = 0;
    for (const auto& hit : hits) attributes += hit.attribute() ? 1 : 0;
    // One override, one value: a select matching several (every instance type's price, say) is refused rather
    // than changing them all, which the user may not have meant.
    if (attributes > 1)
      throw InputError(o.file, o.line, "override/@select",
                       fmt::format("'{}' selects {} attributes of {}: an override sets one (add a "
                                   "predicate, e.g. instance[@type='t2.large'], or give one override each)",
                                   o.select, attributes, xml.path()));
    int changed = 0;
    for (const auto& hit : hits)
      if (hit.attribute()) {
        hit.attribute().set_value(o.value.c_str());
        // The value is the override's now: the file's spread was about its own value, and a constant drawn with
        // it draws alone.
        const std::string name = hit.attribute().name();
        for (const char* suffix : kSpreadSuffixes) hit.parent().remove_attribute((name + suffix).c_str());
        const std::string drawn_with = kDrawnWithSuffix;
        for (auto a = hit.parent().first_attribute(); a;) {
          const auto next = a.next_attribute();
          const std::string n = a.name();
          if (n.size() > drawn_with.size() && n.compare(n.size() - drawn_with.size(), drawn_with.size(), drawn_with) == 0 &&
              name == a.value())
            hit.parent().remove_attribute(a);
          a = next;
        }
        ++changed;
      }
    if (changed == 0)
      throw InputError(o.file, o.line, o.field.empty() ? "override/@select" : o.field,
                       "'" + o.select + "' selects no attribute of " + xml.path() + price_hint(o.select));
  }
}


void blame_override(const InputError& e, const std::vector<ProfileOverride>& overrides) {
  // A value an override wrote is the override's fault: name its line, not the file's.
  const std::string what = e.what();
  for (auto o = overrides.rbegin(); o != overrides.rend(); ++o) {
    const auto at = o->select.rfind("/@");
    if (at != std::string::npos && what.find("/@" + o->select.substr(at + 2) + "'") != std::string::npos)
      throw InputError(o->file, o->line, o->field.empty() ? o->element + "/@value" : o->field,
                       "'" + o->value + "' for " + o->select + " is not valid: " + what);
  }
  throw e;
}

double FunctionServiceParams::vcpus(int memory_mb) const {
  return std::min({memory_mb / memory_per_vcpu_mb, max_vcpus, static_cast<double>(visible_cores_for(memory_mb))});
}

namespace {
// A value of points given at ascending memory sizes (not empty) at `memory_mb`: linear between them, flat beyond.
template <class Point>
double at_memory(const std::vector<Point>& points, int memory_mb, double Point::*value) {
  if (memory_mb <= points.front().memory_mb) return points.front().*value;
  for (size_t i = 1; i < points.size(); ++i) {
    const auto& lo = points[i - 1];
    const auto& hi = points[i];
    if (memory_mb > hi.memory_mb) continue;
    const double t = static_cast<double>(memory_mb - lo.memory_mb) / (hi.memory_mb - lo.memory_mb);
    return lo.*value + t * (hi.*value - lo.*value);
  }
  return points.back().*value;
}
}  // namespace

FunctionServiceParams::NetworkPoint FunctionServiceParams::network_at(int memory_mb) const {
  using P = NetworkPoint;
  return {memory_mb, at_memory(network, memory_mb, &P::stream_bps), at_memory(network, memory_mb, &P::total_bps)};
}

double FunctionServiceParams::sustained_bps_at(int memory_mb) const {
  if (!network_quota_scalable || network_quota.empty()) return network_sustained_bps;
  const double quota_bps = at_memory(network_quota, memory_mb, &NetworkQuotaPoint::bandwidth_bps);
  return network_sustained_bps * quota_bps / network_quota.front().bandwidth_bps;
}

FunctionServiceParams::StorageRates FunctionServiceParams::storage_rates(int memory_mb,
                                                                         const StorageClientRate& client) const {
  const auto network = network_at(memory_mb);
  const double share = vcpus(memory_mb);
  return {std::min(network.total_bps, client.bps_on(share)),
          std::min(network.stream_bps, std::min(1.0, share) * client.bps_per_vcpu), sustained_bps_at(memory_mb),
          network_burst_bytes, network_refill_bps};
}

double FunctionServiceParams::client_bps_per_vcpu(const std::string& client, double speed_factor) const {
  const auto cost = [&](const std::string& name) {
    const auto it = storage_client_s_per_byte_on_reference_cpu.find(name);
    if (it == storage_client_s_per_byte_on_reference_cpu.end()) {
      std::string known;
      for (const auto& [k, v] : storage_client_s_per_byte_on_reference_cpu) known += (known.empty() ? "" : ", ") + k;
      throw std::invalid_argument("unknown storage client '" + name + "' (the profile's: " + known + ")");
    }
    return it->second;
  };
  // The loop measured on Lambda and `client` differ by work done on the function's own CPU, so by its speed.
  const double s_per_byte =
      1.0 / storage_client_bps_per_vcpu + (cost(client) - cost(storage_client_measured_with)) / speed_factor;
  if (s_per_byte <= 0)
    throw std::invalid_argument("storage client '" + client + "' would cost no CPU per byte (" +
                                std::to_string(s_per_byte) + " s)");
  return 1.0 / s_per_byte;
}

StorageClientRate FunctionServiceParams::client_rate(const std::string& client, double speed_factor) const {
  return {client_bps_per_vcpu(client, speed_factor), storage_client_max_cores.at(client)};
}

StorageClientRate FunctionServiceParams::instance_client_rate(const std::string& client, double speed_factor) const {
  if (!storage_client_s_per_byte_on_reference_cpu.count(client))
    throw std::invalid_argument("unknown storage client '" + client + "'");
  return {speed_factor / storage_client_s_per_byte_on_reference_cpu.at(client), storage_client_max_cores.at(client)};
}

int FunctionServiceParams::visible_cores_for(int memory_mb) const {
  for (const auto& [up_to_mb, cores] : visible_cores)
    if (memory_mb <= up_to_mb) return cores;
  return visible_cores.empty() ? 1 : visible_cores.back().second;
}

double WorkflowServiceParams::branch_start_delay_s(int i) const {
  if (i < parallel_burst_branches) return transition_latency_s;
  const double intervals = i - parallel_burst_branches + 1;
  // The first `growing` intervals are under the cap: first + growth x k for k < growing; the rest are the cap.
  const double below_cap = parallel_max_interval_s - parallel_first_interval_s;
  const double growing =
      below_cap <= 0 ? 0
                     : (parallel_interval_growth_s > 0 ? std::min(intervals, std::ceil(below_cap / parallel_interval_growth_s))
                                                       : intervals);
  return transition_latency_s + growing * parallel_first_interval_s +
         parallel_interval_growth_s * growing * (growing - 1) / 2 + (intervals - growing) * parallel_max_interval_s;
}

namespace {
CloudProfile parse_profile(XmlFile& xml, const std::string& path);
CloudProfile parse_profile_file(const std::string& path, const std::vector<ProfileOverride>& overrides,
                                const std::string& as_of);
}  // namespace

CloudProfile load_cloud_profile(const std::string& path, const std::vector<ProfileOverride>& overrides,
                                const std::string& as_of) {
  // Parsed once per process for each set of overrides and date (a sweep's scenarios inherit it: file_stamp.hpp).
  // Where an override was written only matters to an error, which is never remembered; a scaling one's factor is
  // its value.
  std::vector<std::pair<std::string, std::string>> key{{"as_of", as_of}};
  for (const auto& o : overrides) key.emplace_back(o.select, o.scale != 0 ? fmt::format("x{:.17g}", o.scale) : o.value);
  static FileMemo<decltype(key), CloudProfile> parsed;
  return parsed.get({path}, key, [&] { return parse_profile_file(path, overrides, as_of); });
}

namespace {
CloudProfile parse_profile_file(const std::string& path, const std::vector<ProfileOverride>& overrides,
                                const std::string& as_of) {
  XmlFile xml(path);
  xml.allow_spreads();
  // The values measured nearest to `as_of`, then the experiment's overrides over them.
  std::vector<ProfileOverride> all = history_as_of(xml, as_of);
  all.insert(all.end(), overrides.begin(), overrides.end());
  apply_overrides(xml, all);
  CloudProfile p;
  try {
    p = parse_profile(xml, path);
    xml.check_spreads_read();
    p.spreads = xml.spreads();
  } catch (const InputError& e) {
    blame_override(e, all);
  }
  // Every earlier value of the history is a valid value, whatever the date: a bad one must not wait for a run
  // as of its year. Each is read once, alone, into the profile as written.
  for (const auto& earlier : history_values(xml)) {
    XmlFile alone(path);
    alone.allow_spreads();
    apply_overrides(alone, {earlier});
    try {
      parse_profile(alone, path);
    } catch (const InputError& e) {
      blame_override(e, {earlier});
    }
  }
  return p;
}

CloudProfile parse_profile(XmlFile& xml, const std::string& path) {
  auto root = xml.root("cloud");
  xml.check_names(root, {"name", "region", "currency", "collected"},
                  {"simulation", "network", "runtime", "instance_types", "price_book", "function_service",
                   "workflow_service", "object_storage", "broker", "kv_store", "sources", "cpu_reference", "history"});
  check_source_keys(xml, root);
  CloudProfile p;
  p.path = path;
  p.name = xml.text(root, "name");
  for (char c : p.name)  // it is written into CSV files and figure captions
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      throw xml.error(root, "cloud/@name", "expected letters, digits, '_', '-' or '.', got '" + p.name + "'");
  auto required = [&](const char* name) {
    auto n = root.child(name);
    if (!n) throw xml.error(root, name, "required element <" + std::string(name) + "> is missing");
    return n;
  };

  auto sim = required("simulation");
  xml.check_names(sim, {"network_model", "bandwidth_factor", "latency_factor", "tcp_gamma_bytes", "cross_traffic",
                        kSource});
  auto& model = p.network_model;
  model.name = xml.choice(sim, "network_model", {"LV08", "CM02"});
  if (sim.attribute("bandwidth_factor")) model.bandwidth_factor = xml.number(sim, "bandwidth_factor", 1e-3, 1);
  if (sim.attribute("latency_factor")) model.latency_factor = xml.number(sim, "latency_factor", 0, 1e3);
  if (sim.attribute("tcp_gamma_bytes")) model.tcp_gamma_bytes = xml.number(sim, "tcp_gamma_bytes", 1, 1e12);
  if (sim.attribute("cross_traffic")) model.cross_traffic = xml.boolean(sim, "cross_traffic");

  auto net = required("network");
  xml.check_names(net, {"one_way_latency_s", "single_flow_bps", "single_flow_placement_group_bps", kSource});
  p.one_way_latency_s = xml.number(net, "one_way_latency_s", 0, 10);
  p.single_flow_bps = xml.number_or(net, "single_flow_bps", 1, 1e13, 0);
  p.single_flow_placement_group_bps = xml.number_or(net, "single_flow_placement_group_bps", 1, 1e13, 0);

  auto runtime = required("runtime");
  xml.check_names(runtime, {"baseline_mb", kSource});
  p.runtime_baseline_mb = xml.number(runtime, "baseline_mb", 0, 1e6);

  // CPU speeds: either a factor relative to the calibration CPU, or a per-core benchmark score divided by the
  // calibration CPU's score on the same benchmark (<cpu_reference>), so that one line changes with the machine.
  // Two kinds of work, each with its own benchmark: vector work (LibTorch's kernels, every workload by default)
  // and scalar work (a workload's cpu_work="scalar"; a function's runtime import), which an instance type needs
  // only where a scalar workload runs on it.
  double reference_score = 0, reference_scalar_score = 0;
  if (auto ref = root.child("cpu_reference")) {
    xml.check_names(ref, {"benchmark", "single_core_score", "scalar_benchmark", "scalar_score", "scalar_source", "identity", kSource});
    xml.text(ref, "benchmark");
    p.cpu_reference_identity = xml.text(ref, "identity");
    p.cpu_reference_line = xml.line_of(ref);
    reference_score = xml.number(ref, "single_core_score", 1e-6, 1e12);
    if (ref.attribute("scalar_score") || ref.attribute("scalar_benchmark")) {
      xml.text(ref, "scalar_benchmark");
      reference_scalar_score = xml.number(ref, "scalar_score", 1e-6, 1e12);
    }
  }
  enum class Kind { Vector, Scalar };
  // A speed of one kind: its factor, or its score over the reference's on that kind's benchmark; `optional`: 0 when
  // neither is given (an instance type's scalar speed, which only a scalar workload on it needs).
  auto speed = [&](const pugi::xml_node& n, const char* factor_attr, const char* score_attr, Kind kind = Kind::Vector,
                   bool optional = false) {
    const bool factor = static_cast<bool>(n.attribute(factor_attr)), score = static_cast<bool>(n.attribute(score_attr));
    if (factor && score)
      throw xml.error(n, std::string("@") + factor_attr,
                      std::string("give ") + (optional ? "at most" : "exactly") + " one of " + factor_attr + " and " +
                          score_attr);
    if (!factor && !score) {
      if (optional) return 0.0;
      throw xml.error(n, std::string("@") + factor_attr,
                      std::string("give exactly one of ") + factor_attr + " and " + score_attr);
    }
    if (factor) return xml.number(n, factor_attr, 1e-3, 1e3);
    const double reference = kind == Kind::Scalar ? reference_scalar_score : reference_score;
    if (reference <= 0)
      throw xml.error(n, std::string("@") + score_attr,
                      std::string("a benchmark score needs <cpu_reference ") +
                          (kind == Kind::Scalar ? "scalar_score" : "single_core_score") + "=...> for the calibration CPU");
    return xml.number(n, score_attr, 1e-6, 1e12) / reference;
  };

  auto types = required("instance_types");
  xml.check_names(types, {kSource}, {"instance"});
  for (auto n : types.children("instance")) {
    xml.check_names(n, {"type", "vcpus", "memory_gib", "nic_bandwidth_bps", "nic_burst_bps",
                        "nic_credit_s", "nic_burst_source", "cpu_speed_factor",
                        "cpu_single_core_score", "cpu_scalar_speed_factor", "cpu_scalar_score", "cpu", "cpu_source", "credits_earned_per_hour", "max_credits", "launch_credits", "credit_mode", "nic_source",
                        kSource});
    InstanceType t;
    t.name = xml.text(n, "type");
    t.vcpus = static_cast<int>(xml.integer(n, "vcpus", 1, 1024));
    t.memory_gib = xml.number(n, "memory_gib", 0.001, 1e6);
    t.nic_bandwidth_bps = xml.number(n, "nic_bandwidth_bps", 1, 1e13);
    if (n.attribute("nic_burst_bps") || n.attribute("nic_credit_s")) {  // an "up to" type: both, or neither
      t.nic_burst_bps = xml.number(n, "nic_burst_bps", t.nic_bandwidth_bps, 1e13);
      t.nic_credit_s = xml.number(n, "nic_credit_s", 0, 1e9);
    }
    t.cpu_speed_factor = speed(n, "cpu_speed_factor", "cpu_single_core_score");
    t.cpu_scalar_speed_factor = speed(n, "cpu_scalar_speed_factor", "cpu_scalar_score", Kind::Scalar, true);
    t.credits_earned_per_hour = xml.number_or(n, "credits_earned_per_hour", 0, 1e6, 0);
    if (t.burstable()) {
      t.max_credits = xml.number(n, "max_credits", 0, 1e7);
      t.launch_credits = xml.number(n, "launch_credits", 0, 1e6);
      t.unlimited = xml.choice(n, "credit_mode", {"standard", "unlimited"}) == "unlimited";
    }
    if (!p.instance_types.emplace(t.name, t).second)
      throw xml.error(n, "instance/@type", "instance type '" + t.name + "' is listed twice");
  }

  auto prices = required("price_book");
  xml.check_names(prices, {"file"});
  p.price_book_path = (std::filesystem::absolute(path).parent_path() / xml.text(prices, "file")).lexically_normal().string();
  if (!std::filesystem::is_regular_file(p.price_book_path))
    throw xml.error(prices, "price_book/@file", "no such file: " + p.price_book_path);

  auto fn = required("function_service");
  xml.check_names(fn,
                  {"memory_min_mb", "memory_max_mb", "memory_per_vcpu_mb", "max_vcpus", "concurrency_limit",
                   "keep_alive_s", "max_timeout_s", "cpu_speed_factor_x86", "cpu_speed_factor_arm",
                   "cpu_single_core_score_x86", "cpu_single_core_score_arm", "cpu_scalar_speed_factor_x86",
                   "cpu_scalar_speed_factor_arm", "cpu_scalar_score_x86", "cpu_scalar_score_arm", "cpu_scalar_source", "cpu_source",
                   "storage_client_bps_per_vcpu", "storage_client_measured_with", "network_sustained_bps",
                   "network_burst_bytes", "network_refill_bps", "network_quota", kSource},
                  {"visible_cores", "cold_start", "network", "network_quota", "storage_client"},
                  {"network", "network_quota"});  // points by memory size
  auto& f = p.functions;
  f.memory_min_mb = static_cast<int>(xml.integer(fn, "memory_min_mb", 1, 1 << 20));
  f.memory_max_mb = static_cast<int>(xml.integer(fn, "memory_max_mb", f.memory_min_mb, 1 << 20));
  f.memory_per_vcpu_mb = xml.number(fn, "memory_per_vcpu_mb", 1, 1e6);
  f.max_vcpus = xml.number(fn, "max_vcpus", 0.01, 1024);
  f.concurrency_limit = static_cast<int>(xml.integer(fn, "concurrency_limit", 1, 1 << 24));
  f.keep_alive_s = xml.number(fn, "keep_alive_s", 0, 1e9);
  f.max_timeout_s = xml.number(fn, "max_timeout_s", 0.001, 1e9);
  f.cpu_speed_factor_x86 = speed(fn, "cpu_speed_factor_x86", "cpu_single_core_score_x86");
  f.cpu_speed_factor_arm = speed(fn, "cpu_speed_factor_arm", "cpu_single_core_score_arm");
  // A function's runtime import is scalar work whatever its workload: both architectures need a scalar speed.
  f.cpu_scalar_speed_factor_x86 = speed(fn, "cpu_scalar_speed_factor_x86", "cpu_scalar_score_x86", Kind::Scalar);
  f.cpu_scalar_speed_factor_arm = speed(fn, "cpu_scalar_speed_factor_arm", "cpu_scalar_score_arm", Kind::Scalar);
  f.storage_client_bps_per_vcpu = xml.number(fn, "storage_client_bps_per_vcpu", 1, 1e13);
  for (auto c : fn.children("storage_client")) {
    xml.check_names(c, {"name", "cpu_s_per_byte_on_reference_cpu", "max_cores", kSource});
    const std::string name = xml.text(c, "name");
    if (!f.storage_client_s_per_byte_on_reference_cpu
             .emplace(name, xml.number(c, "cpu_s_per_byte_on_reference_cpu", 0, 1e-3))
             .second)
      throw xml.error(c, "storage_client/@name", "'" + name + "' is given twice");
    // "all": the client has no bound of its own and uses every vCPU it has (no number, so no spread).
    if (xml.text(c, "max_cores") == "all") {
      for (const char* spread : {"max_cores_sd", "max_cores_p10", "max_cores_p90"})
        if (c.attribute(spread)) throw xml.error(c, std::string("storage_client/@") + spread, "\"all\" takes no spread");
      f.storage_client_max_cores[name] = std::numeric_limits<double>::infinity();
    } else {
      f.storage_client_max_cores[name] = xml.number(c, "max_cores", 1, 1e6);
    }
  }
  for (const char* needed : {"get_object", "transfer_manager"})  // what designs read with by default
    if (!f.storage_client_s_per_byte_on_reference_cpu.count(needed))
      throw xml.error(fn, "function_service/storage_client", std::string("required: <storage_client name=\"") + needed +
                                                                 "\">, the way designs read by default");
  f.storage_client_measured_with = xml.text(fn, "storage_client_measured_with");
  if (!f.storage_client_s_per_byte_on_reference_cpu.count(f.storage_client_measured_with))
    throw xml.error(fn, "function_service/@storage_client_measured_with",
                    "'" + f.storage_client_measured_with + "' is no <storage_client name>");
  // A rate each, on either CPU. A client cheaper than the one measured on Lambda saves its difference over the
  // speed factor, so a slow enough factor would save more than the measured loop cost: refused at the client,
  // naming the factor (an override of that factor is then blamed: blame_override).
  const std::pair<const char*, double> factors[] = {{"cpu_speed_factor_x86", f.cpu_speed_factor_x86},
                                                    {"cpu_speed_factor_arm", f.cpu_speed_factor_arm},
                                                    {"cpu_scalar_speed_factor_x86", f.cpu_scalar_speed_factor_x86},
                                                    {"cpu_scalar_speed_factor_arm", f.cpu_scalar_speed_factor_arm}};
  for (auto c : fn.children("storage_client"))
    for (const auto& [name, factor] : factors) try {
        f.client_bps_per_vcpu(xml.text(c, "name"), factor);
      } catch (const std::invalid_argument& e) {
        const double saved = f.storage_client_s_per_byte_on_reference_cpu.at(f.storage_client_measured_with) -
                             f.storage_client_s_per_byte_on_reference_cpu.at(xml.text(c, "name"));
        throw xml.error(c, "storage_client/@cpu_s_per_byte_on_reference_cpu",
                        fmt::format("storage client '{}' would cost no CPU per byte on a function whose "
                                    "'function_service/@{}' is {:.4g}: it costs {:.3g} ns a byte less than '{}', "
                                    "which moved 'function_service/@storage_client_bps_per_vcpu' ({:.3g} ns a byte) "
                                    "on Lambda, so that factor must exceed {:.4g} (or the client's cost or that "
                                    "rate change)",
                                    xml.text(c, "name"), name, factor, saved * 1e9, f.storage_client_measured_with,
                                    1e9 / f.storage_client_bps_per_vcpu, saved * f.storage_client_bps_per_vcpu));
      }
  // A token bucket: its sustained rate, its size and its refill, or none of them.
  if (fn.attribute("network_sustained_bps") || fn.attribute("network_burst_bytes") || fn.attribute("network_refill_bps")) {
    f.network_sustained_bps = xml.number(fn, "network_sustained_bps", 1, 1e13);
    f.network_burst_bytes = xml.number(fn, "network_burst_bytes", 0, 1e15);
    f.network_refill_bps = xml.number(fn, "network_refill_bps", 1, 1e13);
    // An idle bucket earning faster than a transfer may move for free would let a slow transfer earn less than no
    // transfer at all.
    if (f.network_refill_bps > f.network_sustained_bps)
      throw xml.error(fn, "function_service/@network_refill_bps",
                      "must not exceed network_sustained_bps (an idle bucket refills no faster than it sustains)");
  }
  for (auto q : fn.children("network_quota")) {
    xml.check_names(q, {"memory_mb", "bandwidth_bps", kSource});
    FunctionServiceParams::NetworkQuotaPoint point;
    point.memory_mb = static_cast<int>(xml.integer(q, "memory_mb", 1, 1 << 20));
    if (!f.network_quota.empty() && point.memory_mb <= f.network_quota.back().memory_mb)
      throw xml.error(q, "network_quota/@memory_mb", "must increase from one <network_quota> to the next");
    point.bandwidth_bps = xml.number(q, "bandwidth_bps", 1, 1e13);
    f.network_quota.push_back(point);
  }
  // Which quota the account has: a choice the profile states whenever it knows the quota, never a silent default.
  if (fn.attribute("network_quota") || !f.network_quota.empty()) {
    if (!fn.attribute("network_quota"))
      throw xml.error(fn, "function_service/@network_quota",
                      "required beside <network_quota>: \"default\" (the first point's bandwidth at every memory size) or "
                      "\"scalable\" (the account asked for it to scale with memory)");
    f.network_quota_scalable = xml.choice(fn, "network_quota", {"default", "scalable"}) == "scalable";
    if (f.network_quota_scalable && f.network_sustained_bps <= 0)
      throw xml.error(fn, "function_service/@network_quota",
                      "\"scalable\" scales network_sustained_bps, which this profile does not give");
    if (f.network_quota.empty())
      throw xml.error(fn, "function_service/network_quota",
                      "required: the documented bandwidth at one memory size at least, for @network_quota");
  }
  for (auto n : fn.children("network")) {
    xml.check_names(n, {"memory_mb", "stream_bps", "total_bps", kSource});
    FunctionServiceParams::NetworkPoint point;
    point.memory_mb = static_cast<int>(xml.integer(n, "memory_mb", 1, 1 << 20));
    if (!f.network.empty() && point.memory_mb <= f.network.back().memory_mb)
      throw xml.error(n, "network/@memory_mb", "must increase from one <network> to the next");
    point.stream_bps = xml.number(n, "stream_bps", 1, 1e13);
    point.total_bps = xml.number(n, "total_bps", point.stream_bps, 1e13);
    f.network.push_back(point);
  }
  if (f.network.empty())
    throw xml.error(fn, "function_service/network", "required: a function's network rates at one memory size at least");
  for (auto n : fn.children("visible_cores")) {
    xml.check_names(n, {"up_to_mb", "cores"});
    int up_to = static_cast<int>(xml.integer(n, "up_to_mb", 1, 1 << 20));
    if (!f.visible_cores.empty() && up_to <= f.visible_cores.back().first)
      throw xml.error(n, "visible_cores/@up_to_mb", "must increase from one <visible_cores> to the next");
    f.visible_cores.emplace_back(up_to, static_cast<int>(xml.integer(n, "cores", 1, 1024)));
  }
  if (f.visible_cores.empty() || f.visible_cores.back().first < f.memory_max_mb)
    throw xml.error(fn, "function_service/visible_cores", "must cover memory up to memory_max_mb");
  auto cold = fn.child("cold_start");
  if (!cold) throw xml.error(fn, "function_service/cold_start", "required element is missing");
  xml.check_names(cold, {"image_median_s", "image_sigma", "runtime_import_s_on_reference_cpu", kSource});
  f.cold_start_image_median_s = xml.number(cold, "image_median_s", 0, 3600);
  f.cold_start_image_sigma = xml.number(cold, "image_sigma", 0, 10);
  f.runtime_import_s_on_reference_cpu = xml.number(cold, "runtime_import_s_on_reference_cpu", 0, 3600);

  auto wf = required("workflow_service");
  xml.check_names(wf, {"transition_latency_s", "parallel_burst_branches", "parallel_first_interval_s",
                       "parallel_interval_growth_s", "parallel_max_interval_s", "transitions_per_execution",
                       "transitions_per_branch", "task_retry_attempts", kSource});
  auto& w = p.workflow;
  w.transition_latency_s = xml.number(wf, "transition_latency_s", 0, 3600);
  w.parallel_burst_branches = static_cast<int>(xml.integer(wf, "parallel_burst_branches", 0, 1 << 20));
  w.parallel_first_interval_s = xml.number(wf, "parallel_first_interval_s", 0, 3600);
  w.parallel_interval_growth_s = xml.number(wf, "parallel_interval_growth_s", 0, 3600);
  w.parallel_max_interval_s = xml.number(wf, "parallel_max_interval_s", w.parallel_first_interval_s, 3600);
  w.transitions_per_execution = static_cast<int>(xml.integer(wf, "transitions_per_execution", 0, 1000));
  w.transitions_per_branch = static_cast<int>(xml.integer(wf, "transitions_per_branch", 0, 1000));
  w.task_retry_attempts = static_cast<int>(xml.integer(wf, "task_retry_attempts", 0, 100));

  auto st = required("object_storage");
  xml.check_names(st, {"get_first_byte_median_s", "get_first_byte_sigma", "put_first_byte_median_s",
                       "put_first_byte_sigma", "list_per_key_s", "list_max_keys", "stream_bandwidth_bps",
                       "aggregate_bandwidth_bps", "get_requests_per_prefix_per_s", "put_requests_per_prefix_per_s",
                       "part_min_bytes", "part_max_bytes", "object_max_bytes", kSource});
  auto& s = p.storage;
  // A request always takes time: loops of requests (LambdaML's LISTs) advance the clock by it.
  s.get = {xml.number(st, "get_first_byte_median_s", 1e-6, 3600), xml.number(st, "get_first_byte_sigma", 0, 5)};
  s.put = {xml.number(st, "put_first_byte_median_s", 1e-6, 3600), xml.number(st, "put_first_byte_sigma", 0, 5)};
  s.list_per_key_s = xml.number(st, "list_per_key_s", 0, 1);
  s.list_max_keys = static_cast<int>(xml.integer(st, "list_max_keys", 1, 1000000));
  s.stream_bandwidth_bps = xml.number(st, "stream_bandwidth_bps", 1, 1e13);
  s.aggregate_bandwidth_bps = xml.number(st, "aggregate_bandwidth_bps", 1, 1e15);
  s.get_requests_per_prefix_per_s = xml.number(st, "get_requests_per_prefix_per_s", 1, 1e9);
  s.put_requests_per_prefix_per_s = xml.number(st, "put_requests_per_prefix_per_s", 1, 1e9);
  s.part_min_bytes = xml.number(st, "part_min_bytes", 1, 1e15);
  s.part_max_bytes = xml.number(st, "part_max_bytes", s.part_min_bytes, 1e15);
  s.object_max_bytes = xml.number(st, "object_max_bytes", s.part_max_bytes, 1e18);

  auto br = required("broker");
  xml.check_names(br, {"instance", "nic_bandwidth_bps",
                       "per_message_cpu_s", "request_latency_s", "max_message_bytes", kSource});
  auto& b = p.broker;
  b.instance = xml.text(br, "instance");
  b.nic_bandwidth_bps = xml.number(br, "nic_bandwidth_bps", 1, 1e13);
  b.per_message_cpu_s = xml.number(br, "per_message_cpu_s", 0, 60);
  b.request_latency_s = xml.number(br, "request_latency_s", 0, 60);
  b.max_message_bytes = xml.integer(br, "max_message_bytes", 1, 1LL << 40);

  auto kv = required("kv_store");
  xml.check_names(kv, {"per_request_cpu_s", kSource}, {"json_codec", "ssh_tunnel"});
  p.kv_store.per_request_cpu_s = xml.number(kv, "per_request_cpu_s", 0, 60);
  if (auto j = kv.child("json_codec")) {
    xml.check_names(j, {"python_encode_s_per_element_on_reference_cpu",
                        "python_decode_gradient_s_per_element_on_reference_cpu",
                        "python_decode_average_s_per_element_on_reference_cpu",
                        "python_bytes_per_element", "lua_decode_add_s_per_element_on_reference_cpu",
                        "lua_encode_s_per_element_on_reference_cpu", "lua_bytes_per_element", "max_value_bytes",
                        kSource});
    auto& c = p.kv_store.json.emplace();
    c.python_encode_s_per_element = xml.number(j, "python_encode_s_per_element_on_reference_cpu", 0, 1);
    c.python_decode_gradient_s_per_element = xml.number(j, "python_decode_gradient_s_per_element_on_reference_cpu", 0, 1);
    c.python_decode_average_s_per_element = xml.number(j, "python_decode_average_s_per_element_on_reference_cpu", 0, 1);
    c.python_bytes_per_element = xml.number(j, "python_bytes_per_element", 1, 1000);
    c.lua_decode_add_s_per_element = xml.number(j, "lua_decode_add_s_per_element_on_reference_cpu", 0, 1);
    c.lua_encode_s_per_element = xml.number(j, "lua_encode_s_per_element_on_reference_cpu", 0, 1);
    c.lua_bytes_per_element = xml.number(j, "lua_bytes_per_element", 1, 1000);
    c.max_value_bytes = xml.integer(j, "max_value_bytes", 1, 1LL << 50);
  }
  if (auto t = kv.child("ssh_tunnel")) {
    xml.check_names(t, {"client_cpu_s_on_reference_cpu", "server_cpu_s_on_reference_cpu", "wait_s", "round_trips",
                        "download_client_cpu_s_per_mb_on_reference_cpu", "download_server_cpu_s_per_mb_on_reference_cpu",
                        "upload_client_cpu_s_per_mb_on_reference_cpu", "upload_server_cpu_s_per_mb_on_reference_cpu",
                        kSource});
    auto& tunnel = p.kv_store.ssh_tunnel.emplace();
    tunnel.client_cpu_s = xml.number(t, "client_cpu_s_on_reference_cpu", 0, 60);
    tunnel.server_cpu_s = xml.number(t, "server_cpu_s_on_reference_cpu", 0, 60);
    tunnel.wait_s = xml.number(t, "wait_s", 0, 60);
    tunnel.round_trips = static_cast<int>(xml.integer(t, "round_trips", 0, 100));
    tunnel.download_client_cpu_s_per_mb = xml.number(t, "download_client_cpu_s_per_mb_on_reference_cpu", 0, 10);
    tunnel.download_server_cpu_s_per_mb = xml.number(t, "download_server_cpu_s_per_mb_on_reference_cpu", 0, 10);
    tunnel.upload_client_cpu_s_per_mb = xml.number(t, "upload_client_cpu_s_per_mb_on_reference_cpu", 0, 10);
    tunnel.upload_server_cpu_s_per_mb = xml.number(t, "upload_server_cpu_s_per_mb_on_reference_cpu", 0, 10);
  }
  return p;
}
}  // namespace

}  // namespace p2psim
