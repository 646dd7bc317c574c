// Small simulations checked against hand-computed times, and properties of the simulated services.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "cost/pricing.hpp"
#include "results/results.hpp"
#include "sim_fixture.hpp"
#include "util/isolate.hpp"
#include "util/read_text.hpp"

using namespace p2psim;
using fixture::write_experiment;

namespace {

using fixture::phase_of;
using fixture::phase_total;

// The shipped profile's values these hand computations use (platforms/aws_us_east_1.xml).
constexpr double kFirstByte = 0.15, kT2LargeNic = 62.5e6, kFunctionNet = 55e6, kRequest = 0.001,
                 kBrokerCpu = 0.0000113, kTransition = 0.15, kImage = 0.79, kImport = 0.92;
constexpr double kGradient = 4799528, kShard = 60000.0 * 784 * 4;  // mnist_cnn gradient; 60,000 float32 images

}  // namespace

TEST_CASE("one instance peer: every phase as computed by hand") {
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>)"));
  auto r = fixture::simulate(s, "instance");
  const double fetch = kFirstByte + kShard / kT2LargeNic;
  const double compute = 0.6 * 7.0;  // 2 vCPUs, serial fraction 0.2 from the 1- and 2-thread samples
  const double send = kGradient / kT2LargeNic + kBrokerCpu;  // 4.8 MB goes inline through the broker
  const double aggregate = 0.0012 + 0.0024;                   // mean of 1 gradient, then the SGD step
  const double barrier = kRequest + 1 + kRequest + 3;         // publish, wait 1 s, count, settle 3 s
  CHECK(phase_total(r, Phase::DataFetch) == doctest::Approx(fetch).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Compute) == doctest::Approx(compute).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Send) == doctest::Approx(send).epsilon(1e-9));
  CHECK(phase_total(r, Phase::AggregateUpdate) == doctest::Approx(aggregate).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Barrier) == doctest::Approx(barrier).epsilon(1e-9));
  CHECK(r.peer_end_s[0] == doctest::Approx(fetch + compute + send + aggregate + barrier).epsilon(1e-9));
  CHECK(r.ledger.storage_gets == 1);
  CHECK(r.ledger.function_runs.empty());
}

TEST_CASE("a trainer limited to one thread steps at the one-thread time on a 2-vCPU peer and function") {
  // The hand calibration: 7.0 s on one thread, serial fraction 0.2, so 0.6 x 7.0 on 2 vCPUs (the test above).
  // With workload/@threads="1" (OMP_NUM_THREADS=1) the peer takes the 1-thread time, and so does a 3,538 MB
  // function (2 vCPUs) at its speed factor; a 885 MB function (half a vCPU) is time-sliced either way.
  TempDir dir;
  auto compute = [&](const std::string& threads, int memory_mb, const char* system) {
    auto s = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none" threads=")" + threads + R"("/>
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb=")" + std::to_string(memory_mb) + R"("/>)"));
    return std::pair{phase_total(fixture::simulate(s, system), Phase::Compute), s.speed_factor(StepTarget::Function)};
  };
  CHECK(compute("all", 3538, "instance").first == doctest::Approx(0.6 * 7.0).epsilon(1e-9));
  CHECK(compute("1", 3538, "instance").first == doctest::Approx(7.0).epsilon(1e-9));
  CHECK(compute("2", 3538, "instance").first == doctest::Approx(0.6 * 7.0).epsilon(1e-9));
  const auto [all, factor] = compute("all", 3538, "serverless");
  CHECK(compute("1", 3538, "serverless").first - all == doctest::Approx((7.0 - 0.6 * 7.0) / factor).epsilon(1e-9));
  CHECK(compute("1", 885, "serverless").first == doctest::Approx(compute("all", 885, "serverless").first).epsilon(1e-12));
  // Bad input names the field.
  for (const char* bad : {"0", "two", "-1"})
    CHECK_THROWS_WITH_AS(compute(bad, 3538, "instance"), doctest::Contains("workload/@threads"), InputError);
}

TEST_CASE("one serverless peer, one function: every phase as computed by hand") {
  // The paper's prototype as published (model_fetch="none": the function builds a fresh model) and a trainer
  // (the default): the peer first PUTs its current model, and the function GETs it after its batch.
  TempDir dir;
  auto s = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb="1769"/>
    <systems>
      <system name="prototype" strategy="p2p_all_to_all" compute="functions" model_fetch="none"/>
      <system name="serverless" strategy="p2p_all_to_all" compute="functions"/>
    </systems>)"));
  const double model_upload = kFirstByte + kGradient / kT2LargeNic;  // the peer's PUT of the model
  const double model_fetch = kFirstByte + kGradient / kFunctionNet;  // the function's GET of it
  for (const bool trainer : {false, true}) {
  CAPTURE(trainer);
  auto r = fixture::simulate(s, trainer ? "serverless" : "prototype");
  const double before = trainer ? model_upload : 0;
  const double function_start = before + 2 * kTransition + kTransition;  // StartExecution, ProcessInput, branch
  const double init = kImage + kImport;                         // 1769 MB = one vCPU
  const double fetch = kFirstByte + kShard / kFunctionNet;
  const double upload = kFirstByte + kGradient / kFunctionNet + kRequest + kBrokerCpu;
  const double model = trainer ? model_fetch : 0;
  const double function_end = function_start + init + fetch + model + 7.0 + upload;
  CHECK(phase_total(r, Phase::ModelUpload) == doctest::Approx(before).epsilon(1e-9));
  CHECK(phase_total(r, Phase::ModelFetch) == doctest::Approx(model).epsilon(1e-9));
  // DescribeExecution every 2 s from StartExecution, which follows the model's upload
  const double seen = before + 2 * std::ceil((function_end + kTransition - before) / 2);
  const double collect = kRequest + kFirstByte + kGradient / kT2LargeNic;
  const double send = kFirstByte + kGradient / kT2LargeNic + kRequest + kBrokerCpu;
  CHECK(phase_total(r, Phase::ColdStart) == doctest::Approx(init).epsilon(1e-9));
  CHECK(phase_total(r, Phase::DataFetch) == doctest::Approx(fetch).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Compute) == doctest::Approx(7.0).epsilon(1e-9));
  CHECK(phase_total(r, Phase::FunctionUpload) == doctest::Approx(upload).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Collect) == doctest::Approx(collect).epsilon(1e-9));
  CHECK(r.peer_end_s[0] == doctest::Approx(seen + collect + 0.0012 + send + 0.0036).epsilon(1e-9));
  // The gradient computation: p2psim's from the model's upload, the paper's timer from StartExecution, both to
  // the local average (0.0012 s after the collect).
  const auto summary = summarise(s, fixture::system(s, trainer ? "serverless" : "prototype"), r);
  CHECK(summary.gradient_s == doctest::Approx(seen + collect + 0.0012).epsilon(1e-9));
  CHECK(summary.paper_gradient_s == doctest::Approx(seen + collect + 0.0012 - before).epsilon(1e-9));
  REQUIRE(r.ledger.function_runs.size() == 1);
  CHECK(r.ledger.function_runs[0].init_s == doctest::Approx(init));
  CHECK(r.ledger.function_runs[0].run_s == doctest::Approx(fetch + model + 7.0 + upload).epsilon(1e-9));
  CHECK(r.ledger.storage_gets == 2 + trainer);  // the batch, (the model,) then the function's gradient
  CHECK(r.ledger.storage_puts == 2 + trainer);  // (the model,) the function's gradient, then the peer's
  CHECK(r.ledger.function_storage_requests == 2 + trainer);  // the function's: the batch, (the model,) its gradient
  // What the run used: functions through the workflow, storage from both sides, the broker; no peer trained on its
  // own CPU and no gradient crossed between instances.
  CHECK(mechanism_names(r.mechanisms) ==
        std::vector<std::string>{"function_cold_start", "function_compute", "workflow", "object_storage_from_ec2",
                                 "object_storage_from_functions", "broker"});
  CHECK(r.ledger.workflow_transitions == 3 + 1);
  }
}

