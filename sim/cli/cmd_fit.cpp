// `p2psim fit`: what the compute model makes of calibration CSVs, and optionally one prediction.
#include <fmt/core.h>

#include <filesystem>

#include "../compute_model.hpp"
#include "../input_error.hpp"
#include "args.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace p2psim::cli {

int cmd_fit(int argc, char** argv) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("csv", po::value<std::vector<std::string>>()->required(),
                                                  "calibration CSV files")(
      "model", po::value<std::string>(), "predict for this model ...")("input", po::value<std::string>(),
                                                                      "... with this input shape CxHxW ...")(
      "batch", po::value<double>(), "... at this batch size ...")("vcpus", po::value<double>()->default_value(1),
                                                                "... on this many vCPUs of the calibration CPU");
  po::positional_options_description pos;
  pos.add("csv", -1);
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc,
                     "usage: p2psim fit CSV... [--model M --input CxHxW --batch B [--vcpus V]]\n"
                     "Prints the per-model fits of training-step time against batch size.",
                     vm, &pos))
    return kExitOk;
  auto paths = vm["csv"].as<std::vector<std::string>>();
  for (const auto& p : paths)
    if (!std::filesystem::is_regular_file(p)) throw UsageError(p + ": no such file");
  ComputeModel cm;
  try {
    cm = ComputeModel::load(paths);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  fmt::print("{:<20} {:<9} {:>10} {:>12} {:>9} {:>12} {:>12} {:>9}\n", "model", "input", "batches", "1T a (s)",
             "1T b(s/x)", "1T maxrelerr", "2T b(s/x)", "2T/1T@64");
  for (const auto& [key, f] : cm.step_fits()) {
    const double ratio = f.has_two_threads ? f.two_threads(64) / f.one_thread(64) : 0;
    fmt::print("{:<20} {:<9} {:>4}..{:<5} {:>12.5f} {:>9.6f} {:>12.3f} {:>12.6f} {:>9.3f}\n", key.first, key.second,
               f.min_batch, f.max_batch, f.one_thread.intercept_s, f.one_thread.slope_s,
               f.one_thread.max_relative_error, f.two_threads.slope_s, ratio);
  }
  if (vm.count("model") || vm.count("input") || vm.count("batch")) {
    if (!vm.count("model") || !vm.count("input") || !vm.count("batch"))
      throw UsageError("--model, --input and --batch go together");
    try {
      const double s = cm.step_seconds(vm["model"].as<std::string>(), vm["input"].as<std::string>(),
                                       vm["batch"].as<double>(), vm["vcpus"].as<double>());
      fmt::print("step_seconds={:.6f}\n", s);
    } catch (const std::logic_error& e) {  // out_of_range / invalid_argument: the query is outside the data
      throw UsageError(e.what());
    }
  }
  return kExitOk;
}

}  // namespace p2psim::cli
