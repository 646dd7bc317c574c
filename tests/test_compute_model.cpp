// The compute model on small hand-made calibration CSVs.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "compute/codec.hpp"
#include "compute/compute_model.hpp"
#include "temp_dir.hpp"
#include "util/csv_reader.hpp"
#include "util/input_error.hpp"
#include "util/read_text.hpp"

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
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x8x8", 32, 2), doctest::Contains("no samples with more than one thread"),
                       std::out_of_range);
}

TEST_CASE("extrapolation in batch size stops at twice the measured range") {
  TempDir dir;
  const std::string csv = hand_made_csv(dir);
  auto cm = ComputeModel::load({csv});
  CHECK(cm.step_seconds("net", "3x8x8", 256, 1) == doctest::Approx(2.66));
  CHECK(cm.step_seconds("net", "3x8x8", 8, 1) == doctest::Approx(0.18));
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x8x8", 257, 1), doctest::Contains("measured 16..128"),
                       std::out_of_range);
  CHECK_THROWS_AS(cm.step_seconds("net", "3x8x8", 7, 1), std::out_of_range);
  // Another shape of a model that was timed: the shape is to change (ShapeNotCalibrated), with the ones timed
  // and the file that holds them (where samples of the new shape would go).
  CHECK_THROWS_WITH_AS(cm.step_seconds("net", "3x9x9", 64, 1),
                       doctest::Contains(("its steps were timed at 3x8x8, in " + csv + ")").c_str()), ShapeNotCalibrated);
  // A model timed at no shape: every pair calibrated is named.
  CHECK_THROWS_WITH_AS(cm.step_seconds("other", "3x8x8", 64, 1), doctest::Contains("calibrated: net@3x8x8"),
                       std::out_of_range);
}

TEST_CASE("tensor-op times are interpolated in the elements processed") {
  TempDir dir;
  auto cm = ComputeModel::load({hand_made_csv(dir)});
  CHECK(cm.average_seconds(1e6, 16) == doctest::Approx(0.001 + 0.016));
  CHECK(cm.codec_seconds("fp16_encode", 2e6) == doctest::Approx(0.004));
  CHECK_THROWS_AS(cm.codec_seconds("topk_encode", 2e6), std::out_of_range);
}

TEST_CASE("variability draws come from the measured spread: a draw picks one measured ratio, the same each time") {
  TempDir dir;
  std::ofstream out(dir.path("noisy.csv"));
  out << kHeader;
  const double samples[] = {1.0, 1.1, 0.9, 1.3, 1.0};  // median 1.0: the ratios are the samples themselves
  for (int r = 0; r < 5; ++r) {
    out << "train_step,net,10,3x8x8,16,1,0,100,400," << r << "," << samples[r] << "\n";
    out << "train_step,net,10,3x8x8,32,1,0,100,400," << r << "," << 2 * samples[r] << "\n";
  }
  out.close();
  auto cm = ComputeModel::load({dir.path("noisy.csv")});
  std::set<long> picked;  // in thousandths
  for (std::uint64_t draw : {0ULL, 1ULL, 2ULL, 3ULL, 4ULL, 5ULL, 6ULL, 7ULL, 8ULL, 9ULL, 0xffffffffffffffffULL}) {
    const double d = cm.draw_step_noise("net", "3x8x8", draw);
    CHECK(d == cm.draw_step_noise("net", "3x8x8", draw));
    picked.insert(std::lround(d * 1000));
  }
  CHECK(picked == std::set<long>{900, 1000, 1100, 1300});
}