TEST_CASE("serialisation: every tensor that crosses a process boundary is (de)serialised on its mover's CPU, by hand") {
  // The serverless system of the test above, with a calibration whose serialize takes 0.5 s and deserialize
  // 0.25 s for a mnist_cnn gradient (the hand calibration's take 1e-12 s): the function pickles its gradient
  // before its PUT (at one vCPU: 0.5 s more upload), the peer unpickles it in its collect (0.25 s) and pickles
  // its own before its send (0.5 s); every one is its own row inside the phase around it.
  TempDir dir;
  std::string calibration = read_text(fixture::kSource + "/tests/data/hand_calibration.csv");
  for (const auto& [kernel, seconds] : {std::pair{"serialize", "0.5"}, std::pair{"deserialize", "0.25"}}) {
    const std::string row = std::string(kernel) + ",mnist_cnn,10,,0,1,1,1199882,4799528,0,1e-12";
    calibration.replace(calibration.find(row), row.size(), row.substr(0, row.size() - 5) + seconds);
  }
  std::ofstream(dir.path("serialization.csv")) << calibration;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb="1769"/>)";
  const auto free_path = write_experiment(dir, body);
  const auto free_run = fixture::simulate(fixture::scenario(free_path), "serverless");
  std::string text = read_text(free_path);
  text.replace(text.find(fixture::kSource + "/tests/data/hand_calibration.csv"),
               (fixture::kSource + "/tests/data/hand_calibration.csv").size(), dir.path("serialization.csv"));
  std::ofstream(dir.path("charged.xml")) << text;
  const auto r = fixture::simulate(fixture::scenario(dir.path("charged.xml")), "serverless");
  CHECK(phase_total(r, Phase::FunctionUpload) - phase_total(free_run, Phase::FunctionUpload) ==
        doctest::Approx(0.5).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Collect) - phase_total(free_run, Phase::Collect) == doctest::Approx(0.25).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Send) - phase_total(free_run, Phase::Send) == doctest::Approx(0.5).epsilon(1e-9));
  // The function's gradient and the peer's (to send, and its model for the functions), each 0.5 s; the
  // function's gradient at the peer and the model at the function, each 0.25 s.
  CHECK(phase_total(r, Phase::Serialize) == doctest::Approx(3 * 0.5).epsilon(1e-9));
  CHECK(phase_total(r, Phase::Deserialize) == doctest::Approx(2 * 0.25).epsilon(1e-9));
  CHECK(phase_total(r, Phase::ModelUpload) - phase_total(free_run, Phase::ModelUpload) ==
        doctest::Approx(0.5).epsilon(1e-9));
  CHECK(phase_total(r, Phase::ModelFetch) - phase_total(free_run, Phase::ModelFetch) ==
        doctest::Approx(0.25).epsilon(1e-9));
  // The function's pickling and unpickling are billed; the polls see them (their 2 s grid may round it away).
  CHECK(r.ledger.function_runs.at(0).run_s - free_run.ledger.function_runs.at(0).run_s ==
        doctest::Approx(0.5 + 0.25).epsilon(1e-9));
}

TEST_CASE("input pipeline: a step also pays for making its batch, on one thread, when the workload says so") {
  // The hand calibration plus a to_tensor pipeline that takes 0.5 s for 1,000 samples and 30 s for 60,000 (one
  // thread of the calibration CPU). One m5.xlarge peer (4 vCPUs) computes its 60,000-sample minibatch: 30 s more at
  // its speed factor, on one thread whatever its vCPUs. A function of 885 MB (half a vCPU) computes the same
  // minibatch: 30 s at its speed, time-sliced to about twice that.
  TempDir dir;
  std::ofstream(dir.path("with_pipeline.csv"))
      << read_text(fixture::kSource + "/tests/data/hand_calibration.csv")
      << "input_pipeline,to_tensor,10,1x28x28,1000,1,0,784,3136,0,0.5\n"
      << "input_pipeline,to_tensor,10,1x28x28,60000,1,0,784,3136,0,30\n";
  auto experiment = [&](const std::string& pipeline) {
    const auto path = write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none" input_pipeline=")" + pipeline + R"("/>
    <peers count="1" instance_type="m5.xlarge"/>
    <functions memory_mb="885"/>)");
    std::string text = read_text(path);
    const std::string hand = fixture::kSource + "/tests/data/hand_calibration.csv";
    text.replace(text.find(hand), hand.size(), dir.path("with_pipeline.csv"));
    std::ofstream(dir.path(pipeline + ".xml")) << text;
    return fixture::scenario(dir.path(pipeline + ".xml"));
  };
  const auto none = experiment("none"), charged = experiment("to_tensor");
  REQUIRE(charged.function_vcpus == doctest::Approx(885.0 / 1769));  // a vCPU per 1,769 MB
  for (const char* system : {"instance", "serverless"}) {
    CAPTURE(system);
    const bool peer = std::string(system) == "instance";
    const double expected = peer ? 30 / charged.speed_factor(StepTarget::Peer)
                                 : 30 / charged.speed_factor(StepTarget::Function) / (885.0 / 1769);
    CHECK(phase_total(fixture::simulate(charged, system), Phase::Compute) -
              phase_total(fixture::simulate(none, system), Phase::Compute) ==
          doctest::Approx(expected).epsilon(1e-9));
  }
  // Bad input: an unknown pipeline, and one the calibration does not hold for this input shape.
  CHECK_THROWS_WITH_AS(experiment("pil"), doctest::Contains("input_pipeline"), InputError);
  CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              input_pipeline="to_tensor"/>
    <peers count="1" instance_type="m5.xlarge"/>)")),
                       doctest::Contains("workload/@input_pipeline"), InputError);
}

TEST_CASE("calibration CPU: timing files measured on another CPU than the profile's reference are refused") {
  // The test profile with a <cpu_reference identity="CPU A">, and the hand calibration with a .meta.json beside it.
  TempDir dir;
  std::string profile = fixture::test_profile_text();
  profile.replace(profile.find("  <simulation "), 0,
                  "  <cpu_reference benchmark=\"b\" single_core_score=\"1000\" identity=\"CPU A\"\n"
                  "                 source=\"none: a test's reference\"/>\n");
  std::ofstream(dir.path("profile.xml")) << profile;
  std::ofstream(dir.path("steps.csv")) << read_text(fixture::kSource + "/tests/data/hand_calibration.csv");
  std::ofstream(dir.path("memory.csv"))
      << "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds,"
         "foreign_cpu_share,peak_rss_bytes,runtime_rss_bytes\n"
         "train_step_memory,quickstart_mlp,10,1x28x28,64,1,0,669706,2678824,0,0.1,0,400000000,200000000\n";
  const auto meta = [&](const std::string& csv, const std::string& cpu) {
    std::ofstream(dir.path(csv + ".meta.json")) << "{\n  \"csv\": \"" << csv << "\",\n  \"cpu_identity\": \"" << cpu
                                                << "\"\n}\n";
  };
  const auto scenario = [&] {
    std::string text = read_text(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
    <peers count="1" instance_type="t2.large"/>)"));
    const std::string hand = fixture::kSource + "/tests/data/hand_calibration.csv",
                      test_profile = fixture::kSource + "/tests/data/test_profile.xml";
    text.replace(text.find(hand), hand.size(), dir.path("steps.csv") + " " + dir.path("memory.csv"));
    text.replace(text.find(test_profile), test_profile.size(), dir.path("profile.xml"));
    std::ofstream(dir.path("cpu.xml")) << text;
    return fixture::scenario(dir.path("cpu.xml"));
  };
  CHECK_NOTHROW(scenario());  // no .meta.json: a hand-written calibration is not checked
  meta("steps.csv", "CPU A");
  meta("memory.csv", "CPU B2");  // memory runs only: memory is not scaled by CPU speed
  CHECK_NOTHROW(scenario());
  meta("steps.csv", "CPU B2");  // another length: a rewrite within a clock tick still changes the file's stamp
  const std::string where = dir.path("steps.csv.meta.json") + ":3: field 'cpu_identity'";
  CHECK_THROWS_WITH_AS(scenario(), doctest::Contains(where.c_str()), InputError);
  CHECK_THROWS_WITH_AS(scenario(), doctest::Contains("measured on 'CPU B2'"), InputError);
  CHECK_THROWS_WITH_AS(scenario(), doctest::Contains("relative to 'CPU A'"), InputError);
}

TEST_CASE("a container stays warm within the keep-alive and is cold again after it") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="3"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>)";
  auto warm = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<functions keep_alive_s="600"/>)")), "serverless");
  CHECK(warm.cold_starts == 1);
  CHECK(warm.warm_starts == 2);
  CHECK(warm.max_containers == 1);
  // The container idles ~2 s between iterations (polling, collect, exchange): 0.5 s has expired by then.
  auto cold = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<functions keep_alive_s="0.5"/>)")), "serverless");
  CHECK(cold.cold_starts == 3);
  CHECK(cold.warm_starts == 0);
}

