#include "scenario.hpp"

#include <fmt/core.h>

#include "../compute/codec.hpp"
#include "calibration_cpu.hpp"
#include "../inputs/limits.hpp"
#include "../util/csv_reader.hpp"
#include "../util/parse_number.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

namespace p2psim {
namespace {

struct ModelSize {
  long long parameters = 0;
  std::string default_input_shape;
};

ModelSize model_size(const std::string& path, const std::string& model, long long classes) {
  try {
    CsvReader<5> in(path);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "model", "num_classes", "parameters",
                   "default_input_shape", "gradient_bytes");
    for (const char* required : {"model", "num_classes", "parameters", "default_input_shape"})
      if (!in.has_column(required)) throw InputError(path, 1, required, "column is missing");
    std::string name, shape, gradient_bytes;  // read as text: another model's row is not this run's to refuse
    long long n_classes = 0, params = 0;
    std::string known;
    ModelSize found;
    long found_line = 0;
    while (in.read_row(name, n_classes, params, shape, gradient_bytes)) {
      const long line = static_cast<long>(in.get_file_line());
      if (name == model && n_classes == classes) {
        // A second row of the same model would be a second size, of which the first was silently taken.
        if (found_line)
          throw InputError(path, line, "model", fmt::format("{} with {} classes is given twice (line {} too)", model,
                                                            classes, found_line));
        if (params < 1 || params > limits::kMaxParameters)
          throw InputError(path, line, "parameters",
                           fmt::format("model {}: expected 1 to {} parameters, got {}", model, limits::kMaxParameters,
                                       params));
        // Not read, since p2psim sends float32 gradients: where a file gives it, it must say so.
        if (in.has_column("gradient_bytes") && parse_integer(gradient_bytes) != 4 * params)
          throw InputError(path, line, "gradient_bytes",
                           fmt::format("model {}: '{}' bytes, where {} float32 parameters take {}", model,
                                       gradient_bytes, params, 4 * params));
        found = {params, shape};
        found_line = line;
      }
      known += (known.empty() ? "" : ", ") + name;
    }
    if (found_line) return found;
    throw std::out_of_range("unknown model '" + model + "' (known: " + known + ")");
  } catch (const io::error::base& e) {
    throw csv_input_error(path, e);
  }
}

long long shape_volume(const std::string& shape, const Experiment& e) {
  long long c = 0, h = 0, w = 0;
  char x1 = 0, x2 = 0;
  std::istringstream in(shape);
  if (!(in >> c >> x1 >> h >> x2 >> w) || x1 != 'x' || x2 != 'x' || !in.eof() || c < 1 || h < 1 || w < 1)
    throw e.error("workload", "input_shape", "expected CxHxW with positive integers, got '" + shape + "'");
  return c * h * w;
}

}  // namespace

constexpr double kMiB = 1024.0 * 1024.0;  // Lambda's "MB" of memory are MiB

bool Scenario::uniform_shards() const {
  // The shard's size too: without batch_size, shards of 85 and 86 samples both make 4 minibatches of 21.
  for (const auto& g : peer_groups)
    if (g.shard_samples != peer_groups.front().shard_samples || g.minibatches != peer_groups.front().minibatches)
      return false;
  return true;
}

long long Scenario::invocations_per_iteration() const {
  long long n = 0;
  for (size_t g = 0; g < peer_groups.size(); ++g)
    n += static_cast<long long>(experiment.peer_groups[g].count) * static_cast<long long>(peer_groups[g].invocations.size());
  return n;
}

double Scenario::largest_invocation_need_bytes() const {
  double need = 0;
  if (memory_checked)
    for (const auto& g : peer_groups)
      for (double bytes : g.invocation_need_bytes) need = std::max(need, bytes);
  return need;
}

int Scenario::smallest_function_memory_mb() const {
  if (!memory_checked) return -1;
  const int mb = std::max(profile.functions.memory_min_mb,
                          static_cast<int>(std::ceil(largest_invocation_need_bytes() / kMiB)));
  return mb <= profile.functions.memory_max_mb ? mb : 0;
}

bool Scenario::sends_inline(Transport t) const {
  return t == Transport::Inline || (t == Transport::Auto && exchange_bytes <= experiment.exchange.inline_max_bytes);
}

// The input pipeline runs in the trainer's main thread: one vCPU, time-sliced below one.
double Scenario::reference_input_pipeline_s(StepTarget target, long long batch, int group) const {
  const auto& w = experiment.workload;
  if (w.input_pipeline == "none") return 0;
  return compute.input_pipeline_seconds(w.input_pipeline, w.input_shape, static_cast<double>(batch)) /
         std::min(1.0, vcpus(target, group));
}