TEST_CASE("a process fits a calibration file once, and again once the file changes") {
  TempDir dir;
  const std::string csv = hand_made_csv(dir);
  const auto fitted = ComputeModel::load({csv});
  CHECK(fitted.step_fits().count({"net", "3x8x8"}) == 1);
  // The same bytes renamed "neu": as long as the file's size and modification time are the old ones, the load
  // is the first fit (the file is not read again); a newer modification time reads it again.
  const auto modified = std::filesystem::last_write_time(csv);
  std::string text = read_text(csv);
  for (size_t at = text.find("train_step,net,"); at != std::string::npos; at = text.find("train_step,net,", at))
    text.replace(at + 13, 1, "u");
  std::ofstream(csv) << text;
  std::filesystem::last_write_time(csv, modified);
  CHECK(ComputeModel::load({csv}).step_fits().count({"net", "3x8x8"}) == 1);
  std::filesystem::last_write_time(csv, modified + std::chrono::seconds(1));
  const auto refitted = ComputeModel::load({csv});
  CHECK(refitted.step_fits().count({"net", "3x8x8"}) == 0);
  CHECK(refitted.step_fits().count({"neu", "3x8x8"}) == 1);
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

namespace {
const char* kHeaderWithCpu =
    "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds,"
    "foreign_cpu_share,peak_rss_bytes,runtime_rss_bytes,cpu_s\n";
}  // namespace

TEST_CASE("the serial fraction comes from every measured thread count, and speed-ups beyond linear are capped") {
  TempDir dir;
  // Amdahl with serial fraction 0.3: t_n = t1 (0.3 + 0.7 / n), measured at 1, 2 and 4 threads.
  std::ofstream out(dir.path("threads.csv"));
  out << kHeader;
  for (int b : {16, 32})
    for (int n : {1, 2, 4})
      out << "train_step,net,10,3x8x8," << b << "," << n << ",0,100,400,0," << 1.0 * (0.3 + 0.7 / n) << "\n";
  // A second model whose 2-thread sample is 2.5x faster than one thread: faster than linear.
  for (int b : {16, 32}) {
    out << "train_step,fast,10,3x8x8," << b << ",1,0,100,400,0,1.0\n";
    out << "train_step,fast,10,3x8x8," << b << ",2,0,100,400,0,0.4\n";
  }
  out.close();
  auto cm = ComputeModel::load({dir.path("threads.csv")});
  const auto& net = cm.step_fits().at({"net", "3x8x8"});
  CHECK(net.serial_fraction(24) == doctest::Approx(0.3));
  CHECK(net.max_threads() == 4);
  CHECK_FALSE(net.superlinear);
  CHECK(cm.step_seconds("net", "3x8x8", 16, 8) == doctest::Approx(0.3 + 0.7 / 8));
  CHECK(cm.step_extrapolation("net", "3x8x8", 16, 8).threads);
  CHECK_FALSE(cm.step_extrapolation("net", "3x8x8", 16, 4).threads);
  CHECK_FALSE(cm.step_extrapolation("net", "3x8x8", 16, 4).batch);
  CHECK(cm.step_extrapolation("net", "3x8x8", 40, 1).batch);
  // Capped at linear: 2 threads give at most 2x, 6 vCPUs at most 6x, never the measured 2.5x.
  const auto& fast = cm.step_fits().at({"fast", "3x8x8"});
  CHECK(fast.superlinear);
  CHECK(fast.serial_fraction(16) == doctest::Approx(0.0));
  CHECK(cm.step_seconds("fast", "3x8x8", 16, 2) == doctest::Approx(0.5));
  CHECK(cm.step_seconds("fast", "3x8x8", 16, 6) == doctest::Approx(1.0 / 6));
}

TEST_CASE("busy vCPUs of a step come from its measured CPU time, interpolated between thread counts") {
  TempDir dir;
  std::ofstream out(dir.path("busy.csv"));
  out << kHeaderWithCpu;
  // 1 thread keeps 1 CPU busy; 2 threads keep 1.2 busy (a step that barely parallelises).
  for (int b : {16, 32}) {
    out << "train_step,net,10,3x8x8," << b << ",1,0,100,400,0,1.0,0,-1,-1,1.0\n";
    out << "train_step,net,10,3x8x8," << b << ",2,0,100,400,0,0.9,0,-1,-1," << 0.9 * 1.2 << "\n";
  }
  out.close();
  auto cm = ComputeModel::load({dir.path("busy.csv")});
  CHECK(cm.step_busy_vcpus("net", "3x8x8", 16, 1) == doctest::Approx(1.0));
  CHECK(cm.step_busy_vcpus("net", "3x8x8", 16, 2) == doctest::Approx(1.2));
  CHECK(cm.step_busy_vcpus("net", "3x8x8", 16, 0.5) == doctest::Approx(0.5));
  // 1.5 vCPUs: busy share 1.0 at 1 thread, 0.6 at 2, halfway: 0.8 x 1.5.
  CHECK(cm.step_busy_vcpus("net", "3x8x8", 16, 1.5) == doctest::Approx(1.2));
  // Beyond the measured threads the last busy share holds: 0.6 x 4.
  CHECK(cm.step_busy_vcpus("net", "3x8x8", 16, 4) == doctest::Approx(2.4));
  // Without CPU time in the file, every vCPU counts as busy.
  auto hand = ComputeModel::load({hand_made_csv(dir)});
  CHECK(hand.step_busy_vcpus("net", "3x8x8", 16, 2) == doctest::Approx(2.0));
}

TEST_CASE("tensor-op fits honour every measured size where the time per element changes (caches)") {
  TempDir dir;
  std::ofstream out(dir.path("ops.csv"));
  out << kHeader;
  // Small tensors fit in cache (1 ns per element), large ones stream from memory (4 ns per element).
  const std::pair<double, double> points[] = {{1e5, 1e-4}, {1e6, 1e-3}, {1e7, 4e-2}, {1e8, 4e-1}};
  for (auto [elements, seconds] : points)
    for (int r = 0; r < 3; ++r)
      out << "fp16_encode,net,10,,0,1,1," << static_cast<long long>(elements) << ",0," << r << "," << seconds * (1 + 0.01 * r) << "\n";
  out.close();
  auto cm = ComputeModel::load({dir.path("ops.csv")});
  for (auto [elements, seconds] : points) CHECK(cm.codec_seconds("fp16_encode", elements) == doctest::Approx(seconds * 1.01).epsilon(0.01));
  CHECK(cm.tensor_op_fits().at("fp16_encode").max_relative_error() < 0.01);
  // Predicted from its neighbours alone, 1e6 elements would be off by far: the time per element changes there.
  CHECK(cm.tensor_op_fits().at("fp16_encode").held_out_error() > 0.5);
}

TEST_CASE("every kernel family of the shipped calibration is fitted within 10 % at every measured point") {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(P2PSIM_SOURCE_DIR "/calibration/kernels"))
    if (e.path().extension() == ".csv") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  auto cm = ComputeModel::load(files);
  int families = 0;
  for (const auto& [key, f] : cm.step_fits())
    for (const auto& [threads, curve] : f.by_threads) {
      CAPTURE(key.first + "@" + key.second + " threads " + std::to_string(threads));
      CHECK(curve.max_relative_error() <= 0.10);
      ++families;
    }
  for (const auto& [key, curve] : cm.memory_fits()) {
    CAPTURE("memory " + key.first + "@" + key.second);
    CHECK(curve.max_relative_error() <= 0.10);
  }
  for (const auto& [kernel, curve] : cm.tensor_op_fits()) {
    CAPTURE(kernel);
    CHECK(curve.max_relative_error() <= 0.10);
    ++families;
  }
  CHECK(families >= 12);
  // Small batches are calibrated: the paper's models train from one or two samples up.
  for (const char* model : {"vgg11", "squeezenet1_1", "mobilenet_v3_small", "vgg11_cifar", "mnist_cnn"}) {
    CAPTURE(model);
    bool found = false;
    for (const auto& [key, f] : cm.step_fits())
      if (key.first == model) {
        found = true;
        CHECK(f.min_batch <= 2);
      }
    CHECK(found);
  }
}

