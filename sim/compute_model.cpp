#include "compute_model.hpp"

#include "csv_reader.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "input_error.hpp"

namespace p2psim {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Samples grouped by their x value (batch size, or element count), in ascending x.
using Groups = std::map<double, std::vector<double>>;

LinearFit fit_groups(const Groups& groups) {
  std::vector<double> x, y;
  for (const auto& [xv, samples] : groups)
    for (double s : samples) x.push_back(xv), y.push_back(s);
  LinearFit fit = fit_relative(x, y);
  for (const auto& [xv, samples] : groups) {
    const double m = median(samples);
    fit.max_relative_error = std::max(fit.max_relative_error, std::abs(fit(xv) - m) / m);
  }
  return fit;
}

ComputeModel::Curve make_curve(const Groups& groups) {
  ComputeModel::Curve c;
  for (const auto& [x, samples] : groups) c.batches.push_back(x);
  if (groups.size() == 1) c.segments.push_back(fit_groups(groups));
  for (auto it = groups.begin(); std::next(it) != groups.end(); ++it) {
    Groups pair{*it, *std::next(it)};
    c.segments.push_back(fit_groups(pair));
  }
  return c;
}

struct Sample {
  std::string kernel, model, input_shape;
  int64_t batch = 0, n_tensors = 0, elements = 0;
  int threads = 0;
  double seconds = 0;
  int64_t peak_rss_bytes = -1, runtime_rss_bytes = -1;  // -1: not measured
};

std::vector<Sample> read_samples(const std::string& path) {
  std::vector<Sample> out;
  try {
    CsvReader<13> in(path);
    // Memory columns came later: older files without them still load (their rows carry no memory).
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "kernel", "model", "num_classes",
                   "input_shape", "batch_size", "threads", "n_tensors", "elements", "payload_bytes", "repeat",
                   "seconds", "peak_rss_bytes", "runtime_rss_bytes");
    for (const char* required : {"kernel", "model", "num_classes", "input_shape", "batch_size", "threads", "n_tensors",
                                 "elements", "payload_bytes", "repeat", "seconds"})
      if (!in.has_column(required)) throw InputError(path, 1, required, "column is missing");
    Sample s;
    int64_t classes = 0, payload = 0, repeat = 0;
    for (;;) {
      s.peak_rss_bytes = s.runtime_rss_bytes = -1;
      if (!in.read_row(s.kernel, s.model, classes, s.input_shape, s.batch, s.threads, s.n_tensors, s.elements, payload,
                       repeat, s.seconds, s.peak_rss_bytes, s.runtime_rss_bytes))
        break;
      const long line = static_cast<long>(in.get_file_line());
      if (!(s.seconds > 0) || !std::isfinite(s.seconds)) throw InputError(path, line, "seconds", "must be > 0");
      if (s.threads < 1) throw InputError(path, line, "threads", "must be >= 1");
      if (s.kernel.rfind("train_step", 0) == 0 && s.batch < 1)
        throw InputError(path, line, "batch_size", "must be >= 1");
      if (s.elements < 1) throw InputError(path, line, "elements", "must be >= 1");
      out.push_back(s);
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, "", e.what());
  }
  return out;
}

}  // namespace

LinearFit fit_relative(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.empty()) throw std::invalid_argument("fit_relative: need matching, non-empty data");
  const Eigen::Index n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = 1.0 / y[i];  // relative error: divide each equation by its observation
    a(i, 0) = w;
    a(i, 1) = w * x[i];
    b(i) = 1.0;
  }
  bool single_x = std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; });
  LinearFit fit;
  if (single_x) {  // one configuration measured: a constant, no slope can be identified
    fit.intercept_s = median(y);
    return fit;
  }
  Eigen::Vector2d coef = a.colPivHouseholderQr().solve(b);
  fit.intercept_s = coef(0);
  fit.slope_s = coef(1);
  return fit;
}

ComputeModel ComputeModel::load(const std::vector<std::string>& csv_paths) {
  if (csv_paths.empty()) throw std::invalid_argument("no calibration CSV given");
  // (model, shape) -> threads -> batch -> samples; kernel -> x -> samples
  std::map<std::pair<std::string, std::string>, std::map<int, Groups>> steps;
  std::map<std::string, Groups> ops;
  std::map<std::pair<std::string, std::string>, Groups> memory;  // (model, shape) -> batch -> bytes
  for (const auto& path : csv_paths)
    for (const Sample& s : read_samples(path)) {
      if (s.kernel == "train_step" || s.kernel == "train_step_memory") {
        // Memory runs follow malloc_trim: their time is not a timing sample.
        if (s.kernel == "train_step")
          steps[{s.model, s.input_shape}][s.threads][static_cast<double>(s.batch)].push_back(s.seconds);
        if (s.peak_rss_bytes > 0 && s.runtime_rss_bytes > 0 && s.peak_rss_bytes > s.runtime_rss_bytes)
          memory[{s.model, s.input_shape}][static_cast<double>(s.batch)].push_back(
              static_cast<double>(s.peak_rss_bytes - s.runtime_rss_bytes));
      }
      else if (s.threads == 1 && s.kernel == "average")
        ops["average"][static_cast<double>(s.n_tensors * s.elements)].push_back(s.seconds);
      else if (s.threads == 1)
        ops[s.kernel][static_cast<double>(s.elements)].push_back(s.seconds);
    }

  ComputeModel cm;
  for (const auto& [key, by_threads] : steps) {
    auto one = by_threads.find(1);
    if (one == by_threads.end()) continue;  // the model needs 1-thread samples as its reference
    StepFit f;
    f.one_thread = make_curve(one->second);
    f.min_batch = one->second.begin()->first;
    f.max_batch = one->second.rbegin()->first;
    if (auto two = by_threads.find(2); two != by_threads.end()) {
      f.two_threads = make_curve(two->second);
      f.has_two_threads = true;
    }
    for (const auto& [threads, groups] : by_threads)
      for (const auto& [batch, samples] : groups) {
        const double m = median(samples);
        for (double s : samples) f.noise.push_back(s / m);
      }
    std::sort(f.noise.begin(), f.noise.end());  // order-independent of file order, for determinism
    cm.steps_[key] = std::move(f);
  }
  for (const auto& [kernel, groups] : ops) cm.tensor_ops_[kernel] = fit_groups(groups);
  for (const auto& [key, groups] : memory) cm.memory_[key] = make_curve(groups);
  return cm;
}

