#include "compute_model.hpp"

#include "../util/csv_reader.hpp"
#include "../util/file_stamp.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "../util/input_error.hpp"
#include "../util/median.hpp"

namespace p2psim {
namespace {

// Samples grouped by their x value (batch size, or element count), in ascending x.
using Groups = std::map<double, std::vector<double>>;

ComputeModel::Curve make_curve(const Groups& groups) {
  ComputeModel::Curve c;
  for (const auto& [x, samples] : groups) c.xs.push_back(x), c.medians.push_back(median(samples));
  return c;
}

// The line through (x0, y0) and (x1, y1), at x.
double line_at(double x0, double y0, double x1, double y1, double x) { return y0 + (y1 - y0) * (x - x0) / (x1 - x0); }

struct Sample {
  std::string kernel, model, input_shape;
  int64_t batch = 0, n_tensors = 0, elements = 0;
  int threads = 0;
  double seconds = 0;
  int64_t peak_rss_bytes = -1, runtime_rss_bytes = -1;  // -1: not measured
  double cpu_s = -1;                                    // process CPU time during the sample; -1: not measured
  std::string file;
  long line = 0;
};

// A sample further from its configuration's median than 5 robust standard deviations (1.4826 MADs) of its
// family's log ratios to their medians, and at least 1.5x away: a disturbed measurement (another process, a
// page-cache miss), which the curve's medians ignore but the noise a run draws from would not.
constexpr double kOutlierMads = 5, kOutlierMinRatio = 1.5;

std::vector<ComputeModel::Outlier> find_outliers(const std::map<int, std::map<double, std::vector<const Sample*>>>& family) {
  std::vector<double> ratios;
  std::vector<std::pair<const Sample*, double>> samples;  // and their configuration's median
  for (const auto& [threads, groups] : family)
    for (const auto& [batch, group] : groups) {
      std::vector<double> seconds;
      for (const Sample* x : group) seconds.push_back(x->seconds);
      const double m = median(seconds);
      for (const Sample* x : group) {
        ratios.push_back(std::log(x->seconds / m));
        samples.emplace_back(x, m);
      }
    }
  const double center = median(ratios);
  std::vector<double> deviations;
  for (double r : ratios) deviations.push_back(std::abs(r - center));
  const double sigma = 1.4826 * median(deviations);
  std::vector<ComputeModel::Outlier> out;
  for (size_t i = 0; i < samples.size(); ++i)
    if (std::abs(ratios[i] - center) > kOutlierMads * sigma && std::abs(ratios[i]) > std::log(kOutlierMinRatio))
      out.push_back({samples[i].first->file, samples[i].first->line, samples[i].first->seconds, samples[i].second});
  return out;
}

std::vector<Sample> read_samples(const std::string& path) {
  std::vector<Sample> out;
  try {
    CsvReader<14> in(path);
    // Memory and CPU-time columns came later: older files without them still load (their rows carry neither).
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "kernel", "model", "num_classes",
                   "input_shape", "batch_size", "threads", "n_tensors", "elements", "payload_bytes", "repeat",
                   "seconds", "peak_rss_bytes", "runtime_rss_bytes", "cpu_s");
    for (const char* required : {"kernel", "model", "num_classes", "input_shape", "batch_size", "threads", "n_tensors",
                                 "elements", "payload_bytes", "repeat", "seconds"})
      if (!in.has_column(required)) throw InputError(path, 1, required, "column is missing");
    Sample s;
    int64_t classes = 0, payload = 0, repeat = 0;
    for (;;) {
      s.peak_rss_bytes = s.runtime_rss_bytes = -1;
      s.cpu_s = -1;
      if (!in.read_row(s.kernel, s.model, classes, s.input_shape, s.batch, s.threads, s.n_tensors, s.elements, payload,
                       repeat, s.seconds, s.peak_rss_bytes, s.runtime_rss_bytes, s.cpu_s))
        break;
      const long line = static_cast<long>(in.get_file_line());
      s.file = path;
      s.line = line;
      if (!(s.seconds > 0) || !std::isfinite(s.seconds)) throw InputError(path, line, "seconds", "must be > 0");
      if (s.threads < 1) throw InputError(path, line, "threads", "must be >= 1");
      if ((s.kernel.rfind("train_step", 0) == 0 || s.kernel == "input_pipeline") && s.batch < 1)
        throw InputError(path, line, "batch_size", "must be >= 1");
      if (s.elements < 1) throw InputError(path, line, "elements", "must be >= 1");
      out.push_back(s);
    }
  } catch (const io::error::base& e) {
    throw csv_input_error(path, e);
  }
  return out;
}

}  // namespace