TEST_CASE("invocations beyond the concurrency limit queue until a container is free") {
  TempDir dir;
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="6" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <functions concurrency_limit="2"/>)")), "serverless");
  CHECK(r.max_containers == 2);
  CHECK(r.cold_starts == 2);  // the queued four reuse the two warm containers
  CHECK(r.warm_starts == 4);
  std::vector<std::pair<double, double>> compute;  // (start, end) of each invocation's compute
  for (const auto& p : r.trace)
    if (p.phase == Phase::Compute) compute.emplace_back(p.start_s, p.end_s);
  REQUIRE(compute.size() == 6);
  // Never more than two computing at once.
  for (const auto& c : compute) {
    int overlapping = 0;
    for (const auto& d : compute) overlapping += d.first <= c.first && c.first < d.second;
    CHECK(overlapping <= 2);
  }
}

TEST_CASE("below 1769 MB, doubling function memory halves compute time") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="4" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>)";
  auto small = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<functions memory_mb="442"/>)")), "serverless");
  auto large = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<functions memory_mb="884"/>)")), "serverless");
  REQUIRE(phase_total(large, Phase::Compute) > 0);  // or 0 == 2 x 0 would pass with no compute recorded
  CHECK(phase_total(small, Phase::Compute) == doctest::Approx(2 * phase_total(large, Phase::Compute)).epsilon(1e-9));
}

TEST_CASE("the broker delivers each gradient to every other peer exactly once") {
  for (const char* consume : {"poll", "push"})
    for (const char* arch : {"instance", "serverless"}) {
      CAPTURE(consume);
      CAPTURE(arch);
      TempDir dir;
      auto s = fixture::scenario(write_experiment(dir, std::string(R"(
        <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="3"/>
        <peers count="5" instance_type="t2.medium"/>
        <exchange consume=")") + consume + R"("/>)"));
      auto r = fixture::simulate(s, arch);
      std::set<std::tuple<int, int, int>> seen;
      for (const auto& d : r.deliveries) {
        CHECK(d.consumer != d.producer);
        CHECK(seen.insert({d.consumer, d.producer, d.iteration}).second);
      }
      CHECK(seen.size() == 5u * 4u * 3u);
      // The instance peers' small gradients go inline through the broker's instance, so across instances' NICs;
      // the serverless peers' go through storage, their keys alone through the broker.
      CHECK(contains(r.mechanisms, Mechanism::Ec2Network) == (std::string(arch) == "instance"));
      CHECK(contains(r.mechanisms, Mechanism::Broker));
    }
}

TEST_CASE("the same scenario and seed give the same run and another seed another one") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="3" iterations="2"/>
    <peers count="3" instance_type="t2.large"/>)";
  // The cold-start spread is the randomness here (the hand-made calibration has one sample per batch size).
  auto s = fixture::scenario(
      write_experiment(dir, body, R"(<override select="function_service/cold_start/@image_sigma" value="0.348"/>)"));
  auto a = fixture::simulate(s, "serverless");
  auto b = fixture::simulate(s, "serverless");
  CHECK(to_bytes(a) == to_bytes(b));
  s.experiment.seed = 8;
  CHECK(to_bytes(fixture::simulate(s, "serverless")) != to_bytes(a));
}

TEST_CASE("compression: top-k at ratio r sends about 2r of the bytes (values and indices), the paper's QSGD none less") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.medium"/>)";
  auto topk = fixture::scenario(write_experiment(dir, body + R"(<exchange compression="topk" topk_ratio="0.01"/>)"));
  CHECK(topk.exchange_bytes == 8 * 11998);  // floor(0.01 x 1,199,882) entries of 4 + 4 bytes
  CHECK(topk.exchange_bytes / topk.gradient_bytes == doctest::Approx(2 * 0.01).epsilon(1e-3));
  CHECK(topk.function_gradient_bytes == topk.gradient_bytes);  // functions' gradients stay raw unless asked
  auto r = fixture::simulate(topk, "instance");
  // Encode (calibrated 0.01 s) plus error feedback (a two-gradient pass, 0.0024 s), then the message inline
  // through the broker at the t2.medium NIC's rate, then the broker's CPU per message: the two peers publish at
  // the same instant, so one is served first and the other waits one message more (which one is a tie).
  const double first = std::min(phase_of(r, 0, Phase::Send), phase_of(r, 1, Phase::Send));
  const double second = std::max(phase_of(r, 0, Phase::Send), phase_of(r, 1, Phase::Send));
  CHECK(first == doctest::Approx(0.01 + 0.0024 + 8 * 11998 / 37.5e6 + 0.0000113).epsilon(1e-9));
  CHECK(second == doctest::Approx(first + 0.0000113).epsilon(1e-9));

  auto qsgd = fixture::scenario(write_experiment(dir, body + R"(<exchange compression="qsgd8_paper"/>)"));
  CHECK(qsgd.exchange_bytes == qsgd.gradient_bytes + 4);  // N+1 float32: no smaller than the gradient

  auto both = fixture::scenario(
      write_experiment(dir, body + R"(<exchange compression="topk" compress_functions="true"/>)"));
  CHECK(both.function_gradient_bytes == both.exchange_bytes);
  CHECK(both.function_encode_s > 0);

  auto uncalibrated = std::string("no error");
  try {
    fixture::scenario(write_experiment(dir, body + R"(<exchange compression="fp16"/>)"));
  } catch (const InputError& e) {
    uncalibrated = e.what();
  }
  CHECK(uncalibrated.find("field 'exchange/@compression': no 'fp16_encode' samples") != std::string::npos);
}

TEST_CASE("stragglers: a slowed peer computes longer and, in synchronous mode, the others wait for it") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="1"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.medium"/>
    <barrier instance="false"/>)";
  auto even = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  auto slow = fixture::simulate(fixture::scenario(write_experiment(dir, body + R"(<stragglers slowdown="1 2.5"/>)")),
                                "instance");
  CHECK(phase_of(slow, 1, Phase::Compute) == doctest::Approx(2.5 * phase_of(slow, 0, Phase::Compute)));
  CHECK(phase_of(slow, 2, Phase::Compute) == doctest::Approx(phase_of(even, 2, Phase::Compute)));
  // Peer 0 waits for peer 1's gradient: its receive grows by about the straggler's extra compute.
  const double extra = 1.5 * phase_of(slow, 0, Phase::Compute);
  CHECK(phase_of(slow, 0, Phase::Receive) >= phase_of(even, 0, Phase::Receive) + extra - 2.0);  // 2 s polling
  CHECK(slow.peer_end_s[0] > even.peer_end_s[0] + extra - 2.0);

  CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, body + R"(<stragglers slowdown="1 0.5"/>)")),
                       doctest::Contains("field 'stragglers/@slowdown': expected factors in [1, 1000], got '0.5'"),
                       InputError);
  CHECK_THROWS_WITH_AS(fixture::scenario(write_experiment(dir, body + R"(<stragglers slowdown="1 1 1 1"/>)")),
                       doctest::Contains("4 factors for 3 peers"), InputError);
}

TEST_CASE("stragglers: heavy-tailed steps are never faster and average about shape / (shape - 1) times slower") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1000" iterations="2"
              compute_variability="none"/>
    <peers count="4" instance_type="t2.medium"/>)";
  auto plain = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "serverless");
  auto tail = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<stragglers tail_probability="1" tail_shape="3"/>)")),
      "serverless");
  std::vector<double> base, tailed;
  for (const auto& p : plain.trace)
    if (p.phase == Phase::Compute) base.push_back(p.end_s - p.start_s);
  for (const auto& p : tail.trace)
    if (p.phase == Phase::Compute) tailed.push_back(p.end_s - p.start_s);
  REQUIRE(base.size() == tailed.size());
  REQUIRE(base.size() == 4 * 15 * 2);  // 15 one-minibatch invocations per peer and iteration
  double ratio = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    CHECK(tailed[i] >= base[i] - 1e-12);
    ratio += tailed[i] / base[i];
  }
  // Pareto(3): mean 1.5; 120 draws put the sample mean within ~0.2 of it.
  CHECK(ratio / static_cast<double>(base.size()) == doctest::Approx(1.5).epsilon(0.15));
}

