#include "experiment.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "../util/csv_files.hpp"
#include "../util/data_dir.hpp"
#include "../util/dataset_files.hpp"
#include "../util/file_stamp.hpp"
#include "../util/parse_number.hpp"
#include "limits.hpp"
#include "profile_history.hpp"
#include "xml_reader.hpp"

namespace fs = std::filesystem;

namespace p2psim {
namespace {

const std::vector<std::string> kTransports{"inline", "storage", "auto"};

Transport to_transport(const std::string& s) {
  return s == "inline" ? Transport::Inline : s == "storage" ? Transport::Storage : Transport::Auto;
}

// Attributes naming files are relative to the file they are written in.
const std::set<std::string> kPathAttributes{"file", "files", "models", "data_dir"};

// `files` holds a list of paths separated by white space; a space inside a path is written "\ " (and a
// backslash "\\"), as a shell would. Every other path attribute holds one path, spaces and all.
const std::set<std::string> kPathListAttributes{"files"};

// Settings that matter only when another setting says so (load_experiment warns of one given where it is idle).
const char* const kConditionalSettings[] = {"synchronization/@staleness_bound", "failures/@crash_at_s",
                                            "failures/@rejoin_after_s",         "exchange/@topk_ratio",
                                            "exchange/@compress_functions",     "exchange/@error_feedback",
                                            "stragglers/@tail_shape"};

std::vector<std::string> split_path_list(const std::string& value) {
  std::vector<std::string> items;
  std::string item;
  bool in_item = false;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '\\' && i + 1 < value.size()) {
      item += value[++i];
      in_item = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_item) items.push_back(item);
      item.clear();
      in_item = false;
    } else {
      item += c;
      in_item = true;
    }
  }
  if (in_item) items.push_back(item);
  return items;
}

