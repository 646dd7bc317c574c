#include "run_memo.hpp"

#include "../util/atomic_file.hpp"
#include "../util/read_text.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <fmt/core.h>

#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace p2psim {

namespace {
// The text without the systems, and without <functions> or only without its memory size.
std::string text_without(const std::string& experiment_xml, bool functions_memory_only) {
  pugi::xml_document doc;
  if (!doc.load_string(experiment_xml.c_str())) throw std::runtime_error("a sweep's scenario is not valid XML");
  auto root = doc.document_element();
  for (const char* element : {"systems", "architectures"})
    while (auto node = root.child(element)) root.remove_child(node);
  if (functions_memory_only) {
    for (auto functions = root.child("functions"); functions; functions = functions.next_sibling("functions"))
      functions.remove_attribute("memory_mb");
  } else {
    while (auto node = root.child("functions")) root.remove_child(node);
  }
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw | pugi::format_no_declaration);
  return out.str();
}
}  // namespace

std::string text_without_functions_and_systems(const std::string& experiment_xml) {
  return text_without(experiment_xml, false);
}

RunMemo::RunMemo(fs::path dir) : dir_(std::move(dir)) { fs::create_directories(dir_); }

std::string RunMemo::key(const std::string& experiment_xml, const std::map<std::string, std::string>& file_hashes,
                         const SystemSpec& system, bool exact_storage_sharing, const std::string& function_timing) {
  std::string text = function_timing.empty() ? text_without(experiment_xml, false)
                                             : text_without(experiment_xml, true) + "\nfunction timing " + function_timing;
  for (const auto& [file, hash] : file_hashes) text += "\nfile " + file + " " + hash;
  text += "\nsystem " + system.name + " " + system.strategy;
  for (const auto& [name, value] : system.params) text += " " + name + "=" + value;
  text += exact_storage_sharing ? "\nexact" : "\noptimistic";
  // 128 bits: a collision would hand one scenario another's output, silently; at 64 bits that was ~1e-16 for the
  // paper grid's 90 keys, a risk a sweep of millions of scenarios would grow by their square.
  const XXH128_hash_t hash = XXH3_128bits(text.data(), text.size());
  return fmt::format("{:016x}{:016x}", hash.high64, hash.low64);
}

std::optional<RunOutput> RunMemo::find(const std::string& key) const {
  const std::string bytes = read_text(dir_ / (key + ".bin"));
  if (bytes.empty()) return std::nullopt;  // not stored (yet)
  std::optional<RunOutput> out;
  try {
    out = run_output_from_bytes(bytes);
  } catch (const std::exception&) {  // unreadable (a disk error): simulated again, never a wrong or failed row
    return std::nullopt;
  }
  // One byte per output read back: O_APPEND writes of one byte from several processes never overwrite each other.
  const int fd = ::open((dir_ / "reused").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    [[maybe_unused]] const auto written = ::write(fd, "+", 1);
    ::close(fd);
  }
  return out;
}

void RunMemo::store(const std::string& key, const RunOutput& out) const {
  try {
    write_file_atomically(dir_ / (key + ".bin"), to_bytes(out));
  } catch (const std::runtime_error&) {  // a memo that cannot be written only costs the next scenario a simulation
  }
}

long long RunMemo::reused(const fs::path& dir) {
  std::error_code error;
  const auto size = fs::file_size(dir / "reused", error);
  return error ? 0 : static_cast<long long>(size);
}

}  // namespace p2psim
