// The compute model on small hand-made calibration CSVs.
#include <doctest/doctest.h>

#include <fstream>

#include "codec.hpp"
#include "compute_model.hpp"
#include "csv_reader.hpp"
#include "input_error.hpp"
#include "temp_dir.hpp"

using namespace p2psim;

namespace {
const char* kHeader =
    "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds\n";

// One-thread step times exactly 0.1 + 0.01 b; two threads with serial fraction 0.2: t2 = t1 (0.2 + 0.8/2) = 0.6 t1.
std::string hand_made_csv(const TempDir& dir) {
  std::ofstream out(dir.path("cal.csv"));
  out << kHeader;
  for (int b : {16, 32, 64, 128}) {
    const double t1 = 0.1 + 0.01 * b;
    out << "train_step,net,10,3x8x8," << b << ",1,0,100,400,0," << t1 << "\n";
    out << "train_step,net,10,3x8x8," << b << ",2,0,100,400,0," << 0.6 * t1 << "\n";
  }
  // Averaging: 0.001 + 1e-9 s per (n * elements); one codec: 2e-9 s per element.
  for (int n : {2, 4, 8})
    out << "average,net,10,,0,1,"  << n << ",1000000,4000000,0," << 0.001 + 1e-9 * n * 1e6 << "\n";
  for (int e : {1000000, 4000000}) out << "fp16_encode,net,10,,0,1,1," << e << ",0,0," << 2e-9 * e << "\n";
  return dir.path("cal.csv");
}
}  // namespace

TEST_CASE("least squares recovers an exact line") {
  auto fit = fit_relative({1, 2, 4, 8}, {1.5, 2.0, 3.0, 5.0});
  CHECK(fit.intercept_s == doctest::Approx(1.0));
  CHECK(fit.slope_s == doctest::Approx(0.5));
}

TEST_CASE("step time at measured and unmeasured CPU shares") {
  TempDir dir;
  auto cm = ComputeModel::load({hand_made_csv(dir)});
  CHECK(cm.step_seconds("net", "3x8x8", 64, 1) == doctest::Approx(0.74));
  CHECK(cm.step_seconds("net", "3x8x8", 100, 1) == doctest::Approx(1.1));  // interpolated batch
  CHECK(cm.step_seconds("net", "3x8x8", 64, 2) == doctest::Approx(0.6 * 0.74));
  // Half a vCPU is time-sliced: twice as long. Below one vCPU, doubling memory halves the time.
  CHECK(cm.step_seconds("net", "3x8x8", 64, 0.5) == doctest::Approx(1.48));
  CHECK(cm.step_seconds("net", "3x8x8", 64, 0.25) == doctest::Approx(2 * cm.step_seconds("net", "3x8x8", 64, 0.5)));
  // Amdahl with serial fraction 0.2 at 4 vCPUs: 0.2 + 0.8/4 = 0.4.
  CHECK(cm.step_seconds("net", "3x8x8", 64, 4) == doctest::Approx(0.4 * 0.74));
}

TEST_CASE("where the time bends, each measured point is honoured and the end segments are extended") {
  TempDir dir;
  std::ofstream out(dir.path("bend.csv"));
  out << kHeader;
  for (auto [b, t] : {std::pair{16, 1.0}, std::pair{32, 2.0}, std::pair{64, 8.0}})
    for (int r = 0; r < 2; ++r) out << "train_step,net,10,3x8x8," << b << ",1,0,100,400," << r << "," << t << "\n";
  out.close();
  auto cm = ComputeModel::load({dir.path("bend.csv")});
  CHECK(cm.step_seconds("net", "3x8x8", 32, 1) == doctest::Approx(2.0));
  CHECK(cm.step_seconds("net", "3x8x8", 48, 1) == doctest::Approx(5.0));
  CHECK(cm.step_seconds("net", "3x8x8", 128, 1) == doctest::Approx(20.0));  // 8 + (6 / 32) * 64
  CHECK(cm.step_seconds("net", "3x8x8", 8, 1) == doctest::Approx(0.5));
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x8x8", 32, 2), doctest::Contains("no 2-thread samples"),
                       std::out_of_range);
}