ComputeModel ComputeModel::load(const std::vector<std::string>& csv_paths) {
  if (csv_paths.empty()) throw std::invalid_argument("no calibration CSV given");
  // Reading and fitting the samples is most of a small scenario's set-up, and a sweep resolves every scenario
  // twice (checked up front, then run) in processes forked from one: fitted once there, each fork inherits it.
  static FileMemo<int, ComputeModel> fitted;
  return fitted.get(csv_paths, 0, [&] { return fit(csv_paths); });
}

ComputeModel ComputeModel::fit(const std::vector<std::string>& csv_paths) {
  // (model, shape) -> threads -> batch -> samples (seconds, and CPU time / wall time); kernel -> x -> samples
  std::map<std::pair<std::string, std::string>, std::map<int, Groups>> steps, busy;
  std::map<std::string, Groups> ops;
  std::map<std::pair<std::string, std::string>, Groups> pipelines;  // (pipeline, shape) -> batch -> seconds
  // (model, shape) -> batch -> bytes, from memory-only runs and from the memory run after timed samples.
  // Memory-only runs win where both exist: the shipped timing runs keep freed memory mapped (see
  // calibration/README.md, "Allocator"), which raises the peak above what glibc's defaults give.
  std::map<std::pair<std::string, std::string>, Groups> memory, memory_with_timing;
  std::vector<std::vector<Sample>> all;  // kept for the outlier test, which names each sample's file and line
  std::map<std::pair<std::string, std::string>, std::map<int, std::map<double, std::vector<const Sample*>>>> step_samples;
  for (const auto& path : csv_paths) all.push_back(read_samples(path));
  for (const auto& samples : all)
    for (const Sample& s : samples) {
      if (s.kernel == "train_step" || s.kernel == "train_step_memory") {
        const std::pair key{s.model, s.input_shape};
        const double batch = static_cast<double>(s.batch);
        // Memory runs follow malloc_trim: their time is not a timing sample.
        if (s.kernel == "train_step") {
          steps[key][s.threads][batch].push_back(s.seconds);
          step_samples[key][s.threads][batch].push_back(&s);
          if (s.cpu_s > 0) busy[key][s.threads][batch].push_back(s.cpu_s / s.seconds);
        }
        if (s.peak_rss_bytes > 0 && s.runtime_rss_bytes > 0 && s.peak_rss_bytes > s.runtime_rss_bytes)
          (s.kernel == "train_step_memory" ? memory : memory_with_timing)[key][batch].push_back(
              static_cast<double>(s.peak_rss_bytes - s.runtime_rss_bytes));
      }
      else if (s.kernel == "input_pipeline") {
        if (s.threads == 1) pipelines[{s.model, s.input_shape}][static_cast<double>(s.batch)].push_back(s.seconds);
      }
      else if (s.threads == 1 && s.kernel == "average")
        ops["average"][static_cast<double>(s.n_tensors * s.elements)].push_back(s.seconds);
      else if (s.threads == 1)
        ops[s.kernel][static_cast<double>(s.elements)].push_back(s.seconds);
    }

  auto fits = std::make_shared<Fits>();
  for (size_t i = 0; i < csv_paths.size(); ++i)
    if (std::any_of(all[i].begin(), all[i].end(), [](const Sample& s) { return s.kernel != "train_step_memory"; }))
      fits->timing_files.push_back(csv_paths[i]);
  for (const auto& [key, by_threads] : steps) {
    auto one = by_threads.find(1);
    if (one == by_threads.end()) continue;  // the model needs 1-thread samples as its reference
    StepFit f;
    f.min_batch = one->second.begin()->first;
    f.max_batch = one->second.rbegin()->first;
    for (const auto& [threads, groups] : by_threads) {
      f.by_threads[threads] = make_curve(groups);
      for (const auto& [batch, samples] : groups) {
        const double m = median(samples);
        for (double s : samples) f.noise.push_back(s / m);
        // Faster than linear cannot be physics on one machine's cores: a disturbed 1-thread sample, say.
        if (auto base = one->second.find(batch); base != one->second.end() && threads > 1)
          f.superlinear = f.superlinear || m * threads < median(base->second);
      }
    }
    if (auto b = busy.find(key); b != busy.end())
      for (const auto& [threads, groups] : b->second) f.busy_vcpus[threads] = make_curve(groups);
    std::sort(f.noise.begin(), f.noise.end());  // order-independent of file order, for determinism
    f.outliers = find_outliers(step_samples[key]);
    for (const auto& [threads, batches] : step_samples[key])
      for (const auto& [batch, samples] : batches)
        for (const Sample* sample : samples) f.files.insert(sample->file);
    fits->steps[key] = std::move(f);
  }
  for (const auto& [kernel, groups] : ops) fits->tensor_ops[kernel] = make_curve(groups);
  for (const auto& [key, groups] : pipelines) fits->pipelines[key] = make_curve(groups);
  for (const auto& [key, groups] : memory_with_timing) fits->memory[key] = make_curve(groups);
  for (const auto& [key, groups] : memory) fits->memory[key] = make_curve(groups);
  ComputeModel cm;
  cm.fits_ = std::move(fits);
  return cm;
}