TEST_CASE("burstable peers: without credits a t2 computes at its baseline, in unlimited mode it pays the surplus") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.medium"/>)";
  auto compute_of = [&](const RunOutput& r) { return phase_of(r, 0, Phase::Compute); };
  auto with_credits = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  CHECK(compute_of(with_credits) == doctest::Approx(4.2));  // 60 launch credits last 37.5 min
  CHECK(with_credits.credits_exhausted_at_s[0] < 0);
  const std::string no_credits =
      R"(<override select="instance_types/instance[@type='t2.medium']/@launch_credits" value="0"/>)";
  auto starved = fixture::simulate(fixture::scenario(write_experiment(dir, body, no_credits)), "instance");
  // 24 credits/h = 0.4 of its 2 vCPUs: 5 times slower once the few credits earned during the data fetch are
  // spent (full speed drains 2/60 - 24/3600 = 1/37.5 credits per second).
  const double fetch = 0.15 + 60000.0 * 784 * 4 / 37.5e6, full = 24 / 3600.0 * fetch * 37.5;
  CHECK(compute_of(starved) == doctest::Approx(full + 5 * (4.2 - full)));
  CHECK(starved.credits_exhausted_at_s[0] == doctest::Approx(fetch + full));
  CHECK(starved.ledger.surplus_credits == 0);

  auto unlimited = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, body,
          no_credits + R"(<override select="instance_types/instance[@type='t2.medium']/@credit_mode" value="unlimited"/>)")),
      "instance");
  CHECK(compute_of(unlimited) == doctest::Approx(4.2));
  // The compute's drain beyond the credits earned while fetching (later idle time repays part of it).
  CHECK(unlimited.ledger.surplus_credits > 0);
  CHECK(unlimited.ledger.surplus_credits < 4.2 / 37.5);
}

TEST_CASE("asynchronous training: k = 0 is synchronous, a larger k lets fast peers run ahead within the bound") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="6"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.large"/>
    <barrier instance="false"/>
    <stragglers slowdown="1 1 3"/>)";
  auto sync = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  auto k0 = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<synchronization mode="async" staleness_bound="0"/>)")),
      "instance");
  CHECK(to_bytes(k0) == to_bytes(sync));
  CHECK(*std::max_element(sync.staleness.begin(), sync.staleness.end()) == 0);
  // What k = 0 means, checked on the trace itself: no peer starts computing iteration t + 1 before every peer
  // has published iteration t (here the 3x straggler holds the others back every time).
  for (int t = 0; t + 1 < 6; ++t) {
    double last_publish = 0, first_next_compute = 1e300;
    for (const auto& p : k0.trace) {
      if (p.invocation >= 0) continue;
      if (p.phase == Phase::Send && p.iteration == t) last_publish = std::max(last_publish, p.end_s);
      if (p.phase == Phase::Compute && p.iteration == t + 1) first_next_compute = std::min(first_next_compute, p.start_s);
    }
    CAPTURE(t);
    CHECK(first_next_compute >= last_publish);
  }

  auto k2 = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<synchronization mode="async" staleness_bound="2"/>)")),
      "instance");
  const int max_staleness = *std::max_element(k2.staleness.begin(), k2.staleness.end());
  CHECK(max_staleness >= 1);  // the fast peers did use stale gradients of the straggler ...
  CHECK(max_staleness <= 2);  // ... never more than k iterations old
  CHECK(k2.peer_end_s[0] < sync.peer_end_s[0]);  // and finished sooner than when waiting for it
  // No gradient twice; the straggler's last ones may never be needed by peers that already finished.
  std::set<std::tuple<int, int, int>> once;
  for (const auto& d : k2.deliveries) CHECK(once.insert({d.consumer, d.producer, d.iteration}).second);
  CHECK(k2.deliveries.size() <= sync.deliveries.size());

  // Asynchronous training has no barrier: the design's default under async (no <barrier> needed), and a system
  // that asks for one is refused by its own field.
  const auto async = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="6"/>
    <peers count="3" instance_type="t2.large"/>
    <synchronization mode="async" staleness_bound="2"/>)"));
  check_systems(async);
  const auto asked = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="6"/>
    <peers count="3" instance_type="t2.large"/>
    <systems><system name="i" strategy="p2p_all_to_all" compute="peer" barrier="true"/></systems>
    <synchronization mode="async" staleness_bound="2"/>)"));
  CHECK_THROWS_WITH_AS(check_systems(asked), doctest::Contains("asynchronous training has no barrier"), InputError);
}

TEST_CASE("failures: a function failure probability of 0.5 about doubles the invocations and raises the bill") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1000" iterations="2"
              compute_variability="none"/>
    <peers count="4" instance_type="t2.medium"/>)";
  const std::string retries = R"(<override select="workflow_service/@task_retry_attempts" value="60"/>)";
  auto base_s = fixture::scenario(write_experiment(dir, body, retries));
  auto base = fixture::simulate(base_s, "serverless");
  auto flaky_s = fixture::scenario(
      write_experiment(dir, body + R"(<failures function_failure_probability="0.5"/>)", retries));
  auto flaky = fixture::simulate(flaky_s, "serverless");
  CHECK(base.failure.empty());
  CHECK(flaky.failure.empty());  // every invocation eventually succeeded
  const double ratio = static_cast<double>(flaky.ledger.function_runs.size()) / base.ledger.function_runs.size();
  CHECK(base.ledger.function_runs.size() == 4 * 15 * 2);
  CHECK(ratio > 1.6);  // 1 / (1 - 0.5) = 2 expected; 120 invocations keep the draw within these bounds
  CHECK(ratio < 2.5);
  const double base_bill = price(base.ledger, base_s.prices).function_compute_usd;
  const double flaky_bill = price(flaky.ledger, flaky_s.prices).function_compute_usd;
  CHECK(flaky_bill > 1.2 * base_bill);  // failed attempts are billed for the time they ran
  // Each retry is one more state transition.
  CHECK(flaky.ledger.workflow_transitions - base.ledger.workflow_transitions ==
        static_cast<long long>(flaky.ledger.function_runs.size() - base.ledger.function_runs.size()));

  // Without retries (the paper's state machine), a failure fails the execution, and the run says why.
  auto fragile = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<failures function_failure_probability="0.5"/>)")),
      "serverless");
  CHECK(fragile.failure.find("failed 1 time(s) (failure probability 0.5)") != std::string::npos);
}

TEST_CASE("failures: an invocation running past the function timeout is killed, billed and reported") {
  TempDir dir;
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" batch_size="1000" iterations="1"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.medium"/>
    <functions memory_mb="1769"/>
    <stragglers tail_probability="1" tail_shape="1.01"/>)",
                                                                 R"(<override select="function_service/@max_timeout_s" value="3"/>)")),
                             "serverless");
  // Data fetch (0.15 s + 30 x 784 x 4 x 1000 / 55e6 s) then a step of 1.1 s times a Pareto(1.01) tail:
  // some attempts pass the 3 s timeout; a killed one is billed exactly the timeout.
  bool killed = false;
  for (const auto& run : r.ledger.function_runs)
    if (std::abs(run.run_s - 3.0) < 1e-9) killed = true;
  CHECK(killed);
  CHECK(r.failure.find("ran past the 3 s timeout") != std::string::npos);
}

TEST_CASE("failures: while the broker is unreachable, publishing and polling wait for it, and the run finishes") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.large"/>
    <barrier instance="false"/>)";
  auto ok = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  // The peers publish after the data fetch (1.65 s) and compute (2.4 s): an outage from 2 to 60 s holds them.
  auto out = fixture::simulate(
      fixture::scenario(write_experiment(dir, body + R"(<failures broker_outage_from_s="2" broker_outage_to_s="60"/>)")),
      "instance");
  for (int p = 0; p < 2; ++p) {
    CHECK(ok.peer_end_s[p] < 60);
    CHECK(out.peer_end_s[p] > 60);
    CHECK(out.peer_end_s[p] < 60 + ok.peer_end_s[p]);
  }
  CHECK(out.deliveries.size() == ok.deliveries.size());
}

