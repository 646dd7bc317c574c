// Compute model: seconds for a training step, a gradient average or a compression kernel on a given CPU
// share, fitted to the samples `p2psim calibrate` measured with real LibTorch kernels. Torch-free.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace p2psim {

/// A step asked for at a batch size its calibration cannot answer: the batch's fault, not the model's.
struct BatchOutOfRange : std::out_of_range {
  using std::out_of_range::out_of_range;
};
/// The model's steps were timed, but not at the input shape asked for: the shape is what to change.
struct ShapeNotCalibrated : std::out_of_range {
  using std::out_of_range::out_of_range;
};

/// How far a prediction reaches beyond the calibration data; results report it so nobody mistakes an
/// extrapolation for a measurement.
struct Extrapolation {
  bool threads = false;  // more vCPUs than the largest measured thread count (Amdahl's law carried beyond)
  bool batch = false;    // a batch outside the measured range (the end segment extended, at most 2x)
  bool any() const { return threads || batch; }
};

class ComputeModel {
 public:
  /// Loads calibration CSVs (the format `p2psim calibrate` writes). Throws InputError naming file, line, field.
  /// A process fits the same unchanged files once (same paths, sizes and modification times).
  static ComputeModel load(const std::vector<std::string>& csv_paths);

  /// Extrapolation in batch size is allowed down to half the smallest and up to twice the largest
  /// measured batch; beyond that the fit is not trusted and step_seconds throws.
  static constexpr double kExtrapolationFactor = 2.0;

  /// Seconds for one forward + loss + backward of `model` on a batch of `batch` inputs of `input_shape`
  /// ("CxHxW") with `vcpus` CPUs of the calibration machine's speed. Below one vCPU the step is time-sliced
  /// (t1 / vcpus); above, Amdahl's law with the serial fraction fitted to every measured thread count.
  /// Throws std::out_of_range when the model/shape was not calibrated or the batch is beyond the limits.
  double step_seconds(const std::string& model, const std::string& input_shape, double batch, double vcpus) const;

  /// Whether step_seconds(model, input_shape, batch, vcpus) extrapolates, and in which way.
  Extrapolation step_extrapolation(const std::string& model, const std::string& input_shape, double batch,
                                   double vcpus) const;

  /// vCPUs a step on `vcpus` CPUs keeps busy: its process CPU time / wall time, as measured (all of them when
  /// the calibration did not record CPU time). Burstable instances spend credits by this, not by vcpus.
  double step_busy_vcpus(const std::string& model, const std::string& input_shape, double batch,
                         double vcpus) const;

  /// A multiplicative noise factor drawn from the measured spread of this model's samples (sample / median
  /// of its configuration), so that repeated draws reproduce the calibration machine's variability.
  double draw_step_noise(const std::string& model, const std::string& input_shape, std::uint64_t draw) const;

  /// Bytes one training step needs above the bare runtime (model, optimiser-free gradients, inputs and
  /// activations): measured peak RSS minus the runtime's RSS, fitted in batch size like time. Throws
  /// std::out_of_range when not measured or beyond the extrapolation limits.
  double step_memory_bytes(const std::string& model, const std::string& input_shape, double batch) const;
  bool has_memory(const std::string& model, const std::string& input_shape) const;

  /// Seconds one thread of the calibration CPU takes to turn `batch` samples of `input_shape` into a batch of
  /// tensors with input pipeline `pipeline` ("to_tensor": a PyTorch DataLoader's dataset step, ToTensor and
  /// collate; calibration/python/input_pipeline.py). Throws std::out_of_range when not calibrated or when the
  /// batch is beyond the extrapolation limits of training steps.
  double input_pipeline_seconds(const std::string& pipeline, const std::string& input_shape, double batch) const;

  /// Seconds to average `n` float32 gradients of `elements` entries (running sum, then a division), 1 thread.
  double average_seconds(double elements, int n) const;
  /// Seconds of `<codec>_encode` or `<codec>_decode` on a gradient of `elements` entries, 1 thread.
  double codec_seconds(const std::string& kernel, double elements) const;

  /// A piecewise-linear curve through the median sample of every measured x (batch size, or tensor elements),
  /// so measured points are honoured even where the time bends (caches, allocator); the end segments extended.
  /// Medians, not a least-squares line: one disturbed sample cannot move the curve.
  struct Curve {
    std::vector<double> xs, medians;  // measured x values, ascending, and the median sample at each
    double operator()(double x) const;
    double max_relative_error() const;  // worst |curve - median| / median over the measured points
    /// Worst error predicting each interior measured point from its two neighbours alone: how far the curve
    /// can be off between measured points (0 with fewer than three points).
    double held_out_error() const;
  };
  /// A training-step sample far from its configuration's median (compute_model.cpp: 5 robust standard
  /// deviations of its family, and 1.5x): flagged by `fit` and by `run`, not removed.
  struct Outlier {
    std::string file;
    long line = 0;
    double seconds = 0, median_s = 0;
  };
  struct StepFit {
    std::map<int, Curve> by_threads;   // thread count -> seconds against batch; 1 thread always present
    std::map<int, Curve> busy_vcpus;   // thread count -> CPU time / wall time against batch (when recorded)
    double min_batch = 0, max_batch = 0;
    std::vector<double> noise;         // sample / configuration median, over every sample
    bool superlinear = false;          // some measured speed-up beat linear: taken as measurement error
    std::vector<Outlier> outliers;     // samples far from their configuration's median
    std::set<std::string> files;       // the calibration files that hold its timed samples
    int max_threads() const { return by_threads.rbegin()->first; }
    /// Amdahl's serial fraction at `batch`, least squares over every measured thread count above one, each
    /// speed-up first capped at linear. 0 when only one thread was measured.
    double serial_fraction(double batch) const;
  };
  const std::map<std::pair<std::string, std::string>, StepFit>& step_fits() const { return fits_->steps; }
  const std::map<std::string, Curve>& tensor_op_fits() const { return fits_->tensor_ops; }
  const std::map<std::pair<std::string, std::string>, Curve>& memory_fits() const { return fits_->memory; }
  const std::map<std::pair<std::string, std::string>, Curve>& input_pipeline_fits() const { return fits_->pipelines; }
  /// The calibration files that hold timing samples, as given to load(): their times are one CPU's, which the
  /// profile's speed factors are relative to. Files of memory runs only are left out (memory is not scaled).
  const std::vector<std::string>& timing_files() const { return fits_->timing_files; }

 private:
  static ComputeModel fit(const std::vector<std::string>& csv_paths);  // load, without the process's memo
  static double curve_at_batch(const Curve& c, double batch, const std::string& calibration);
  const StepFit& step_fit(const std::string& model, const std::string& input_shape) const;
  struct Fits {
    std::map<std::pair<std::string, std::string>, StepFit> steps;  // (model, input shape) -> fit
    std::map<std::string, Curve> tensor_ops;                        // kernel -> fit in elements (or n*elements)
    std::map<std::pair<std::string, std::string>, Curve> memory;    // (model, input shape) -> bytes vs batch
    std::map<std::pair<std::string, std::string>, Curve> pipelines;  // (pipeline, input shape) -> s vs batch
    std::vector<std::string> timing_files;  // the files that hold timing samples (not only memory runs)
  };
  // Shared and never changed once fitted: a scenario's copy of the process's fitted model costs a pointer, not
  // a copy of every curve (it was 2.7 % of the paper grid's CPU: bench/README.md, "A ninth pass").
  std::shared_ptr<const Fits> fits_ = std::make_shared<const Fits>();
};

}  // namespace p2psim