TEST_CASE("memory-only runs give the memory where both they and timed runs measured it") {
  TempDir dir;
  std::ofstream out(dir.path("mem.csv"));
  out << kHeaderWithCpu;
  // Timed rows (allocator keeping its memory) peak at 500 MiB above the runtime; memory-only rows at 300.
  for (int b : {16, 32}) {
    out << "train_step,net,10,3x8x8," << b << ",1,0,100,400,0,1.0,0," << (600LL << 20) << "," << (100LL << 20) << ",1\n";
    out << "train_step_memory,net,10,3x8x8," << b << ",1,0,100,400,0,1.5,0," << (400LL << 20) << "," << (100LL << 20)
        << ",1\n";
  }
  // Another model measured with timed rows only keeps their memory.
  out << "train_step,other,10,3x8x8,16,1,0,100,400,0,1.0,0," << (600LL << 20) << "," << (100LL << 20) << ",1\n";
  out.close();
  auto cm = ComputeModel::load({dir.path("mem.csv")});
  CHECK(cm.step_memory_bytes("net", "3x8x8", 24) == doctest::Approx(300.0 * (1 << 20)));
  CHECK(cm.step_memory_bytes("other", "3x8x8", 16) == doctest::Approx(500.0 * (1 << 20)));
  CHECK(cm.step_seconds("net", "3x8x8", 16, 1) == doctest::Approx(1.0));  // memory runs are not timing samples
}