TEST_CASE("failures: a serverless peer whose functions wait out a broker outage sees their end at its next 2 s poll") {
  TempDir dir;
  // The functions publish their gradient keys to the broker: an outage from 3 s to a day holds them, so the
  // execution ends after it, and the peer, polling DescribeExecution every 2 s from the execution's start, sees it
  // end at the first poll on or after that. (The peer waits for the end rather than waking at each poll: the
  // dates must be the polls' all the same.)
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <failures broker_outage_from_s="3" broker_outage_to_s="86400"/>)";
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "serverless");
  double execution_start = -1, seen_end = -1, wait = -1;
  for (const auto& p : r.trace) {
    if (p.peer != 0 || p.invocation >= 0) continue;
    if (p.phase == Phase::Orchestration && execution_start < 0) execution_start = p.start_s;
    if (p.phase == Phase::PollingWait && seen_end < 0) {
      seen_end = p.end_s;
      wait = p.end_s - p.start_s;
    }
  }
  REQUIRE(execution_start >= 0);
  REQUIRE(seen_end > 86400);
  CHECK(wait >= 0);
  CHECK(wait < 2.0);
  const double polls = (seen_end - execution_start) / 2.0;
  CHECK(polls == doctest::Approx(std::round(polls)).epsilon(1e-12));
  CHECK(r.iterations_done[0] == 1);
}

TEST_CASE("failures: a gradient in flight when the broker goes down is cut and sent again, whole, after") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <barrier instance="false"/>)";
  // One peer: it loads 60,000 images, computes 0.6 x 7 s, then sends its 4.8 MB gradient inline (76.8 ms).
  const double send_start = kFirstByte + kShard / kT2LargeNic + 0.6 * 7.0;
  const double transfer = kGradient / kT2LargeNic;
  const std::string outage = "<failures broker_outage_from_s=\"" + std::to_string(send_start + transfer / 2) +
                             "\" broker_outage_to_s=\"10\"/>";
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body + outage)), "instance");
  // Cut half-way, resent from the start at 10 s, then the broker's CPU for the message.
  CHECK(phase_of(r, 0, Phase::Send) == doctest::Approx(10 + transfer + kBrokerCpu - send_start).epsilon(1e-9));
}

TEST_CASE("failures: several broker outage windows each hold the peers, in order, bad windows are refused") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="3"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.large"/>
    <barrier instance="false"/>)";
  auto run = [&](const std::string& failures) {
    return fixture::simulate(fixture::scenario(write_experiment(dir, body + failures)), "instance");
  };
  // Iterations take about 2.45 s: the peers publish at about 4.05, 6.5 and 8.9 s without outages.
  auto ok = run("");
  // [5, 30) holds the second publication until 30 s; the third then comes at about 32.6 s ...
  auto one = run(R"(<failures broker_outage_from_s="5" broker_outage_to_s="30"/>)");
  // ... which a second window [32, 60) holds until 60 s.
  auto two = run(R"(<failures broker_outage_from_s="5 32" broker_outage_to_s="30 60"/>)");
  for (int p = 0; p < 2; ++p) {
    CHECK(ok.peer_end_s[p] < 15);
    CHECK(one.peer_end_s[p] > 30);
    CHECK(one.peer_end_s[p] < 40);
    CHECK(two.peer_end_s[p] > 60);
  }
  CHECK(two.deliveries.size() == ok.deliveries.size());
  for (const char* bad : {R"(<failures broker_outage_from_s="5 40" broker_outage_to_s="30"/>)",
                          R"(<failures broker_outage_from_s="5 20" broker_outage_to_s="30 60"/>)",
                          R"(<failures broker_outage_from_s="5" broker_outage_to_s="x"/>)"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(fixture::scenario(write_experiment(dir, body + bad)), InputError);
  }
}

TEST_CASE("failures: a serverless peer that crashes while its functions run leaves them to finish, billed") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="2"
              compute_variability="none"/>
    <peers count="2" instance_type="t2.large"/>)";
  auto ok = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "serverless");
  // Peer 1 crashes at 3 s, while its first two functions compute (they start after about 0.45 s and cold-start
  // for about 1.7 s), and rejoins 20 s later.
  auto crash = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, body + R"(<failures crash_peer="1" crash_at_s="3" rejoin_after_s="20" peer_timeout_s="10"/>)")),
      "serverless");
  CHECK(crash.failure.empty());
  // Its first functions ran to the end and were billed; it started a workflow again after rejoining.
  // Both functions of the iteration it crashed in finished after the crash, and were billed.
  int finished_after_crash = 0, uploads_of_peer_1 = 0;
  for (const auto& p : crash.trace)
    if (p.peer == 1 && p.phase == Phase::FunctionUpload) {
      ++uploads_of_peer_1;
      finished_after_crash += p.iteration == 0 && p.end_s > 3;
    }
  CHECK(finished_after_crash == 2);
  CHECK(uploads_of_peer_1 >= 3);  // and at least one more after it rejoined
  // Every upload is a billed invocation: peer 0's, peer 1's before and after the crash.
  int uploads = 0;
  for (const auto& p : crash.trace) uploads += p.phase == Phase::FunctionUpload;
  CHECK(crash.ledger.function_runs.size() == static_cast<size_t>(uploads));
  CHECK(phase_of(crash, 1, Phase::Down) == doctest::Approx(20).epsilon(1e-9));
  CHECK(crash.peer_end_s[1] > 23);
  CHECK(crash.iterations_done[0] == 2);
  CHECK(crash.failure_detection_wait_s > 0);  // peer 0 gave up waiting for it once
}

TEST_CASE("failures: a peer that rejoins while the others sit in a barrier does not hang them") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="3"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.large"/>
    <failures crash_peer="2" crash_at_s="14" rejoin_after_s="13" peer_timeout_s="30"/>)";
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  CHECK(r.failure.empty());
  CHECK(r.iterations_done[0] == 3);
  CHECK(r.iterations_done[1] == 3);
  CHECK(r.peer_end_s[0] < 200);  // it ends (it used to poll for ever)
  // The crashed instance is billed until the crash, the rejoined one from its return: two runs for peer 2.
  CHECK(r.ledger.instances.size() == 4);
}

TEST_CASE("failures: a rejoined peer redoing an iteration draws its steps anew, beside its first life's functions") {
  // Peer 2 crashes at 4 s, while its two functions of iteration 0 compute (they run on), and is back at 6 s; the
  // others still wait for its gradient of iteration 0, so it redoes it with two new invocations. Every step's
  // time is drawn (a heavy tail on every step): named by peer and iteration alone, the new invocations would
  // draw what the first ones drew, to the last bit.
  TempDir dir;
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="2"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.large"/>
    <functions minibatches_per_invocation="1"/>
    <stragglers tail_probability="1" tail_shape="3"/>
    <failures crash_peer="2" crash_at_s="4" rejoin_after_s="2" peer_timeout_s="60"/>)")), "serverless");
  CHECK(r.failure.empty());
  std::map<int, std::vector<double>> compute_s;  // peer 2's iteration 0, by invocation
  for (const auto& p : r.trace)
    if (p.peer == 2 && p.iteration == 0 && p.invocation >= 0 && p.phase == Phase::Compute)
      compute_s[p.invocation].push_back(p.end_s - p.start_s);
  REQUIRE(compute_s.size() == 2);
  for (const auto& [k, seconds] : compute_s) {
    CAPTURE(k);
    REQUIRE(seconds.size() == 2);  // the first life's invocation and the redo's
    CHECK(seconds[0] != seconds[1]);
  }
}

TEST_CASE("failures: when a peer's workflow fails, the others stop waiting for it, even without a timeout") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="3"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.large"/>
    <failures function_failure_probability="0.3"/>)";
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "serverless");
  CHECK(r.failure.find("failed 1 time(s)") != std::string::npos);  // no retry in the paper's state machine
  for (double end : r.peer_end_s) CHECK(end < 100);
}

TEST_CASE("function service: more containers than slots reuse idle ones of other functions instead of failing") {
  TempDir dir;
  // A tree over 4 peers with at most 2 functions at once: leaves and root share the 2 slots.
  auto r = fixture::simulate(fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="2"
              compute_variability="none"/>
    <peers count="4" instance_type="t2.large"/>
    <functions concurrency_limit="2"/>
    <systems><system name="tree" strategy="serverless_tree"/></systems>)")), "tree");
  CHECK(r.failure.empty());
  CHECK(r.iterations_done == std::vector<int>{2, 2, 2, 2});
  CHECK(r.max_containers <= 2);
}

