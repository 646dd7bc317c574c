// Compute model: seconds for a training step, a gradient average or a compression kernel on a given CPU
// share, fitted to the samples `p2psim calibrate` measured with real LibTorch kernels. Torch-free.
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace p2psim {

/// t(x) = intercept + slope * x, fitted by least squares on relative error.
struct LinearFit {
  double intercept_s = 0, slope_s = 0;
  double max_relative_error = 0;  // worst |fit - median| / median over the measured points
  double operator()(double x) const { return intercept_s + slope_s * x; }
};

/// Weighted least squares (Eigen) of y = a + b x with weights 1/y^2, i.e. minimising relative error.
LinearFit fit_relative(const std::vector<double>& x, const std::vector<double>& y);

class ComputeModel {
 public:
  /// Loads calibration CSVs (the format `p2psim calibrate` writes). Throws InputError naming file, line, field.
  static ComputeModel load(const std::vector<std::string>& csv_paths);

  /// Extrapolation in batch size is allowed down to half the smallest and up to twice the largest
  /// measured batch; beyond that the fit is not trusted and step_seconds throws.
  static constexpr double kExtrapolationFactor = 2.0;

  /// Seconds for one forward + loss + backward of `model` on a batch of `batch` inputs of `input_shape`
  /// ("CxHxW") with `vcpus` CPUs of the calibration machine's speed. Below one vCPU the step is time-sliced
  /// (t1 / vcpus); above, Amdahl's law with the serial fraction fitted from the 1- and 2-thread samples.
  /// Throws std::out_of_range when the model/shape was not calibrated or the batch is beyond the limits.
  double step_seconds(const std::string& model, const std::string& input_shape, double batch, double vcpus) const;

  /// A multiplicative noise factor drawn from the measured spread of this model's samples (sample / median
  /// of its configuration), so that repeated draws reproduce the calibration machine's variability.
  double draw_step_noise(const std::string& model, const std::string& input_shape, std::mt19937_64& rng) const;

  /// Bytes one training step needs above the bare runtime (model, optimiser-free gradients, inputs and
  /// activations): measured peak RSS minus the runtime's RSS, fitted in batch size like time. Throws
  /// std::out_of_range when not measured or beyond the extrapolation limits.
  double step_memory_bytes(const std::string& model, const std::string& input_shape, double batch) const;
  bool has_memory(const std::string& model, const std::string& input_shape) const;

  /// Seconds to average `n` float32 gradients of `elements` entries (running sum, then a division), 1 thread.
  double average_seconds(double elements, int n) const;
  /// Seconds of `<codec>_encode` or `<codec>_decode` on a gradient of `elements` entries, 1 thread.
  double codec_seconds(const std::string& kernel, double elements) const;

  /// Seconds against batch size: a least-squares line through the samples of each pair of adjacent measured
  /// batch sizes (so measured points are honoured even where the curve bends), the end segments extended.
  struct Curve {
    std::vector<double> batches;       // measured batch sizes, ascending
    std::vector<LinearFit> segments;   // segments[i] spans batches[i]..batches[i+1]; one constant if one batch
    double operator()(double batch) const;
    double max_relative_error() const;
  };
  struct StepFit {
    Curve one_thread, two_threads;
    bool has_two_threads = false;
    double min_batch = 0, max_batch = 0;
    std::vector<double> noise;  // sample / configuration median, over every sample
  };
  const std::map<std::pair<std::string, std::string>, StepFit>& step_fits() const { return steps_; }

 private:
  const StepFit& step_fit(const std::string& model, const std::string& input_shape) const;
  std::map<std::pair<std::string, std::string>, StepFit> steps_;  // (model, input shape) -> fit
  std::map<std::string, LinearFit> tensor_ops_;                    // kernel -> fit in elements (or n*elements)
  std::map<std::pair<std::string, std::string>, Curve> memory_;    // (model, input shape) -> bytes vs batch
};

}  // namespace p2psim