double ComputeModel::StepFit::serial_fraction(double batch) const {
  // Amdahl: t_n / t_1 = f + (1 - f) / n, i.e. (t_n / t_1 - 1/n) = f (1 - 1/n): least squares in f.
  const double t1 = by_threads.at(1)(batch);
  double num = 0, den = 0;
  for (const auto& [n, curve] : by_threads) {
    if (n == 1) continue;
    const double inv = 1.0 / n, ratio = std::clamp(curve(batch) / t1, inv, 1.0);  // capped at linear
    num += (1 - inv) * (ratio - inv);
    den += (1 - inv) * (1 - inv);
  }
  return den > 0 ? std::clamp(num / den, 0.0, 1.0) : 0.0;
}

double ComputeModel::Curve::operator()(double x) const {
  // The segment whose span holds x; below the first or above the last measured x, that end segment extended.
  if (xs.empty()) throw std::logic_error("no samples for this curve");
  if (xs.size() == 1) return medians[0];
  size_t i = std::upper_bound(xs.begin(), xs.end(), x) - xs.begin();
  i = std::min(i == 0 ? 0 : i - 1, xs.size() - 2);
  return line_at(xs[i], medians[i], xs[i + 1], medians[i + 1], x);
}

double ComputeModel::Curve::max_relative_error() const {
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) worst = std::max(worst, std::abs((*this)(xs[i]) - medians[i]) / medians[i]);
  return worst;
}

double ComputeModel::Curve::held_out_error() const {
  double worst = 0;
  for (size_t i = 1; i + 1 < xs.size(); ++i)
    worst = std::max(worst, std::abs(line_at(xs[i - 1], medians[i - 1], xs[i + 1], medians[i + 1], xs[i]) - medians[i]) /
                                medians[i]);
  return worst;
}

const ComputeModel::StepFit& ComputeModel::step_fit(const std::string& model, const std::string& input_shape) const {
  auto it = fits_->steps.find({model, input_shape});
  if (it != fits_->steps.end()) return it->second;
  std::string known, shapes;
  std::set<std::string> files;  // where the model's other shapes were timed: where this one's samples would go
  for (const auto& [key, fit] : fits_->steps) {
    known += (known.empty() ? "" : ", ") + key.first + "@" + key.second;
    if (key.first != model) continue;
    shapes += (shapes.empty() ? "" : ", ") + key.second;
    files.insert(fit.files.begin(), fit.files.end());
  }
  if (!shapes.empty()) {
    std::string in;
    for (const auto& f : files) in += (in.empty() ? "" : ", ") + f;
    throw ShapeNotCalibrated("no calibration samples for model " + model + " with input " + input_shape +
                             " (its steps were timed at " + shapes + ", in " + in + ")");
  }
  throw std::out_of_range("no calibration samples for model " + model + " with input " + input_shape +
                          " (calibrated: " + (known.empty() ? "none" : known) + ")");
}

double ComputeModel::step_seconds(const std::string& model, const std::string& input_shape, double batch,
                                  double vcpus) const {
  const StepFit& f = step_fit(model, input_shape);
  const double lo = f.min_batch / kExtrapolationFactor, hi = f.max_batch * kExtrapolationFactor;
  if (batch < lo || batch > hi)
    throw BatchOutOfRange("batch size " + std::to_string(static_cast<long long>(batch)) + " is outside what the " +
                            "calibration of " + model + "@" + input_shape + " supports (measured " +
                            std::to_string(static_cast<long long>(f.min_batch)) + ".." +
                            std::to_string(static_cast<long long>(f.max_batch)) + ", extrapolation up to 2x)");
  if (!(vcpus > 0)) throw std::invalid_argument("CPU share must be > 0");
  const double t1 = f.by_threads.at(1)(batch);
  if (!(t1 > 0)) throw BatchOutOfRange("the fit for " + model + "@" + input_shape + " is not positive at batch " +
                                         std::to_string(batch) + "; calibrate smaller batches");
  if (vcpus <= 1) return t1 / vcpus;
  if (f.max_threads() < 2)
    throw std::out_of_range("no samples with more than one thread for " + model + "@" + input_shape +
                            ": cannot model more than one vCPU");
  const double serial = f.serial_fraction(batch);
  return t1 * (serial + (1 - serial) / vcpus);
}