std::string join_path_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ' ';
    for (char c : item) {
      if (c == '\\' || std::isspace(static_cast<unsigned char>(c))) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string resolve_paths(const std::string& attribute, const std::string& value, const fs::path& base) {
  auto absolute = [&](const std::string& item) { return fs::path(item).is_absolute() ? item : (base / item).string(); };
  if (!kPathListAttributes.count(attribute)) {  // one path: only white space around it is dropped
    const auto first = value.find_first_not_of(" \t\r\n"), last = value.find_last_not_of(" \t\r\n");
    return first == std::string::npos ? "" : absolute(value.substr(first, last - first + 1));
  }
  std::vector<std::string> items = split_path_list(value);
  for (auto& item : items) item = absolute(item);
  return join_path_list(items);
}

// Copies into `target` every attribute and element of `defaults` it lacks, recursively, making paths absolute.
void merge_defaults(pugi::xml_node target, pugi::xml_node defaults, const fs::path& defaults_dir) {
  for (auto a : defaults.attributes())
    if (!target.attribute(a.name())) {
      std::string v = kPathAttributes.count(a.name()) ? resolve_paths(a.name(), a.value(), defaults_dir) : a.value();
      target.append_attribute(a.name()).set_value(v.c_str());
    }
  for (auto d : defaults.children()) {
    if (d.type() != pugi::node_element) continue;
    auto t = target.child(d.name());
    if (!t) t = target.append_child(d.name());
    merge_defaults(t, d, defaults_dir);
  }
}

// <systems baseline="..."><system name=".." strategy=".." (strategy parameters)/>...</systems>, or the paper's
// two systems from <architectures run="both|instance|serverless">.
void parse_systems(const XmlFile& xml, pugi::xml_node root, Experiment& e) {
  auto systems = root.child("systems");
  if (!systems) {
    auto arch = root.child("architectures");
    xml.check_names(arch, {"run"});
    const std::string run = xml.choice(arch, "run", {"both", "instance", "serverless"});
    const long line = xml.line_of(arch);
    if (run != "serverless") e.systems.push_back({"instance", "p2p_all_to_all", {{"compute", "peer"}}, e.path, line});
    if (run != "instance")
      e.systems.push_back({"serverless", "p2p_all_to_all", {{"compute", "functions"}}, e.path, line});
    e.baseline = e.systems.front().name;
    return;
  }
  xml.check_names(systems, {"baseline"}, {"system"});
  for (auto n : systems.children("system")) {
    xml.check_empty(n, "a system's parameters are its attributes (docs/designs.md)");
    SystemSpec spec{xml.text(n, "name"), xml.text(n, "strategy"), {}, e.path, xml.line_of(n)};
    if (!valid_name(spec.name))
      throw xml.error(n, "system/@name", "expected 1-64 letters, digits, '_', '-' or '.', got '" + spec.name + "'");
    for (const auto& other : e.systems)
      if (other.name == spec.name) throw xml.error(n, "system/@name", "system '" + spec.name + "' is declared twice");
    for (auto a : n.attributes())
      if (std::string(a.name()) != "name" && std::string(a.name()) != "strategy") spec.params[a.name()] = a.value();
    e.systems.push_back(std::move(spec));
  }
  if (e.systems.empty()) throw xml.error(systems, "systems/system", "declare at least one <system>");
  e.baseline = xml.text_or(systems, "baseline", e.systems.front().name);
  if (std::none_of(e.systems.begin(), e.systems.end(), [&](const SystemSpec& s) { return s.name == e.baseline; }))
    throw xml.error(systems, "systems/@baseline", "no system is named '" + e.baseline + "'");
}

constexpr int kMaxPeers = 100000;

// One <group> of <peers>, the `index`-th; adds its count to `total`. Errors name it "peers/group[index]".
void parse_peer_group(const XmlFile& xml, pugi::xml_node g, int index, Experiment& e, long long& total) {
  const std::string field = fmt::format("peers/group[{}]", index);
  auto error = [&](const char* attr, const std::string& what) {
    return InputError(xml.path(), xml.line_of(g), field + "/@" + attr, what);
  };
  xml.check_names(g, {"name", "count", "instance_type", "slowdown", "shard_samples"});
  xml.check_empty(g, "a group's settings are its attributes");
  Experiment::PeerGroup group;
  group.count = static_cast<int>(xml.integer(g, "count", 1, kMaxPeers));
  group.instance_type = xml.text(g, "instance_type");
  group.slowdown = xml.number_or(g, "slowdown", 1, limits::kMaxSlowdown, 1);
  group.shard_samples = xml.integer_or(g, "shard_samples", 1, 1LL << 40, 0);
  group.name = xml.text_or(g, "name", group.instance_type);
  if (!valid_name(group.name))
    throw error("name", "expected 1-64 letters, digits, '_', '-' or '.', got '" + group.name + "'");
  for (const auto& other : e.peer_groups)
    if (other.name == group.name)
      throw error("name", "two groups are named '" + group.name + "' (a group is named by its instance type unless it "
                          "has a name): give each its own name");
  total += group.count;
  if (total > kMaxPeers) throw error("count", fmt::format("the groups hold more than {} peers together", kMaxPeers));
  group.line = xml.line_of(g);
  group.field = field;
  e.instance_type += fmt::format("{}{}x{}", e.peer_groups.empty() ? "" : "+", group.count, group.instance_type);
  e.peer_groups.push_back(std::move(group));
}

// <peers count=".." instance_type=".."/>, or groups of peers of their own types and speeds.
void parse_peers(const XmlFile& xml, pugi::xml_node peers, bool groups_declared, Experiment& e) {
  xml.check_names(peers, {"count", "instance_type", "placement"}, {"group"});
  e.peers_line = xml.line_of(peers);
  if (peers.attribute("placement")) e.cluster_placement = xml.choice(peers, "placement", {"none", "cluster"}) == "cluster";
  if (!groups_declared) {
    e.peers = static_cast<int>(xml.integer(peers, "count", 1, kMaxPeers));
    e.instance_type = xml.text(peers, "instance_type");
    e.peer_groups.push_back({e.instance_type, e.instance_type, e.peers, 1, 0, xml.line_of(peers), "peers"});
    return;
  }
  long long total = 0;
  int index = 0;
  for (auto g : peers.children("group")) {
    try {
      parse_peer_group(xml, g, ++index, e, total);
    } catch (const InputError& error) {  // the reader's own field names do not say which group: "peers/group"
      std::string where = error.field;
      if (where.rfind("peers/group/", 0) == 0) where = fmt::format("peers/group[{}]", index) + where.substr(11);
      throw InputError(error.file, error.line, where, error.message);
    }
  }
  e.peers = static_cast<int>(total);
  if (e.peer_groups.size() == 1) e.instance_type = e.peer_groups[0].instance_type;
}

/// Two values for one constant in one file: the later would win unseen, so neither is taken.
void refuse_second_override(const XmlFile& xml, const pugi::xml_node& node, const std::string& field,
                            const std::string& select, const std::vector<ProfileOverride>& earlier) {
  for (const auto& o : earlier)
    if (bare_select(o.select) == bare_select(select))
      throw xml.error(node, field, fmt::format("'{}' is given another value at line {} ({}): give it one value",
                                               select, o.line, o.element == "functions" ? o.field : "an <override>"));
}

}  // namespace