TEST_CASE("failures: a crashed peer is presumed dead after the timeout and the survivors finish without it") {
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="3"
              compute_variability="none"/>
    <peers count="3" instance_type="t2.large"/>)";
  auto ok = fixture::simulate(fixture::scenario(write_experiment(dir, body)), "instance");
  // Peer 2 crashes before its first publish (data fetch 1.15 s + compute 1.93 s), for good.
  auto crash = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, body + R"(<failures crash_peer="2" crash_at_s="1" peer_timeout_s="30"/>)")),
      "instance");
  for (int p = 0; p < 2; ++p) {
    // The penalty is close to the detection timeout (plus up to one 2 s poll), paid once: then it is left out.
    const double penalty = crash.peer_end_s[p] - ok.peer_end_s[p];
    CHECK(penalty > 30 - 2);
    CHECK(penalty < 30 + 2 + 1);
  }
  // The crash strikes mid-phase: peer 2 dies at 1 s, half-way through loading its data, which never ends.
  CHECK(crash.peer_end_s[2] == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(phase_of(crash, 2, Phase::DataFetch) == -1.0);
  CHECK(crash.iterations_done == std::vector<int>{3, 3, 0});
  // Each survivor waits for the dead peer only: once per survivor, the timeout (within one 2 s poll).
  CHECK(crash.failure_detection_wait_s == doctest::Approx(2 * 30).epsilon(0.07));
  for (const auto& d : crash.deliveries) CHECK(d.producer != 2);
  // The survivors average the two gradients they hold, not three (then the SGD step, one more 2-gradient pass).
  CHECK(phase_of(ok, 0, Phase::AggregateUpdate) == doctest::Approx(0.0036 + 0.0024).epsilon(1e-9));
  CHECK(phase_of(crash, 0, Phase::AggregateUpdate) == doctest::Approx(0.0024 + 0.0024).epsilon(1e-9));

  // Rejoining after 40 s: it reloads its shard, catches up at the others' iteration, and everyone finishes.
  auto back = fixture::simulate(
      fixture::scenario(write_experiment(
          dir, body + R"(<failures crash_peer="2" crash_at_s="1" rejoin_after_s="40" peer_timeout_s="30"/>)")),
      "instance");
  CHECK(back.peer_end_s[2] > 41);
  bool delivered_after_rejoin = false;
  for (const auto& d : back.deliveries) delivered_after_rejoin |= d.producer == 2;
  CHECK(delivered_after_rejoin);
  CHECK(back.iterations_done[2] >= 1);
  CHECK(back.iterations_done[2] < 3);  // it skipped what it missed

  CHECK_THROWS_WITH_AS(
      fixture::scenario(write_experiment(dir, body + R"(<failures crash_peer="2" crash_at_s="1"/>)")),
      doctest::Contains("needs a timeout > 0"), InputError);
}

namespace {
// One t2.large peer loads all of MNIST (188.16 MB) through its NIC (62.5 MB/s, the bottleneck) over a route of
// one-way latency 0.00017 s, after the storage service's first byte (0.15 s): its data fetch, with the test
// profile changed by `overrides` too.
double mnist_fetch_s(const std::string& overrides) {
  TempDir dir;
  const auto path = write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="1" instance_type="t2.large"/>
    <systems><system name="peer" strategy="ring_allreduce"/></systems>)",
                                     R"(
    <override select="simulation/@network_model" value="LV08"/>
    <override select="network/@one_way_latency_s" value="0.00017"/>)" + overrides);
  const auto s = fixture::scenario(path);
  REQUIRE(s.profile.network_model.name == "LV08");
  return phase_of(fixture::simulate(s, "peer"), 0, Phase::DataFetch);
}
}  // namespace

TEST_CASE("network: an LV08 transfer takes 13.01 x the latency plus the bytes at 0.97 x the bottleneck bandwidth") {
  // SimGrid's LV08 (Velho & Legrand 2009, https://simgrid.org/doc/latest/Models.html): slow start as the
  // latency times 13.01, TCP overhead as 97 % of the bandwidth.
  const double expected = 0.15 + 13.01 * 0.00017 + 60000.0 * 3136 / (0.97 * 62.5e6);
  CHECK(mnist_fetch_s("") == doctest::Approx(expected).epsilon(1e-9));
}

TEST_CASE("network: a profile's latency factor replaces LV08's (the shipped profile's, from EC2 ping-pongs)") {
  // simulation/@latency_factor 1.22, as in platforms/aws_us_east_1.xml: a message over an open TCP connection
  // between EC2 instances costs about one latency, not slow start's 13.01.
  const double expected = 0.15 + 1.22 * 0.00017 + 60000.0 * 3136 / (0.97 * 62.5e6);
  CHECK(mnist_fetch_s(R"(<override select="simulation/@latency_factor" value="1.22"/>)") ==
        doctest::Approx(expected).epsilon(1e-9));
}

namespace {
// A run's output up to which of several tied participants goes first: peers whose events fall at the same
// instant may be served in another order when SimGrid's solver sees other links (their times trade places,
// the values stay), so records are anonymised and sorted.
RunOutput without_tie_order(RunOutput r) {
  for (auto& p : r.trace) p.peer = p.invocation = 0;
  std::sort(r.trace.begin(), r.trace.end(), [](const PhaseRecord& a, const PhaseRecord& b) {
    return std::tie(a.phase, a.iteration, a.start_s, a.end_s) < std::tie(b.phase, b.iteration, b.start_s, b.end_s);
  });
  std::sort(r.peer_end_s.begin(), r.peer_end_s.end());
  auto& runs = r.ledger.function_runs;
  std::sort(runs.begin(), runs.end(), [](const FunctionRun& a, const FunctionRun& b) {
    return std::tie(a.init_s, a.run_s) < std::tie(b.init_s, b.run_s);
  });
  auto& instances = r.ledger.instances;
  std::sort(instances.begin(), instances.end(), [](const InstanceRun& a, const InstanceRun& b) { return a.uptime_s < b.uptime_s; });
  std::sort(r.deliveries.begin(), r.deliveries.end(), [](const Delivery& a, const Delivery& b) {
    return std::tie(a.consumer, a.producer, a.iteration) < std::tie(b.consumer, b.producer, b.iteration);
  });
  return r;
}

/// The same run up to ties and to rounding: an optimistic platform computes the functions' invocations
/// (computed_invocations.hpp), which add their steps' times in their own order where SimGrid adds each to its
/// clock (below 1e-9 s here).
void check_same_up_to_ties(const RunOutput& computed, const RunOutput& simulated) {
  const RunOutput a = without_tie_order(computed), b = without_tie_order(simulated);
  constexpr double kRounding_s = 1e-9;
  CHECK(a.failure == b.failure);
  CHECK(a.ledger.storage_gets == b.ledger.storage_gets);
  CHECK(a.ledger.storage_puts == b.ledger.storage_puts);
  CHECK(a.ledger.workflow_transitions == b.ledger.workflow_transitions);
  CHECK(a.deliveries.size() == b.deliveries.size());
  REQUIRE(a.trace.size() == b.trace.size());
  for (size_t i = 0; i < a.trace.size(); ++i) {
    CAPTURE(i);
    CHECK(a.trace[i].phase == b.trace[i].phase);
    CHECK(a.trace[i].iteration == b.trace[i].iteration);
    CHECK(std::abs(a.trace[i].start_s - b.trace[i].start_s) <= kRounding_s);
    CHECK(std::abs(a.trace[i].end_s - b.trace[i].end_s) <= kRounding_s);
  }
  REQUIRE(a.ledger.function_runs.size() == b.ledger.function_runs.size());
  for (size_t i = 0; i < a.ledger.function_runs.size(); ++i) {
    CHECK(std::abs(a.ledger.function_runs[i].init_s - b.ledger.function_runs[i].init_s) <= kRounding_s);
    CHECK(std::abs(a.ledger.function_runs[i].run_s - b.ledger.function_runs[i].run_s) <= kRounding_s);
  }
  REQUIRE(a.peer_end_s.size() == b.peer_end_s.size());
  for (size_t i = 0; i < a.peer_end_s.size(); ++i) CHECK(std::abs(a.peer_end_s[i] - b.peer_end_s[i]) <= kRounding_s);
}

RunOutput simulate_in_child(const Scenario& s, const std::string& system_name, sg::StorageSharing sharing) {
  const std::string bytes = run_isolated([&] {
    return to_bytes(simulate(s, fixture::system(s, system_name), sharing));
  });
  return run_output_from_bytes(bytes);
}
}  // namespace