// The forward, loss and backward alone, in reference seconds (a step measured on the target itself converted
// with the target's factor).
static double reference_train_step_s(const Scenario& s, StepTarget target, long long batch, int group) {
  const auto& w = s.experiment.workload;
  const double measured = s.step_model(target, group).step_seconds(w.model, w.input_shape,
                                                                   static_cast<double>(batch), s.step_vcpus(target, group));
  return s.own_steps(target, group) ? measured * s.speed_factor(target, group) : measured;
}

double Scenario::instance_speed_factor(const InstanceType& type) const {
  if (experiment.workload.cpu_work != "scalar") return type.cpu_speed_factor;
  if (type.cpu_scalar_speed_factor <= 0)
    throw experiment.error("workload", "cpu_work",
                           "\"scalar\" needs instance type '" + type.name +
                               "' to give cpu_scalar_score or cpu_scalar_speed_factor in " + profile.path);
  return type.cpu_scalar_speed_factor;
}

double Scenario::reference_step_s(StepTarget target, long long batch, int group) const {
  return reference_train_step_s(*this, target, batch, group) + reference_input_pipeline_s(target, batch, group);
}

double Scenario::step_busy_vcpus(StepTarget target, long long batch, int group) const {
  const auto& w = experiment.workload;
  const double step_busy = step_model(target, group).step_busy_vcpus(w.model, w.input_shape,
                                                                     static_cast<double>(batch), step_vcpus(target, group));
  const double pipeline_s = reference_input_pipeline_s(target, batch, group);
  if (pipeline_s == 0) return step_busy;
  const double step_s = reference_train_step_s(*this, target, batch, group);
  return (step_s * step_busy + pipeline_s * std::min(1.0, vcpus(target, group))) / (step_s + pipeline_s);
}

// Each group's shard per peer (its own shard_samples, or an even share of what the groups that give one leave),
// its minibatches and how its functions split them.
static void resolve_shards(const Experiment& e, Scenario& s) {
  const auto& w = e.workload;
  long long given = 0, peers_left = 0;  // samples the groups with shard_samples hold; the other groups' peers
  for (const auto& group : e.peer_groups) {
    if (group.shard_samples == 0) {
      peers_left += group.count;
      continue;
    }
    given += group.count * group.shard_samples;
    if (given > w.train_samples)
      throw InputError(e.path, group.line, group.field + "/@shard_samples",
                       fmt::format("the groups' shards hold {} samples up to here, more than the {} training samples",
                                   given, w.train_samples));
  }
  for (size_t k = 0; k < e.peer_groups.size(); ++k) {
    const auto& group = e.peer_groups[k];
    auto& g = s.peer_groups[k];
    g.shard_samples = group.shard_samples > 0 ? group.shard_samples : (w.train_samples - given) / std::max(1LL, peers_left);
    if (g.shard_samples < 1) {
      if (given == 0)  // the peers alone share the samples
        throw InputError(e.path, group.line, group.field + "/@count",
                         std::to_string(e.peers) + " peers leave no training sample for some of them (" +
                             std::to_string(w.train_samples) + " samples)");
      throw InputError(e.path, group.line, group.field + "/@count",
                       fmt::format("no training sample is left for this group's peers ({} samples, {} held by groups "
                                   "with shard_samples)", w.train_samples, given));
    }
    if (w.batch_size > 0) {  // full minibatches, then the remainder, as a DataLoader without drop_last
      for (long long left = g.shard_samples; left > 0; left -= w.batch_size)
        g.minibatches.push_back(std::min(left, w.batch_size));
    } else {  // the paper's split script: batch = len(partition) // num_batch, remainder dropped
      if (w.minibatches_per_peer > g.shard_samples) {
        const std::string what = fmt::format("more minibatches ({}) than the {} samples of a shard{}",
                                             w.minibatches_per_peer, g.shard_samples,
                                             e.peer_groups.size() > 1 ? " of group '" + group.name + "'" : "");
        if (group.shard_samples > 0) throw InputError(e.path, group.line, group.field + "/@shard_samples", what);
        throw e.error("workload", "minibatches_per_peer", what);
      }
      g.minibatches.assign(w.minibatches_per_peer, g.shard_samples / w.minibatches_per_peer);
    }
    const int per_invocation = e.functions.minibatches_per_invocation;
    for (size_t i = 0; i < g.minibatches.size(); i += per_invocation)
      g.invocations.emplace_back(g.minibatches.begin() + i,
                                 g.minibatches.begin() + std::min(g.minibatches.size(), i + per_invocation));
  }
}