int Experiment::group_of(int peer) const {
  int first = 0;  // the group's first peer
  for (size_t g = 0; g < peer_groups.size() && peer >= 0; ++g) {
    if (peer < first + peer_groups[g].count) return static_cast<int>(g);
    first += peer_groups[g].count;
  }
  throw std::out_of_range(fmt::format("no peer {} among the {} peers", peer, first));
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

void resolve_relative_paths(pugi::xml_node node, const std::string& base_dir) {
  for (auto a : node.attributes())
    if (kPathAttributes.count(a.name())) a.set_value(resolve_paths(a.name(), a.value(), base_dir).c_str());
  for (auto c : node.children())
    if (c.type() == pugi::node_element) resolve_relative_paths(c, base_dir);
}

InputError Experiment::error(const std::string& element, const std::string& field, const std::string& what) const {
  auto it = lines.find(element);
  return InputError(path, it == lines.end() ? 0 : it->second, element + "/@" + field, what);
}

std::vector<std::string> Experiment::input_files() const {
  std::vector<std::string> files{profile_path};
  files.insert(files.end(), calibration_paths.begin(), calibration_paths.end());
  for (const auto& [target, paths] : target_calibration_paths) files.insert(files.end(), paths.begin(), paths.end());
  files.push_back(models_path);
  return files;
}

std::string default_experiment_defaults_path() {
  return data_dir() + "/experiments/defaults.xml";
}

Experiment load_experiment(const std::string& path, const std::string& defaults_path, bool sweep_file) {
  XmlFile xml(path);
  auto root = xml.root("experiment");
  xml.check_names(root, {"name", "seed"},
                  {"profile", "prices", "calibration", "workload", "peers", "architectures", "systems", "functions", "exchange",
                   "barrier", "workflow", "stragglers", "synchronization", "failures", "sweep", "cost", "accuracy"});
  if (auto sweep = root.child("sweep"); sweep && !sweep_file)
    throw xml.error(sweep, "sweep", "this experiment declares a sweep: run it with `p2psim sweep`");
  if (root.child("systems") && root.child("architectures"))
    throw xml.error(root.child("architectures"), "architectures",
                    "give <systems> or <architectures>, not both (<architectures> is the paper's two systems)");
  // Validate the user's own names before defaults are merged in, so that errors point at their lines.
  const bool accuracy_declared = root.child("accuracy");  // defaults.xml holds its defaults, not the switch
  // Peer groups replace <peers count instance_type> (whose defaults are merged in below).
  const bool peer_groups_declared = root.child("peers").child("group");
  if (auto p = root.child("peers"); peer_groups_declared)
    for (const char* attr : {"count", "instance_type"})
      if (p.attribute(attr))
        throw xml.error(p, std::string("peers/@") + attr,
                        "give <group> children (each its count and instance_type) or count and instance_type, not both");
  // slowdown="" in the user's own file: a list that was meant to say something (defaults.xml's empty one says none).
  if (auto st = root.child("stragglers"); st.attribute("slowdown") &&
                                          std::string(st.attribute("slowdown").value()).find_first_not_of(" \t\n\r\v\f") ==
                                              std::string::npos)
    throw xml.error(st, "stragglers/@slowdown", "lists no factor: give one per peer, or leave the attribute out");
  static FileMemo<int, std::shared_ptr<const XmlFile>> parsed_defaults;  // the same for a sweep's scenarios
  const auto defaults =
      parsed_defaults.get({defaults_path}, 0, [&] { return std::make_shared<const XmlFile>(defaults_path); });
  // Settings that matter only when another says so, as the user's own file gives them (defaults.xml gives them
  // all): one given where the rest makes it idle, at a value other than the default, is warned of below, as an
  // intent that will not happen.
  std::map<std::string, long> given_lines;  // "element/@attribute" -> its element's line
  for (const char* field : kConditionalSettings) {
    const std::string f = field, element = f.substr(0, f.find("/@")), attr = f.substr(f.find("/@") + 2);
    const auto given = root.child(element.c_str()).attribute(attr.c_str());
    const std::string fallback = defaults->root("experiment").child(element.c_str()).attribute(attr.c_str()).value();
    const auto number = parse_real(given.value()), default_number = parse_real(fallback);
    const bool is_default = number && default_number ? *number == *default_number : fallback == given.value();
    if (given && !is_default) given_lines[f] = xml.line_of(root.child(element.c_str()));
  }
  resolve_relative_paths(root, fs::path(path).parent_path().string());
  merge_defaults(root, defaults->root("experiment"), fs::path(defaults_path).parent_path());

  Experiment e;
  e.path = path;
  for (auto c : root.children())
    if (c.type() == pugi::node_element) e.lines[c.name()] = xml.line_of(c);
  e.name = xml.text(root, "name");
  if (!valid_name(e.name))  // it is written into CSV files and figure captions
    throw xml.error(root, "experiment/@name", "expected 1-64 letters, digits, '_', '-' or '.', got '" + e.name + "'");
  e.seed = static_cast<unsigned long long>(xml.integer(root, "seed", 0, (1LL << 62)));

  auto profile = root.child("profile");
  xml.check_names(profile, {"file", "as_of"}, {"override"});
  e.profile_path = xml.text(profile, "file");
  if (profile.attribute("as_of")) {
    e.profile_as_of = xml.text(profile, "as_of");
    if (!measurement_day(e.profile_as_of))
      throw xml.error(profile, "profile/@as_of", "expected YYYY-MM or YYYY-MM-DD, got '" + e.profile_as_of + "'");
  }
  for (auto o : profile.children("override")) {
    xml.check_names(o, {"select", "value"});
    refuse_second_override(xml, o, "override/@select", xml.text(o, "select"), e.overrides);
    e.overrides.push_back({xml.text(o, "select"), xml.text(o, "value"), path, xml.line_of(o)});
  }

  // Why a path that should name a file does not: a folder, something that is there but is no file (a device, a
  // pipe), or nothing.
  auto not_a_file = [](const std::string& f) {
    std::error_code unreadable;
    if (fs::is_directory(f, unreadable)) return f + " is a folder, expected a file";
    if (fs::exists(f, unreadable)) return f + " is not a regular file (a device, a pipe or a socket?)";
    return "no such file: " + f;
  };
  if (auto prices = root.child("prices")) {
    xml.check_names(prices, {"file"}, {"override"});
    if (prices.attribute("file")) {
      e.price_book_path = xml.text(prices, "file");
      if (!fs::is_regular_file(e.price_book_path))
        throw xml.error(prices, "prices/@file", not_a_file(e.price_book_path));
    }
    for (auto o : prices.children("override")) {
      xml.check_names(o, {"select", "value"});
      refuse_second_override(xml, o, "override/@select", xml.text(o, "select"), e.price_overrides);
      e.price_overrides.push_back({xml.text(o, "select"), xml.text(o, "value"), path, xml.line_of(o)});
    }
  }

  auto cal = root.child("calibration");
  xml.check_names(cal, {"files", "models"}, {"target"}, {"target"});  // one per target, checked below
  // A list of CSV files; a directory stands for every *.csv in it, in name order.
  auto csv_files = [&](const pugi::xml_node& n, const std::string& field) {
    std::vector<std::string> paths;
    for (const std::string& f : split_path_list(xml.text(n, "files"))) {
      if (fs::is_directory(f)) {
        const auto csvs = csv_files_in(f);
        if (csvs.empty()) throw xml.error(n, field, "directory " + f + " holds no .csv file");
        paths.insert(paths.end(), csvs.begin(), csvs.end());
      } else if (fs::is_regular_file(f)) {
        paths.push_back(f);
      } else {
        throw xml.error(n, field, not_a_file(f));
      }
    }
    if (paths.empty()) throw xml.error(n, field, "lists no file");
    return paths;
  };
  e.calibration_paths = csv_files(cal, "calibration/@files");
  // Training steps measured on a target itself (`p2psim calibrate` run on that instance type, or in a function
  // container of that architecture) replace the calibration CPU's steps scaled by a speed factor.
  for (auto t : cal.children("target")) {
    xml.check_names(t, {"instance_type", "function_arch", "files"});
    const bool instance = static_cast<bool>(t.attribute("instance_type"));
    if (instance == static_cast<bool>(t.attribute("function_arch")))
      throw xml.error(t, "calibration/target/@instance_type", "give exactly one of instance_type and function_arch");
    const std::string key = instance ? "instance:" + xml.text(t, "instance_type")
                                     : "function:" + xml.choice(t, "function_arch", {"x86", "arm"});
    if (!e.target_calibration_paths.emplace(key, csv_files(t, "calibration/target/@files")).second)
      throw xml.error(t, "calibration/target", "a second calibration for the same target (" + key + ")");
    e.target_calibration_lines[key] = xml.line_of(t);
  }
  if (auto cost = root.child("cost")) {
    xml.check_names(cost, {"include_broker"});
    e.cost_includes_broker = xml.boolean(cost, "include_broker");
  }
  e.models_path = xml.text(cal, "models");
  if (!fs::is_regular_file(e.models_path)) throw xml.error(cal, "calibration/@models", not_a_file(e.models_path));
  if (!fs::is_regular_file(e.profile_path)) throw xml.error(profile, "profile/@file", not_a_file(e.profile_path));

  auto w = root.child("workload");
  xml.check_names(w, {"model", "input_shape", "dataset", "batch_size", "minibatches_per_peer", "iterations", "epochs",
                      "compute_variability", "train_samples", "input_pipeline", "threads", "cpu_work"});
  if (xml.text_or(w, "threads", "all") != "all") e.workload.threads = static_cast<int>(xml.integer(w, "threads", 1, 256));
  e.workload.measured_variability = xml.choice(w, "compute_variability", {"measured", "none"}) == "measured";
  e.workload.input_pipeline = xml.choice(w, "input_pipeline", {"none", "to_tensor"});
  e.workload.cpu_work = xml.choice(w, "cpu_work", {"vector", "scalar"});
  e.workload.model = xml.text(w, "model");
  e.workload.input_shape = xml.text(w, "input_shape");
  e.workload.dataset = xml.choice(w, "dataset", {"mnist", "fashion_mnist", "cifar10"});
  // Real sizes: MNIST and Fashion-MNIST 60,000 training images, CIFAR-10 50,000; 10 classes each.
  const long long dataset_samples = e.workload.dataset == "cifar10" ? 50000 : 60000;
  e.workload.train_samples = xml.integer_or(w, "train_samples", 1, dataset_samples, dataset_samples);
  e.workload.classes = 10;
  const bool by_size = w.attribute("batch_size"), by_count = w.attribute("minibatches_per_peer");
  if (by_size == by_count)
    throw xml.error(w, "workload/@batch_size", "give exactly one of batch_size and minibatches_per_peer");
  e.workload.batch_size = xml.integer_or(w, "batch_size", 1, 1 << 20, 0);
  e.workload.minibatches_per_peer = xml.integer_or(w, "minibatches_per_peer", 1, 1 << 20, 0);
  // The paper's workflow makes one update per pass over the local shard, so an epoch is one iteration.
  if (w.attribute("iterations") && w.attribute("epochs"))
    throw xml.error(w, "workload/@epochs", "give iterations or epochs, not both (one update per pass: they are equal)");
  e.workload.iterations = w.attribute("epochs") ? xml.integer(w, "epochs", 1, 1 << 20)
                                                : xml.integer(w, "iterations", 1, 1 << 20);

  parse_peers(xml, root.child("peers"), peer_groups_declared, e);

  parse_systems(xml, root, e);

  auto fn = root.child("functions");
  xml.check_names(fn, {"memory_mb", "arch", "minibatches_per_invocation", "keep_alive_s", "concurrency_limit",
                       "network_quota"});
  e.functions.memory_mb = static_cast<int>(xml.integer(fn, "memory_mb", 1, 1 << 20));
  e.functions.arch = xml.choice(fn, "arch", {"x86", "arm"});
  e.functions.minibatches_per_invocation = static_cast<int>(xml.integer(fn, "minibatches_per_invocation", 1, 1 << 20));
  // Profile values of the account that an experiment may set directly: they become overrides.
  for (const char* a : kFunctionsAccountAttributes)
    if (fn.attribute(a)) {
      const std::string select = std::string("function_service/@") + a;
      refuse_second_override(xml, fn, std::string("functions/@") + a, select, e.overrides);
      e.overrides.push_back({select, fn.attribute(a).value(), path, xml.line_of(fn), "functions",
                             std::string("functions/@") + a});
    }

  auto ex = root.child("exchange");
  xml.check_names(ex, {"instance_transport", "serverless_transport", "inline_max_bytes", "consume", "poll_interval_s",
                       "compression", "topk_ratio", "compress_functions", "error_feedback"});
  e.exchange.compression = xml.choice(ex, "compression", {"none", "qsgd8_paper", "qsgd8_packed", "topk", "fp16"});
  e.exchange.topk_ratio = xml.number(ex, "topk_ratio", 1e-9, 1);
  e.exchange.compress_functions = xml.boolean(ex, "compress_functions");
  e.exchange.error_feedback = xml.boolean(ex, "error_feedback");
  // The paper's transport and barrier per compute mode are the all-to-all's own defaults now, and a system's
  // transport="..." and barrier="..." set them; an old file that sets them here still loads, with a note.
  auto deprecated = [&](const pugi::xml_node& n, const char* attr, const std::string& instead) {
    e.warnings.push_back(xml.error(n, XmlFile::field_name(n, attr), "deprecated: " + instead));
  };
  for (const auto& [attr, field] : {std::pair{"instance_transport", &Experiment::Exchange::instance_transport},
                                    std::pair{"serverless_transport", &Experiment::Exchange::serverless_transport}})
    if (ex.attribute(attr)) {
      e.exchange.*field = to_transport(xml.choice(ex, attr, kTransports));
      deprecated(ex, attr, "give transport=\"...\" to the p2p_all_to_all systems that send this way (docs/designs.md)");
    }
  e.exchange.inline_max_bytes = xml.integer(ex, "inline_max_bytes", 0, 1LL << 40);
  e.exchange.consume = xml.choice(ex, "consume", {"poll", "push"}) == "poll" ? Consume::Poll : Consume::Push;
  e.exchange.poll_interval_s = xml.number(ex, "poll_interval_s", 1e-6, 3600);

  auto bar = root.child("barrier");
  xml.check_names(bar, {"instance", "serverless", "initial_wait_s", "poll_interval_s", "settle_s"});
  for (const auto& [attr, field] : {std::pair{"instance", &Experiment::Barrier::instance},
                                    std::pair{"serverless", &Experiment::Barrier::serverless}})
    if (bar.attribute(attr)) {
      e.barrier.*field = xml.boolean(bar, attr);
      deprecated(bar, attr, "give barrier=\"true|false\" to the p2p_all_to_all systems it is about (docs/designs.md)");
    }
  e.barrier.initial_wait_s = xml.number(bar, "initial_wait_s", 0, 3600);
  e.barrier.poll_interval_s = xml.number(bar, "poll_interval_s", 1e-6, 3600);
  e.barrier.settle_s = xml.number(bar, "settle_s", 0, 3600);

  auto failures = root.child("failures");
  xml.check_names(failures, {"function_failure_probability", "broker_outage_from_s", "broker_outage_to_s",
                             "crash_peer", "crash_at_s", "rejoin_after_s", "peer_timeout_s"});
  e.crash_peer = static_cast<int>(xml.integer(failures, "crash_peer", -1, e.peers - 1));
  // Within the simulated year a run may last (a crash after training ends simply never happens).
  const double year_s = limits::kMaxSimulatedSeconds;
  e.crash_at_s = xml.number(failures, "crash_at_s", 0, year_s);
  e.rejoin_after_s = xml.number(failures, "rejoin_after_s", 0, year_s);
  e.peer_timeout_s = xml.number(failures, "peer_timeout_s", 0, year_s);
  if (e.crash_at_s + e.rejoin_after_s > year_s)
    throw xml.error(failures, "failures/@rejoin_after_s",
                    fmt::format("crash_at_s + rejoin_after_s = {:g} s, past a simulated year ({:.0f} s, p2psim's "
                                "limit: docs/limits.md)", e.crash_at_s + e.rejoin_after_s, year_s));
  if (e.crash_peer >= 0 && e.rejoin_after_s <= 0 && e.peer_timeout_s <= 0)
    throw xml.error(failures, "failures/@peer_timeout_s",
                    "a peer that crashes for good needs a timeout > 0, or the others would wait for it forever");
  e.function_failure_probability = xml.number(failures, "function_failure_probability", 0, 0.99);
  {  // one window per pair of values: broker_outage_from_s="10 50" broker_outage_to_s="20 60"
    auto times = [&](const char* attr) {
      std::vector<double> v;
      std::istringstream in(xml.text_or(failures, attr, ""));
      for (std::string t; in >> t;) {
        const auto x = parse_real(t);
        if (!x || *x < 0 || *x > limits::kMaxSimulatedSeconds)
          throw xml.error(failures, std::string("failures/@") + attr,
                          fmt::format("expected times in [0, {:.0f}] s (a simulated year, p2psim's limit), got '{}'",
                                      limits::kMaxSimulatedSeconds, t));
        v.push_back(*x);
      }
      return v;
    };
    const auto from = times("broker_outage_from_s"), to = times("broker_outage_to_s");
    if (from.size() != to.size())
      throw xml.error(failures, "failures/@broker_outage_to_s",
                      std::to_string(from.size()) + " outage starts but " + std::to_string(to.size()) + " ends");
    for (size_t i = 0; i < from.size(); ++i) {
      if (to[i] < from[i] || (i > 0 && from[i] < to[i - 1]))
        throw xml.error(failures, "failures/@broker_outage_to_s",
                        "outage windows must be in time order, each ending after it starts and before the next");
      if (to[i] > from[i]) e.broker_outages.push_back({from[i], to[i]});  // an empty window is no outage
    }
  }

  auto sync = root.child("synchronization");
  xml.check_names(sync, {"mode", "staleness_bound"});
  e.asynchronous = xml.choice(sync, "mode", {"sync", "async"}) == "async";
  // Checked in either mode (a bad value is bad input even where it is idle), used only when asynchronous.
  const int staleness_bound = static_cast<int>(xml.integer(sync, "staleness_bound", 0, 1 << 20));
  e.staleness_bound = e.asynchronous ? staleness_bound : 0;
  if (e.asynchronous && (e.barrier.instance.value_or(false) || e.barrier.serverless.value_or(false)))
    throw xml.error(sync, "synchronization/@mode",
                    "asynchronous training has no barrier: remove <barrier instance=\"true\"> or serverless=\"true\"");

  auto st = root.child("stragglers");
  xml.check_names(st, {"slowdown", "tail_probability", "tail_shape"});
  {
    std::istringstream factors(xml.text_or(st, "slowdown", ""));
    for (std::string f; factors >> f;) {
      const auto v = parse_real(f);
      if (!v || *v < 1 || *v > limits::kMaxSlowdown)
        throw xml.error(st, "stragglers/@slowdown",
                        fmt::format("expected factors in [1, {:.0f}], got '{}'", limits::kMaxSlowdown, f));
      e.stragglers.slowdown.push_back(*v);
    }
    if (static_cast<int>(e.stragglers.slowdown.size()) > e.peers)
      throw xml.error(st, "stragglers/@slowdown", std::to_string(e.stragglers.slowdown.size()) +
                                                      " factors for " + std::to_string(e.peers) + " peers");
  }
  // A group's slowdown multiplies each of its peers' straggler factor: the peers' CPUs then say both.
  if (std::any_of(e.peer_groups.begin(), e.peer_groups.end(), [](const auto& g) { return g.slowdown != 1; })) {
    e.stragglers.slowdown.resize(static_cast<size_t>(e.peers), 1.0);
    for (int i = 0; i < e.peers; ++i) {
      auto& factor = e.stragglers.slowdown[static_cast<size_t>(i)];
      factor *= e.peer_groups[static_cast<size_t>(e.group_of(i))].slowdown;
      if (factor > limits::kMaxSlowdown)
        throw xml.error(st, "stragglers/@slowdown",
                        fmt::format("peer {}'s factor times its group's slowdown is {}, over {:.0f}", i, factor,
                                    limits::kMaxSlowdown));
    }
  }
  e.stragglers.tail_probability = xml.number(st, "tail_probability", 0, 1);
  e.stragglers.tail_shape = xml.number(st, "tail_shape", 1.01, 1000);

  auto acc = root.child("accuracy");
  xml.check_names(acc, {"target", "learning_rate", "momentum", "eval_every", "test_samples", "data_dir"});
  e.accuracy.enabled = accuracy_declared;
  if (accuracy_declared) {
    if (!acc.attribute("target")) throw xml.error(acc, "accuracy/@target", "missing: the test accuracy to reach, in (0, 1]");
    e.accuracy.target = xml.number(acc, "target", 1e-9, 1);
  }
  e.accuracy.learning_rate = xml.number(acc, "learning_rate", 1e-9, 1e3);
  e.accuracy.momentum = xml.number(acc, "momentum", 0, 0.999999);
  e.accuracy.eval_every = static_cast<int>(xml.integer(acc, "eval_every", 1, 1 << 20));
  e.accuracy.test_samples = xml.integer(acc, "test_samples", 1, 10000);  // every test set here holds 10,000
  e.accuracy.data_dir = xml.text_or(acc, "data_dir", "");
  if (!e.accuracy.data_dir.empty() && !fs::is_directory(e.accuracy.data_dir))
    throw xml.error(acc, "accuracy/@data_dir", "no such folder: " + e.accuracy.data_dir);
  // Checked here, before anything is simulated: the replay that needs the data runs after the simulation.
  if (accuracy_declared && e.accuracy.data_dir.empty() && e.workload.dataset != "fashion_mnist")
    throw xml.error(acc, "accuracy/@data_dir",
                    "missing: only Fashion-MNIST has a Debian package; set it to the folder holding the " +
                        e.workload.dataset + " files (docs/time_to_accuracy.md)");
  // Its files too: a replay that finds none would end the run after its simulation, its results unwritten.
  if (accuracy_declared)
    for (const auto& file : dataset_files(e.workload.dataset, e.accuracy.data_dir.empty() ? kDebianFashionMnistDir
                                                                                          : e.accuracy.data_dir)) {
      std::error_code unreadable;  // a folder it may not look into, a loop of links: said, not thrown
      if (fs::is_regular_file(file, unreadable)) continue;
      const std::string what = "no " + fs::path(file).filename().string() + " in " +
                               fs::path(file).parent_path().string() +
                               (unreadable ? " (" + unreadable.message() + ")" : std::string());
      throw xml.error(acc, "accuracy/@data_dir",
                      e.accuracy.data_dir.empty()
                          ? what + ": install Debian's dataset-fashion-mnist, or set data_dir to a folder of its files"
                          : what + " (the " + e.workload.dataset + " files: docs/time_to_accuracy.md)");
    }

  auto wf = root.child("workflow");
  xml.check_names(wf, {"status_poll_interval_s"});
  e.workflow_status_poll_interval_s = xml.number(wf, "status_poll_interval_s", 1e-6, 3600);

  const auto idle = [&](const char* field, bool is_idle, const std::string& why) {
    if (const auto it = given_lines.find(field); it != given_lines.end() && is_idle)
      e.warnings.push_back(InputError(path, it->second, field, "has no effect " + why));
  };
  idle("synchronization/@staleness_bound", !e.asynchronous, "in synchronous training (mode=\"sync\")");
  idle("failures/@crash_at_s", e.crash_peer < 0, "without a peer to crash (crash_peer)");
  idle("failures/@rejoin_after_s", e.crash_peer < 0, "without a peer to crash (crash_peer)");
  idle("exchange/@topk_ratio", e.exchange.compression != "topk", "unless compression=\"topk\"");
  idle("exchange/@compress_functions", e.exchange.compression == "none", "without compression");
  idle("exchange/@error_feedback", e.exchange.compression == "none", "without compression");
  idle("stragglers/@tail_shape", e.stragglers.tail_probability == 0, "when tail_probability is 0");
  return e;
}

}  // namespace p2psim
