#include "calibration_cpu.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "../util/file_stamp.hpp"
#include "../util/input_error.hpp"
#include "../util/read_text.hpp"

namespace p2psim {
namespace {

struct MetaCpu {
  std::string identity;  // empty when the file does not say
  long line = 0;         // of "cpu_identity" in the file
};

MetaCpu read_meta_cpu(const std::string& meta_path) {
  const std::string text = read_input_file(meta_path, kMaxCsvFileBytes);
  const nlohmann::json meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded()) throw InputError(meta_path, 0, "", "not valid JSON (written by p2psim calibrate)");
  MetaCpu out;
  auto it = meta.find("cpu_identity");
  if (it == meta.end()) return out;
  if (!it->is_string()) throw InputError(meta_path, 0, "cpu_identity", "must be a string");
  out.identity = it->get<std::string>();
  const size_t at = text.find("\"cpu_identity\"");
  out.line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  return out;
}

}  // namespace

void check_calibration_cpu(const CloudProfile& profile, const ComputeModel& compute) {
  if (profile.cpu_reference_identity.empty()) return;
  // A sweep resolves thousands of scenarios over the same few files: each is read once while it is unchanged.
  static FileMemo<int, MetaCpu> read;
  for (const auto& csv : compute.timing_files()) {
    const std::string meta_path = csv + ".meta.json";
    if (!std::filesystem::exists(meta_path)) continue;
    const MetaCpu cpu = read.get({meta_path}, 0, [&] { return read_meta_cpu(meta_path); });
    if (cpu.identity.empty() || cpu.identity == profile.cpu_reference_identity) continue;
    throw InputError(meta_path, cpu.line, "cpu_identity",
                     "the calibration " + std::filesystem::path(csv).filename().string() + " was measured on '" +
                         cpu.identity + "', but the speed factors of " + profile.path + " are relative to '" +
                         profile.cpu_reference_identity + "' (<cpu_reference identity>, line " +
                         std::to_string(profile.cpu_reference_line) +
                         "): calibrate on that CPU, or give the profile this CPU's identity and benchmark score "
                         "(docs/calibrating.md)");
  }
}

}  // namespace p2psim
