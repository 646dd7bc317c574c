// `p2psim fit`: what the compute model makes of calibration CSVs, and optionally one prediction.
#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "../compute/compute_model.hpp"
#include "../util/args.hpp"
#include "../util/csv_files.hpp"
#include "../util/input_error.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace p2psim::cli {

int cmd_fit(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("csv", po::value<std::vector<std::string>>()->required(),
                                                  "calibration CSV files or folders of them")(
      "model", po::value<std::string>(), "predict for this model ...")("input", po::value<std::string>(),
                                                                      "... with this input shape CxHxW ...")(
      "batch", po::value<double>(), "... at this batch size ...")("vcpus", po::value<double>()->default_value(1),
                                                                "... on this many vCPUs of the calibration CPU");
  po::positional_options_description pos;
  pos.add("csv", -1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim fit CSV... [--model M --input CxHxW --batch B [--vcpus V]]\n"
                     "Prints every kernel family's fit with its worst error at a measured point, and the thread scaling.",
                     vm, &pos))
    return kExitOk;
  std::vector<std::string> paths;
  for (const auto& p : vm["csv"].as<std::vector<std::string>>()) {
    if (std::filesystem::is_directory(p)) {  // a folder: its CSV files, in name order
      const auto csvs = csv_files_in(p);
      if (csvs.empty()) throw UsageError(p + ": directory holds no .csv file");
      paths.insert(paths.end(), csvs.begin(), csvs.end());
    } else if (std::filesystem::is_regular_file(p)) {
      paths.push_back(p);
    } else {
      throw UsageError(p + ": no such file");
    }
  }
  ComputeModel cm;
  try {
    cm = ComputeModel::load(paths);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  // The one prediction asked for, made before anything is printed: a query the data cannot answer is refused
  // before the tables, not after them.
  std::optional<double> prediction;
  if (vm.count("model") || vm.count("input") || vm.count("batch") || !vm["vcpus"].defaulted()) {
    if (!vm.count("model") || !vm.count("input") || !vm.count("batch"))
      throw UsageError("--model, --input and --batch go together (and --vcpus needs them)");
    for (const char* option : {"batch", "vcpus"})
      if (const double v = vm[option].as<double>(); !(v > 0) || !std::isfinite(v))
        throw UsageError(fmt::format("--{}: expected a finite number > 0, got {}", option, v));
    try {
      prediction = cm.step_seconds(vm["model"].as<std::string>(), vm["input"].as<std::string>(),
                                   vm["batch"].as<double>(), vm["vcpus"].as<double>());
    } catch (const std::logic_error& e) {  // out_of_range / invalid_argument: the query is outside the data
      throw UsageError(e.what());
    }
  }
  // Every kernel family with the worst relative error of its fit at a measured point (against the median).
  // Held out: each interior point predicted from its two neighbours, i.e. how far off between measured points.
  fmt::print("{:<52} {:>22} {:>13} {:>10}\n", "kernel family", "measured", "max rel err", "held out");
  auto family = [](const std::string& name, const ComputeModel::Curve& c, const std::string& unit) {
    fmt::print("{:<52} {:>22} {:>12.1f}% {:>9.1f}%\n", name,
               fmt::format("{:.3g}..{:.3g}{}", c.xs.front(), c.xs.back(), unit), 100 * c.max_relative_error(),
               100 * c.held_out_error());
  };
  for (const auto& [key, f] : cm.step_fits())
    for (const auto& [threads, curve] : f.by_threads)
      family(fmt::format("train_step {}@{} {} thread(s)", key.first, key.second, threads), curve, " batch");
  for (const auto& [key, curve] : cm.memory_fits())
    family(fmt::format("step memory {}@{}", key.first, key.second), curve, " batch");
  for (const auto& [key, curve] : cm.input_pipeline_fits())
    family(fmt::format("input_pipeline {}@{}", key.first, key.second), curve, " batch");
  for (const auto& [kernel, curve] : cm.tensor_op_fits())
    family(kernel, curve, kernel == "average" ? " n*elem" : " elem");

  // Samples far from their configuration's median: the curve ignores them, a run's noise draws from them.
  for (const auto& [key, f] : cm.step_fits())
    for (const auto& o : f.outliers)
      fmt::print("outlier: {}:{}: train_step {}@{}: {:.4g} s where its configuration's median is {:.4g} s ({:.1f}x)\n",
                 o.file, o.line, key.first, key.second, o.seconds, o.median_s, o.seconds / o.median_s);

  // Thread scaling as the simulator uses it (Amdahl's law, speed-ups capped at linear).
  fmt::print("\n{:<32} {:>14} {:>12} {:>14} {:>14}\n", "model", "1 thread (s)", "threads", "serial frac.",
             "busy vCPUs");
  for (const auto& [key, f] : cm.step_fits())
    for (double batch : {f.min_batch, f.max_batch}) {
      const int n = f.max_threads();
      fmt::print("{:<32} {:>14.4f} {:>12} {:>14.3f} {:>14.2f}{}\n",
                 fmt::format("{}@{} b={}", key.first, key.second, batch), f.by_threads.at(1)(batch), n,
                 f.serial_fraction(batch), cm.step_busy_vcpus(key.first, key.second, batch, n),
                 f.superlinear ? "  (a measured speed-up beat linear: capped)" : "");
    }
  if (prediction) fmt::print("step_seconds={:.6f}\n", *prediction);
  return kExitOk;
}

}  // namespace p2psim::cli