std::vector<std::string> Scenario::input_files() const {
  auto files = experiment.input_files();
  files.push_back(prices.path);
  return files;
}

Scenario resolve_scenario(const Experiment& e) {
  Scenario s;
  s.experiment = e;
  s.profile = load_cloud_profile(e.profile_path, e.overrides, e.profile_as_of);
  s.prices = load_price_book(e.price_book_path.empty() ? s.profile.price_book_path : e.price_book_path, s.profile,
                             e.price_overrides);
  s.compute = ComputeModel::load(e.calibration_paths);
  check_calibration_cpu(s.profile, s.compute);
  const auto& w = e.workload;

  for (size_t g = 0; g < e.peer_groups.size(); ++g) {
    const auto& group = e.peer_groups[g];
    auto type = s.profile.instance_types.find(group.instance_type);
    if (type == s.profile.instance_types.end()) {
      std::string known;
      for (const auto& [name, t] : s.profile.instance_types) known += (known.empty() ? "" : ", ") + name;
      throw InputError(e.path, group.line, group.field + "/@instance_type",
                       "unknown instance type '" + group.instance_type + "' (the profile " + s.profile.path +
                           " has: " + known + ")");
    }
    Scenario::PeerGroup model;
    model.type = type->second;
    model.type.cpu_speed_factor = s.instance_speed_factor(model.type);
    model.memory_bytes = type->second.memory_gib * 1024 * kMiB;
    s.peer_groups.push_back(std::move(model));
    s.group_of_peer.insert(s.group_of_peer.end(), static_cast<size_t>(group.count), static_cast<int>(g));
  }

  ModelSize size;
  try {
    size = model_size(e.models_path, w.model, w.classes);
  } catch (const std::out_of_range& ex) {
    throw e.error("workload", "model", ex.what());
  }
  s.sample_bytes = shape_volume(w.input_shape, e) * 4;
  // Only mnist_cnn's parameter count depends on its input (its first Linear layer follows the image size).
  if (w.model == "mnist_cnn" && w.input_shape != size.default_input_shape)
    throw e.error("workload", "input_shape", "the parameter count of mnist_cnn is recorded for " +
                                                 size.default_input_shape + " only");
  s.parameters = size.parameters;
  s.gradient_bytes = size.parameters * 4;
  const auto& x = e.exchange;
  const double elements = static_cast<double>(s.parameters);
  s.exchange_bytes = encoded_bytes(x.compression, elements, x.topk_ratio);
  s.function_gradient_bytes = x.compress_functions ? s.exchange_bytes : static_cast<double>(s.gradient_bytes);

  resolve_shards(e, s);

  const auto& fs = s.profile.functions;
  if (e.functions.memory_mb < fs.memory_min_mb || e.functions.memory_mb > fs.memory_max_mb)
    throw e.error("functions", "memory_mb", "expected " + std::to_string(fs.memory_min_mb) + ".." +
                                                std::to_string(fs.memory_max_mb) + " MB, got " +
                                                std::to_string(e.functions.memory_mb));
  s.function_vcpus = fs.vcpus(e.functions.memory_mb);
  const bool arm = e.functions.arch == "arm";
  s.function_speed_factor = arm ? fs.cpu_speed_factor_arm : fs.cpu_speed_factor_x86;
  s.function_scalar_speed_factor = arm ? fs.cpu_scalar_speed_factor_arm : fs.cpu_scalar_speed_factor_x86;
  if (w.cpu_work == "scalar") s.function_speed_factor = s.function_scalar_speed_factor;

  if (x.compression != "none") {  // codec times: measured at one thread on the calibration CPU
    try {
      double encode = s.compute.codec_seconds(x.compression + "_encode", elements);
      // Top-k keeps what it did not send as error feedback: add the residual before, keep the rest after,
      // about one more two-gradient pass (its effect on convergence is not modelled).
      if (x.compression == "topk") encode += s.compute.average_seconds(elements, 2);
      const double decode = s.compute.codec_seconds(x.compression + "_decode", elements);
      s.encode_s = encode;
      s.decode_s = decode;
      if (x.compress_functions) s.function_encode_s = encode / std::min(1.0, s.function_vcpus);
    } catch (const std::out_of_range& ex) {
      throw e.error("exchange", "compression", ex.what());
    }
  }

  // Training steps measured on the scenario's own targets; any other target's files are not needed here, but a
  // type the profile does not know is a typo that would silently leave its peers on the speed factor.
  for (const auto& [key, line] : e.target_calibration_lines)
    if (key.rfind("instance:", 0) == 0 && !s.profile.instance_types.count(key.substr(9)))
      throw InputError(e.path, line, "calibration/target/@instance_type",
                       "unknown instance type '" + key.substr(9) + "' (the profile " + s.profile.path + " has none)");
  for (size_t g = 0; g < e.peer_groups.size(); ++g)
    if (auto it = e.target_calibration_paths.find("instance:" + e.peer_groups[g].instance_type);
        it != e.target_calibration_paths.end())
      s.peer_groups[g].steps = ComputeModel::load(it->second);
  if (auto it = e.target_calibration_paths.find("function:" + e.functions.arch); it != e.target_calibration_paths.end())
    s.function_steps = ComputeModel::load(it->second);

  // Every step the simulation will ask for must be inside the calibration, checked now with a clear message.
  if (w.input_pipeline != "none") try {
      for (const auto& g : s.peer_groups)
        for (long long b : g.minibatches) s.compute.input_pipeline_seconds(w.input_pipeline, w.input_shape, b);
    } catch (const std::out_of_range& ex) {
      throw e.error("workload", "input_pipeline", ex.what());
    }
  try {
    // A group's peers step on its own minibatches, on its type's calibration; functions on every group's.
    std::set<long long> all_sizes;
    auto check = [&](StepTarget target, int group, long long b, Extrapolation& extrapolation) {
      s.reference_step_s(target, b, group);
      const Extrapolation x = s.step_model(target, group).step_extrapolation(w.model, w.input_shape,
                                                                             static_cast<double>(b), s.step_vcpus(target, group));
      extrapolation.threads = extrapolation.threads || x.threads;
      extrapolation.batch = extrapolation.batch || x.batch;
    };
    for (size_t g = 0; g < s.peer_groups.size(); ++g) {
      const auto& batches = s.peer_groups[g].minibatches;
      for (long long b : std::set<long long>(batches.begin(), batches.end()))
        check(StepTarget::Peer, static_cast<int>(g), b, s.peer_extrapolation);
      all_sizes.insert(batches.begin(), batches.end());
    }
    for (long long b : all_sizes) check(StepTarget::Function, 0, b, s.function_extrapolation);
    s.compute.average_seconds(static_cast<double>(s.parameters), 2);
  } catch (const BatchOutOfRange& ex) {  // the minibatches come from the one of these the experiment gives
    throw e.error("workload", w.batch_size > 0 ? "batch_size" : "minibatches_per_peer", ex.what());
  } catch (const ShapeNotCalibrated& ex) {
    throw e.error("workload", "input_shape", ex.what());
  } catch (const std::logic_error& ex) {
    throw e.error("workload", "model", ex.what());
  }
  try {  // every design that moves tensors through storage or a broker charges their (de)serialisation
    s.serialize_s(static_cast<double>(s.gradient_bytes));
    s.deserialize_s(static_cast<double>(s.gradient_bytes));
  } catch (const std::out_of_range& ex) {
    throw e.error("calibration", "files", std::string(ex.what()) +
                                             ": time them with p2psim calibrate (its serialize and deserialize "
                                             "kernels; docs/calibrating.md)");
  }

  // Memory: the largest minibatch of a peer (one after another) or of an invocation sets the peak.
  const auto& model = w.model;
  s.memory_checked = s.compute.has_memory(model, w.input_shape);
  if (s.memory_checked) {
    try {
      // Whole bytes, as measured: a fit's 1e-7 bytes of rounding noise must not move the threshold by a MB.
      auto need = [&](const std::vector<long long>& batches) {
        return std::round(s.profile.runtime_baseline_mb * kMiB +
                          s.compute.step_memory_bytes(
                              model, w.input_shape,
                              static_cast<double>(*std::max_element(batches.begin(), batches.end()))));
      };
      for (auto& g : s.peer_groups) {
        g.need_bytes = need(g.minibatches);
        for (const auto& inv : g.invocations) g.invocation_need_bytes.push_back(need(inv));
      }
    } catch (const std::logic_error& ex) {
      throw e.error("workload", "model", ex.what());
    }
  }
  s.function_memory_bytes = e.functions.memory_mb * kMiB;
  return s;
}

}  // namespace p2psim