double ComputeModel::Curve::operator()(double batch) const {
  // The segment whose span holds the batch; below the first or above the last, that end segment extended.
  if (segments.empty()) throw std::logic_error("no samples for this curve");
  size_t i = std::upper_bound(batches.begin(), batches.end(), batch) - batches.begin();
  i = std::min(i == 0 ? 0 : i - 1, segments.size() - 1);
  return segments[i](batch);
}

double ComputeModel::Curve::max_relative_error() const {
  double worst = 0;
  for (const auto& s : segments) worst = std::max(worst, s.max_relative_error);
  return worst;
}

const ComputeModel::StepFit& ComputeModel::step_fit(const std::string& model, const std::string& input_shape) const {
  auto it = steps_.find({model, input_shape});
  if (it != steps_.end()) return it->second;
  std::string known;
  for (const auto& [key, fit] : steps_) known += (known.empty() ? "" : ", ") + key.first + "@" + key.second;
  throw std::out_of_range("no calibration samples for model " + model + " with input " + input_shape +
                          " (calibrated: " + (known.empty() ? "none" : known) + ")");
}

double ComputeModel::step_seconds(const std::string& model, const std::string& input_shape, double batch,
                                  double vcpus) const {
  const StepFit& f = step_fit(model, input_shape);
  const double lo = f.min_batch / kExtrapolationFactor, hi = f.max_batch * kExtrapolationFactor;
  if (batch < lo || batch > hi)
    throw std::out_of_range("batch size " + std::to_string(static_cast<long long>(batch)) + " is outside what the " +
                            "calibration of " + model + "@" + input_shape + " supports (measured " +
                            std::to_string(static_cast<long long>(f.min_batch)) + ".." +
                            std::to_string(static_cast<long long>(f.max_batch)) + ", extrapolation up to 2x)");
  if (!(vcpus > 0)) throw std::invalid_argument("CPU share must be > 0");
  const double t1 = f.one_thread(batch);
  if (!(t1 > 0)) throw std::out_of_range("the fit for " + model + "@" + input_shape + " is not positive at batch " +
                                         std::to_string(batch) + "; calibrate smaller batches");
  if (vcpus <= 1) return t1 / vcpus;
  if (!f.has_two_threads)
    throw std::out_of_range("no 2-thread samples for " + model + "@" + input_shape +
                            ": cannot model more than one vCPU");
  // Amdahl: t2 = t1 (f + (1 - f) / 2)  =>  f = 2 t2 / t1 - 1, clamped to a physical [0, 1].
  const double serial = std::clamp(2 * f.two_threads(batch) / t1 - 1, 0.0, 1.0);
  return t1 * (serial + (1 - serial) / vcpus);
}

double ComputeModel::draw_step_noise(const std::string& model, const std::string& input_shape,
                                     std::mt19937_64& rng) const {
  const auto& noise = step_fit(model, input_shape).noise;
  // rng() is specified bit-for-bit by the standard; std::uniform_int_distribution is not.
  return noise[rng() % noise.size()];
}

double ComputeModel::step_memory_bytes(const std::string& model, const std::string& input_shape,
                                       double batch) const {
  auto it = memory_.find({model, input_shape});
  if (it == memory_.end())
    throw std::out_of_range("no memory samples for " + model + "@" + input_shape +
                            " (calibrate it with a p2psim that records peak_rss_bytes)");
  const Curve& c = it->second;
  const double lo = c.batches.front() / kExtrapolationFactor, hi = c.batches.back() * kExtrapolationFactor;
  if (batch < lo || batch > hi)
    throw std::out_of_range("batch size " + std::to_string(static_cast<long long>(batch)) +
                            " is outside the memory calibration of " + model + "@" + input_shape);
  return std::max(0.0, c(batch));
}

bool ComputeModel::has_memory(const std::string& model, const std::string& input_shape) const {
  return memory_.count({model, input_shape}) > 0;
}

double ComputeModel::average_seconds(double elements, int n) const {
  auto it = tensor_ops_.find("average");
  if (it == tensor_ops_.end()) throw std::out_of_range("no 'average' samples in the calibration data");
  return std::max(0.0, it->second(elements * n));
}

double ComputeModel::codec_seconds(const std::string& kernel, double elements) const {
  auto it = tensor_ops_.find(kernel);
  if (it == tensor_ops_.end()) throw std::out_of_range("no '" + kernel + "' samples in the calibration data");
  return std::max(0.0, it->second(elements));
}

}  // namespace p2psim