TEST_CASE("network: optimistic storage sharing gives the exact results, or comes back void and is simulated again") {
  // 4 t2.large peers draw up to 4 x 62.5 = 250 MB/s from storage, over half of a 400 MB/s aggregate: their
  // routes leave the link out, and the functions (55 MB/s each) share all 400 MB/s. With 1 minibatch per peer,
  // 4 functions (220 MB/s) cannot fill it; with 4, 16 functions (880 MB/s) uploading their gradients at once
  // can (8 x 55 = 440 > 400). Peers and functions together could fill it in both (470 and 1,130 MB/s), so
  // both optimistic runs are watched.
  TempDir dir;
  auto scenario_with = [&](int minibatches, const std::string& aggregate_bps = "400000000") {
    return fixture::scenario(write_experiment(
        dir,
        R"(<workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer=")" +
            std::to_string(minibatches) + R"(" iterations="2" compute_variability="none"/>
    <peers count="4" instance_type="t2.large"/>
    <systems><system name="serverless" strategy="p2p_all_to_all" compute="functions"/></systems>)",
        R"(<override select="object_storage/@aggregate_bandwidth_bps" value=")" + aggregate_bps + R"("/>)"));
  };
  const auto fits = scenario_with(1), fills = scenario_with(4);
  REQUIRE(sg::storage_link_may_bind(platform_spec(fits, fixture::system(fits, "serverless"))));
  REQUIRE(sg::storage_link_may_bind(platform_spec(fills, fixture::system(fills, "serverless"))));
  const auto exact_fits = simulate_in_child(fits, "serverless", sg::StorageSharing::Exact);
  const auto optimistic_fits = simulate_in_child(fits, "serverless", sg::StorageSharing::Optimistic);
  CHECK_FALSE(optimistic_fits.void_storage_link_bound);
  CHECK(exact_fits.trace.size() > 40);
  check_same_up_to_ties(optimistic_fits, exact_fits);

  const auto exact_fills = simulate_in_child(fills, "serverless", sg::StorageSharing::Exact);
  CHECK_FALSE(exact_fills.void_storage_link_bound);
  CHECK(simulate_in_child(fills, "serverless", sg::StorageSharing::Optimistic).void_storage_link_bound);
  // simulate_isolated runs it again, exactly: the result is the exact one, byte for byte.
  const auto isolated = simulate_isolated(fills, fixture::system(fills, "serverless"));
  CHECK_FALSE(isolated.void_storage_link_bound);
  CHECK(to_bytes(isolated) == to_bytes(exact_fills));
  // And the link did bind there: where 16 functions cannot fill it (50 GB/s), their uploads are faster.
  const auto wide = simulate_in_child(scenario_with(4, "50000000000"), "serverless", sg::StorageSharing::Exact);
  CHECK(fixture::phase_total(exact_fills, Phase::FunctionUpload) >
        1.2 * fixture::phase_total(wide, Phase::FunctionUpload));
}

namespace {
// Two of the test profile's m5.large peers (2 vCPUs, a 93.75 MB/s NIC, 87.5 MB/s a storage stream), one minibatch
// each, running `system`; `extra` goes into the experiment, `overrides` into its profile.
Scenario two_m5_large_peers(const TempDir& dir, const std::string& system, const std::string& extra,
                            const std::string& overrides) {
  return fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"
              compute_variability="none"/>
    <peers count="2" instance_type="m5.large"/>)" + extra + "<systems>" + system + "</systems>", overrides));
}
}  // namespace

TEST_CASE("network: an instance's storage client bounds its storage streams where its CPU binds before its NIC") {
  // The m5.large at a twentieth of the calibration CPU's speed: boto3's transfer manager (1.6 ns a byte there, one
  // core at most) moves 0.05 / 1.6e-9 = 31.25 MB/s, below the NIC; get_object on one stream
  // 0.05 / 0.5e-9 = 100 MB/s, above the stream's 87.5, so no bound and no link.
  TempDir dir;
  auto scenario_with = [&](const std::string& system) {
    return two_m5_large_peers(dir, system, "",
                              R"(<override select="instance_types/instance[@type='m5.large']/@cpu_speed_factor" value="0.05"/>)");
  };
  const auto parts = scenario_with(R"(<system name="peer" strategy="p2p_all_to_all" compute="peer" storage_streams="10"/>)");
  const auto spec = platform_spec(parts, fixture::system(parts, "peer"));
  REQUIRE(spec.peers.size() == 2);
  for (const auto& m : spec.peers) CHECK(m.storage_client_bps == doctest::Approx(0.05 / 1.6e-9).epsilon(1e-12));
  const auto one = scenario_with(R"(<system name="peer" strategy="p2p_all_to_all" compute="peer"/>)");
  for (const auto& m : platform_spec(one, fixture::system(one, "peer")).peers) CHECK(m.storage_client_bps == 0);
}

TEST_CASE("network: a straggler's storage client runs on its own slower CPU, at the loop's cost here") {
  // A profile whose Lithops loop (get_object_md5, 1.8 ns a byte here) moved 125 MB/s a vCPU on Lambda (8 ns): a
  // function's get_object costs 8 - 1.3 / speed ns a byte, which a CPU slower than 0.1625 would make negative. An
  // instance's client does not start from Lambda's rate: a peer slowed 10 times (speed 0.1) moves
  // 0.1 / 0.5e-9 = 200 MB/s with get_object (above its 87.5 MB/s stream: no link) and 0.1 / 1.6e-9 = 62.5 MB/s
  // with the transfer manager on 4 streams (below its 93.75 MB/s NIC: a link).
  TempDir dir;
  auto scenario_with = [&](const std::string& system) {
    return two_m5_large_peers(dir, system, R"(<stragglers slowdown="10 1"/>)",
                              R"(<override select="function_service/@storage_client_measured_with" value="get_object_md5"/>
    <override select="function_service/@storage_client_bps_per_vcpu" value="125000000"/>)");
  };
  const auto one = scenario_with(R"(<system name="peer" strategy="p2p_all_to_all" compute="peer"/>)");
  sg::PlatformSpec spec;
  REQUIRE_NOTHROW(spec = platform_spec(one, fixture::system(one, "peer")));
  CHECK(spec.peers.at(0).storage_client_bps == 0);
  const auto parts = scenario_with(R"(<system name="peer" strategy="p2p_all_to_all" compute="peer" storage_streams="4"/>)");
  spec = platform_spec(parts, fixture::system(parts, "peer"));
  CHECK(spec.peers.at(0).storage_client_bps == doctest::Approx(0.1 / 1.6e-9).epsilon(1e-12));
  CHECK(spec.peers.at(1).storage_client_bps == 0);  // 1 / 1.6e-9 = 625 MB/s: its NIC binds first
}

TEST_CASE("network: a function's storage client is carried at its CPU's scalar speed, whatever the run's kind") {
  // By hand: the Lithops loop (get_object_md5, 1.8 ns a byte here) moved 125 MB/s a vCPU on Lambda (8 ns); a
  // function's get_object costs 1.3 ns a byte less here, over the scalar factor: 8 - 1.3 / 1.0 = 6.7 ns, and
  // 8 - 1.3 / 0.5 = 5.4 ns at half the speed. A 442 MB function has 442 / 1,769 of a vCPU, below the test profile's
  // 55 MB/s stream, so its CPU share of the client's rate is the stream's rate. A vector run's own factor (LibTorch's
  // steps) does not move it: the difference is md5 and the loop's Python, and the rate was derived at the scalar one.
  TempDir dir;
  auto stream_bps = [&](const std::string& vector, const std::string& scalar) {
    const auto s = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="1"/>
    <peers count="1" instance_type="t2.large"/>
    <functions memory_mb="442"/>
    <systems><system name="serverless" strategy="p2p_all_to_all" compute="functions"/></systems>)",
                                                       R"(<override select="function_service/@storage_client_measured_with" value="get_object_md5"/>
    <override select="function_service/@storage_client_bps_per_vcpu" value="125000000"/>
    <override select="function_service/@cpu_speed_factor_x86" value=")" + vector + R"("/>
    <override select="function_service/@cpu_scalar_speed_factor_x86" value=")" + scalar + R"("/>)"));
    REQUIRE(s.experiment.workload.cpu_work == "vector");
    return platform_spec(s, fixture::system(s, "serverless")).function_stream_bps;
  };
  const double share = 442 / 1769.0;
  CHECK(stream_bps("0.5", "1.0") == doctest::Approx(share / 6.7e-9).epsilon(1e-9));
  CHECK(stream_bps("1.0", "1.0") == doctest::Approx(share / 6.7e-9).epsilon(1e-9));
  CHECK(stream_bps("1.0", "0.5") == doctest::Approx(share / 5.4e-9).epsilon(1e-9));
}