TEST_CASE("extrapolation in batch size stops at twice the measured range") {
  TempDir dir;
  auto cm = ComputeModel::load({hand_made_csv(dir)});
  CHECK(cm.step_seconds("net", "3x8x8", 256, 1) == doctest::Approx(2.66));
  CHECK(cm.step_seconds("net", "3x8x8", 8, 1) == doctest::Approx(0.18));
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x8x8", 257, 1), doctest::Contains("measured 16..128"),
                       std::out_of_range);
  CHECK_THROWS_AS(cm.step_seconds("net", "3x8x8", 7, 1), std::out_of_range);
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x9x9", 64, 1), doctest::Contains("calibrated: net@3x8x8"),
                       std::out_of_range);
}

TEST_CASE("tensor-op times are linear in the elements processed") {
  TempDir dir;
  auto cm = ComputeModel::load({hand_made_csv(dir)});
  CHECK(cm.average_seconds(1e6, 16) == doctest::Approx(0.001 + 0.016));
  CHECK(cm.codec_seconds("fp16_encode", 2e6) == doctest::Approx(0.004));
  CHECK_THROWS_AS(cm.codec_seconds("topk_encode", 2e6), std::out_of_range);
}

TEST_CASE("variability draws come from the measured spread and repeat with the seed") {
  TempDir dir;
  std::ofstream out(dir.path("noisy.csv"));
  out << kHeader;
  const double samples[] = {1.0, 1.1, 0.9, 1.3, 1.0};
  for (int r = 0; r < 5; ++r) {
    out << "train_step,net,10,3x8x8,16,1,0,100,400," << r << "," << samples[r] << "\n";
    out << "train_step,net,10,3x8x8,32,1,0,100,400," << r << "," << 2 * samples[r] << "\n";
  }
  out.close();
  auto cm = ComputeModel::load({dir.path("noisy.csv")});
  std::mt19937_64 a(42), b(42);
  for (int i = 0; i < 50; ++i) {
    const double d = cm.draw_step_noise("net", "3x8x8", a);
    CHECK(d == cm.draw_step_noise("net", "3x8x8", b));
    CHECK(d >= 0.9 - 1e-12);
    CHECK(d <= 1.3 + 1e-12);
  }
}

TEST_CASE("malformed calibration files name the file, line and field") {
  TempDir dir;
  std::ofstream(dir.path("neg.csv")) << kHeader << "train_step,net,10,3x8x8,16,1,0,100,400,0,0.5\n"
                                     << "train_step,net,10,3x8x8,32,1,0,100,400,0,-1\n";
  CHECK_THROWS_WITH_AS(ComputeModel::load({dir.path("neg.csv")}),
                       doctest::Contains("neg.csv:3: field 'seconds': must be > 0"), InputError);
  std::ofstream(dir.path("text.csv")) << kHeader << "train_step,net,10,3x8x8,sixteen,1,0,100,400,0,0.5\n";
  CHECK_THROWS_WITH_AS(ComputeModel::load({dir.path("text.csv")}), doctest::Contains("sixteen"), InputError);
  std::ofstream(dir.path("cols.csv")) << "kernel,model\ntrain_step,net\n";
  CHECK_THROWS_WITH_AS(ComputeModel::load({dir.path("cols.csv")}), doctest::Contains("num_classes"), InputError);
  CHECK_THROWS_AS(ComputeModel::load({dir.path("absent.csv")}), InputError);
}

TEST_CASE("the simulator's message sizes equal the payloads the calibration measured on real tensors") {
  // Every codec row of the shipped tensor_ops.csv: the bytes models/compression.cpp produced.
  CsvReader<4> in(P2PSIM_SOURCE_DIR "/calibration/kernels/tensor_ops.csv");
  in.read_header(io::ignore_extra_column, "kernel", "elements", "payload_bytes", "model");
  std::string kernel, model;
  long long elements = 0, payload = 0;
  int checked = 0;
  while (in.read_row(kernel, elements, payload, model)) {
    if (kernel.size() < 7 || kernel.compare(kernel.size() - 7, 7, "_encode") != 0) continue;
    CAPTURE(kernel);
    CAPTURE(model);
    CHECK(encoded_bytes(kernel.substr(0, kernel.size() - 7), static_cast<double>(elements), 0.01) ==
          static_cast<double>(payload));
    ++checked;
  }
  CHECK(checked >= 4 * 7);
}