Extrapolation ComputeModel::step_extrapolation(const std::string& model, const std::string& input_shape,
                                               double batch, double vcpus) const {
  const StepFit& f = step_fit(model, input_shape);
  return {vcpus > f.max_threads(), batch < f.min_batch || batch > f.max_batch};
}

double ComputeModel::step_busy_vcpus(const std::string& model, const std::string& input_shape, double batch,
                                     double vcpus) const {
  const StepFit& f = step_fit(model, input_shape);
  if (f.busy_vcpus.empty()) return vcpus;  // not recorded: every vCPU counted busy, as before CPU time was
  // The busy share of the threads a step was given (CPU time / wall / threads), interpolated between measured
  // thread counts and held beyond them; a time-sliced share below one vCPU is all used.
  auto share = [&](const auto& it) { return std::clamp(it->second(batch) / it->first, 0.0, 1.0); };
  auto hi = f.busy_vcpus.lower_bound(static_cast<int>(std::ceil(vcpus)));
  if (hi == f.busy_vcpus.end()) return vcpus * share(std::prev(hi));
  if (hi == f.busy_vcpus.begin() || hi->first <= vcpus) return std::min(vcpus, 1.0 * hi->first) * share(hi);
  auto lo = std::prev(hi);
  const double w = (vcpus - lo->first) / (hi->first - lo->first);
  return vcpus * ((1 - w) * share(lo) + w * share(hi));
}

double ComputeModel::draw_step_noise(const std::string& model, const std::string& input_shape,
                                     std::uint64_t draw) const {
  const auto& noise = step_fit(model, input_shape).noise;
  // A plain modulo of a specified 64-bit draw: std::uniform_int_distribution is not specified bit for bit.
  return noise[draw % noise.size()];
}

// A curve in batch size at `batch`, which must lie within the extrapolation limits (half the smallest measured
// batch to twice the largest); `calibration` names the curve in the error.
double ComputeModel::curve_at_batch(const Curve& c, double batch, const std::string& calibration) {
  const double lo = c.xs.front() / kExtrapolationFactor, hi = c.xs.back() * kExtrapolationFactor;
  if (batch < lo || batch > hi)
    throw std::out_of_range("batch size " + std::to_string(static_cast<long long>(batch)) + " is outside " +
                            calibration);
  return std::max(0.0, c(batch));
}

double ComputeModel::step_memory_bytes(const std::string& model, const std::string& input_shape,
                                       double batch) const {
  auto it = fits_->memory.find({model, input_shape});
  if (it == fits_->memory.end())
    throw std::out_of_range("no memory samples for " + model + "@" + input_shape +
                            " (calibrate it with a p2psim that records peak_rss_bytes)");
  return curve_at_batch(it->second, batch, "the memory calibration of " + model + "@" + input_shape);
}

double ComputeModel::input_pipeline_seconds(const std::string& pipeline, const std::string& input_shape,
                                            double batch) const {
  auto it = fits_->pipelines.find({pipeline, input_shape});
  if (it == fits_->pipelines.end())
    throw std::out_of_range("no input_pipeline samples of '" + pipeline + "' for " + input_shape +
                            " (calibration/python/input_pipeline.py times them)");
  return curve_at_batch(it->second, batch,
                        "the input pipeline calibration of '" + pipeline + "' for " + input_shape);
}

bool ComputeModel::has_memory(const std::string& model, const std::string& input_shape) const {
  return fits_->memory.count({model, input_shape}) > 0;
}

double ComputeModel::average_seconds(double elements, int n) const {
  auto it = fits_->tensor_ops.find("average");
  if (it == fits_->tensor_ops.end()) throw std::out_of_range("no 'average' samples in the calibration data");
  return std::max(0.0, it->second(elements * n));
}

double ComputeModel::codec_seconds(const std::string& kernel, double elements) const {
  auto it = fits_->tensor_ops.find(kernel);
  if (it == fits_->tensor_ops.end()) throw std::out_of_range("no '" + kernel + "' samples in the calibration data");
  return std::max(0.0, it->second(elements));
}

}  // namespace p2psim