TEST_CASE("network: a function slot's storage route on its NIC alone times every transfer as the shared link's route, with LV08 and latency") {
  // As above (4 functions cannot fill 400 MB/s), but with the shipped LV08 model and a 5 ms one-way latency. The
  // optimistic platform routes each slot to storage over its NIC alone, which carries the whole latency; the exact
  // one over its NIC (half the latency) and the shared link (the other half).
  TempDir dir;
  const auto s = fixture::scenario(write_experiment(dir, R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="2"
              compute_variability="none"/>
    <peers count="4" instance_type="t2.large"/>
    <systems><system name="serverless" strategy="p2p_all_to_all" compute="functions"/></systems>)",
                                                     R"(<override select="object_storage/@aggregate_bandwidth_bps" value="400000000"/>
    <override select="simulation/@network_model" value="LV08"/>
    <override select="network/@one_way_latency_s" value="0.005"/>)"));
  const auto spec = platform_spec(s, fixture::system(s, "serverless"));
  REQUIRE(sg::storage_link_may_bind(spec));
  REQUIRE_FALSE(spec.functions_reach_peers);
  REQUIRE(spec.servers.empty());
  const auto exact = simulate_in_child(s, "serverless", sg::StorageSharing::Exact);
  const auto optimistic = simulate_in_child(s, "serverless", sg::StorageSharing::Optimistic);
  CHECK_FALSE(optimistic.void_storage_link_bound);
  CHECK(fixture::phase_total(exact, Phase::FunctionUpload) > 0);
  check_same_up_to_ties(optimistic, exact);
}

TEST_CASE("network: reserving the peers' share of object storage changes no transfer while the link cannot fill") {
  // Peers ask at most 4 x 62.5 MB/s = 250 MB/s of storage and 4 functions 4 x 55 = 220 MB/s: 470 MB/s in all.
  // An aggregate of 480 MB/s (under twice the peers' share: one link shared by all) and one of 50 GB/s (the
  // peers' share reserved, their routes off the shared link) never fill, so every transfer must take the same
  // time; only which of two tied peers goes first may differ.
  TempDir dir;
  const std::string body = R"(
    <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="1" iterations="2"
              compute_variability="none"/>
    <peers count="4" instance_type="t2.large"/>
    <systems><system name="serverless" strategy="p2p_all_to_all" compute="functions"/></systems>)";
  auto durations = [&](const std::string& aggregate_bps) {
    const auto s = fixture::scenario(write_experiment(
        dir, body, R"(<override select="object_storage/@aggregate_bandwidth_bps" value=")" + aggregate_bps + R"("/>)"));
    std::vector<std::pair<int, long long>> out;  // (phase, duration in ns)
    for (const auto& p : fixture::simulate(s, "serverless").trace)
      out.emplace_back(static_cast<int>(p.phase), std::llround((p.end_s - p.start_s) * 1e9));
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto shared = durations("480000000"), reserved = durations("50000000000");
  CHECK(shared.size() > 40);
  CHECK(shared == reserved);
}

TEST_CASE("a run's output comes back from its bytes as it was: function runs, updates and their gradients") {
  // What a child process sends its parent and what a sweep's memo stores (run_output.hpp).
  RunOutput out;
  out.transport = "broker";
  out.ledger.function_runs = {{1769, "x86", 1.25, 0.5, 3.5}, {3008, "arm", 0, 0, 0.125}, {1769, "x86", 0, 0, 2.0}};
  out.ledger.instances = {{"t2.large", 12.5}};
  out.ledger.storage_gets = 7;
  out.trace = {{0, 0, 1, Phase::Compute, 0.5, 1.5}};
  out.updates = {{0, 0, 2.5, {3, 1, 4, 1}, true, {}},
                 {1, 0, 3.0, {5, 9, 2, 6}, false, {{1, 0}, {0, 0}, {2, 0}}},
                 {2, 1, 4.0, {0, 0, 0, 0}, false, {{2, 1}}}};
  out.peer_end_s = {4.0, 3.5};
  out.iterations_done = {2, 1};
  out.staleness = {0, 1};
  // Every other field its own value, so that one read into another's place shows.
  out.ledger.workflow_transitions = 11;
  out.ledger.storage_puts = 13;
  out.ledger.broker_uptime_s = 17.5;
  out.ledger.surplus_credits = 19.25;
  out.deliveries = {{1, 0, 0}, {0, 1, 1}};
  out.schedule_unsupported = "no schedule";
  out.cold_starts = 23;
  out.warm_starts = 29;
  out.max_containers = 31;
  out.failure = "peer 1 out of memory";
  out.failure_detection_wait_s = 37.5;
  out.credits_exhausted_at_s = {-1, 41.0};
  out.void_storage_link_bound = true;
  out.ledger.function_storage_requests = 43;
  out.mechanisms = bit(Mechanism::Broker) | bit(Mechanism::Workflow);
  const std::string bytes = to_bytes(out);
  const RunOutput back = run_output_from_bytes(bytes);
  REQUIRE(back.ledger.function_runs.size() == 3);
  CHECK(back.ledger.function_runs[1].arch == "arm");
  CHECK(back.ledger.function_runs[1].memory_mb == 3008);
  CHECK(back.ledger.function_runs[2].arch == "x86");
  CHECK(back.ledger.function_runs[0].init_s == 1.25);
  CHECK(back.ledger.function_runs[0].billed_init_s == 0.5);
  CHECK(back.ledger.function_runs[2].run_s == 2.0);
  REQUIRE(back.updates.size() == 3);
  CHECK(back.updates[0].whole_iteration);
  CHECK(back.updates[0].gradients.empty());
  CHECK(back.updates[1].usage.workflow_transitions == 9);
  CHECK(back.updates[1].usage.storage_puts == 6);
  REQUIRE(back.updates[1].gradients.size() == 3);
  CHECK(back.updates[1].gradients[2].producer == 2);
  REQUIRE(back.updates[2].gradients.size() == 1);
  CHECK(back.updates[2].gradients[0].iteration == 1);
  CHECK(back.updates[2].time_s == 4.0);
  CHECK(back.ledger.instances.at(0).type == "t2.large");
  CHECK(back.ledger.storage_gets == 7);
  CHECK(back.trace.at(0).end_s == 1.5);
  CHECK(back.staleness == out.staleness);
  CHECK(back.ledger.workflow_transitions == 11);
  CHECK(back.ledger.storage_puts == 13);
  CHECK(back.ledger.broker_uptime_s == 17.5);
  CHECK(back.ledger.surplus_credits == 19.25);
  REQUIRE(back.deliveries.size() == 2);
  CHECK(back.deliveries[1].iteration == 1);
  CHECK(back.schedule_unsupported == "no schedule");
  CHECK(back.transport == "broker");
  CHECK(back.ledger.function_storage_requests == 43);
  CHECK(back.mechanisms == out.mechanisms);
  CHECK(back.cold_starts == 23);
  CHECK(back.warm_starts == 29);
  CHECK(back.max_containers == 31);
  CHECK(back.failure == "peer 1 out of memory");
  CHECK(back.failure_detection_wait_s == 37.5);
  CHECK(back.credits_exhausted_at_s == out.credits_exhausted_at_s);
  CHECK(back.peer_end_s == out.peer_end_s);
  CHECK(back.iterations_done == out.iterations_done);
  CHECK(back.void_storage_link_bound);
  CHECK(to_bytes(back) == bytes);
  // Bytes cut short, or followed by more, or of another layout, are refused, never read past their end.
  CHECK_THROWS(run_output_from_bytes(std::string_view(bytes).substr(0, bytes.size() - 1)));
  CHECK_THROWS(run_output_from_bytes(bytes + "x"));
  std::string other = bytes;
  other[other.find("output")] = 'O';
  CHECK_THROWS(run_output_from_bytes(other));
}
