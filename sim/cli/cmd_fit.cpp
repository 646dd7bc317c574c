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
  fmt::print("{:<20} {:<9} {:>12} {:>12} {:>12} {:>12} {:>13}\n", "model", "input", "batches", "1T@min (s)",
             "1T@max (s)", "2T speedup", "max rel err");
  for (const auto& [key, f] : cm.step_fits()) {
    const double speedup = f.has_two_threads ? f.one_thread(f.max_batch) / f.two_threads(f.max_batch) : 0;
    const double err = std::max(f.one_thread.max_relative_error(), f.two_threads.max_relative_error());
    fmt::print("{:<20} {:<9} {:>5}..{:<6} {:>12.4f} {:>12.4f} {:>12.2f} {:>13.4f}\n", key.first, key.second,
               f.min_batch, f.max_batch, f.one_thread(f.min_batch), f.one_thread(f.max_batch), speedup, err);
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
