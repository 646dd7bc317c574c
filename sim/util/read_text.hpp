// A whole file's bytes as a string, and the size limits of what p2psim reads (docs/limits.md).
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "input_error.hpp"

namespace p2psim {

// The largest shipped experiment or profile is 23 KB, the largest calibration file 73 KB: the limits leave
// a thousandfold room and stop `p2psim run /dev/zero` from filling the machine's memory.
constexpr std::size_t kMaxXmlFileBytes = 16u << 20;       // experiments, profiles, validation cases
constexpr std::size_t kMaxCsvFileBytes = 256u << 20;      // calibration samples, model sizes, recorded errors
constexpr std::size_t kMaxScheduleFileBytes = 1u << 30;   // schedule.json: one entry per update of a long run

/// Files p2psim wrote itself (empty when it cannot be read: callers that must tell check first).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A user's input file: InputError naming it when it is a folder, cannot be read, or holds more than
/// `max_bytes` (read up to one byte past the limit, so a device or a pipe without end is refused too).
inline std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes) {
  if (std::filesystem::is_directory(path)) throw InputError(path.string(), 0, "", "is a folder, expected a file");
  if (std::filesystem::is_socket(path)) throw InputError(path.string(), 0, "", "is a socket, expected a file");
  // A named pipe is opened without waiting for a writer (a blocking open would wait for ever for one that never
  // comes); then read as a file: with no writer it reads as empty, with one (`run <(cat e.xml)`) as what it writes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (std::filesystem::is_fifo(path) ? O_NONBLOCK : 0));
  if (fd < 0) throw InputError(path.string(), 0, "", "cannot open file");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buf[1 << 16];
  ssize_t got = 0;
  while (text.size() <= max_bytes && ((got = ::read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)))
    if (got > 0) text.append(buf, static_cast<std::size_t>(got));
  ::close(fd);
  if (got < 0) throw InputError(path.string(), 0, "", "cannot read file");
  if (text.size() > max_bytes)
    throw InputError(path.string(), 0, "",
                     "larger than " + std::to_string(max_bytes >> 20) + " MiB, the limit for this kind of file "
                     "(docs/limits.md)");
  return text;
}

}  // namespace p2psim
