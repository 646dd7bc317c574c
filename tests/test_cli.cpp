// The p2psim command line end to end: help, the torch-backed subcommands, and bad input.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "temp_dir.hpp"

TEST_CASE("help lists the commands and an unknown command exits 2") {
  auto help = run_cli("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("calibrate") != std::string::npos);
  auto bad = run_cli("frobnicate");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("the simulator front end does not load libtorch") {
  auto r = run_cli("--help", "LD_DEBUG=libs");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("libstdc++.so") != std::string::npos);  // the loader trace is there ...
  CHECK(r.output.find("libtorch") == std::string::npos);    // ... and holds no torch
}

TEST_CASE("models lists parameter counts and gradient bytes") {
  auto r = run_cli("models --csv --classes 10");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("vgg11,10,128807306,515229224,3x224x224") != std::string::npos);
  CHECK(r.output.find("mnist_cnn,10,1199882,4799528,1x28x28") != std::string::npos);
}

TEST_CASE("calibrate writes samples and metadata that fit reads back") {
  TempDir dir;
  const auto csv = dir.path("mnist.csv");
  auto r = run_cli("calibrate -m mnist_cnn --batch-sizes 4,8 --threads 1 --warmup 1 --repeats 2 --min-repeats 2 "
                   "--average-counts 2 --codecs fp16,qsgd8_paper -o " + csv);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("[1/") != std::string::npos);  // progress on stderr
  std::ifstream in(csv);
  std::string line;
  int train = 0, ops = 0;
  std::getline(in, line);
  CHECK(line.rfind("kernel,model,num_classes,input_shape,batch_size,threads", 0) == 0);
  while (std::getline(in, line)) (line.rfind("train_step,mnist_cnn,10,1x28x28,", 0) == 0 ? train : ops)++;
  CHECK(train == 4);     // 2 batch sizes x 2 samples
  CHECK(ops == 2 * 5);   // average + 2 codecs x (encode, decode), 2 samples each
  auto meta = nlohmann::json::parse(std::ifstream(csv + ".meta.json"));
  CHECK(meta["torch_version"].get<std::string>().rfind("1.13", 0) == 0);
  CHECK(meta["command"].get<std::string>().find("calibrate -m mnist_cnn") != std::string::npos);
  CHECK(meta.contains("cpu_model"));
  CHECK(meta.contains("blas"));

  auto fit = run_cli("fit " + csv + " --model mnist_cnn --input 1x28x28 --batch 8");
  CHECK(fit.exit_code == 0);
  CHECK(fit.output.find("step_seconds=") != std::string::npos);
  auto beyond = run_cli("fit " + csv + " --model mnist_cnn --input 1x28x28 --batch 64");
  CHECK(beyond.exit_code == 2);
  CHECK(beyond.output.find("outside what the calibration") != std::string::npos);
}

TEST_CASE("bad calibrate and fit input exits 2 with a clear message") {
  TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"calibrate -m nosuch -o " + dir.path("x.csv"), "unknown model 'nosuch'"},
      {"calibrate -m mnist_cnn@1x28 -o " + dir.path("x.csv"), "is not CxHxW"},
      {"calibrate -m vgg11_cifar@3x8x8 -o " + dir.path("x.csv"), "does not accept input 3x8x8"},
      {"calibrate -m mnist_cnn --batch-sizes 0 -o " + dir.path("x.csv"), "--batch-sizes: 0 is outside"},
      {"calibrate -m mnist_cnn -o /nonexistent/dir/x.csv", "directory '/nonexistent/dir' does not exist"},
      {"calibrate -m mnist_cnn", "'--out' is required"},
      {"fit " + dir.path("absent.csv"), "absent.csv: no such file"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    auto r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
}
