// Bad input from a file the user supplied: carries file, line and field so the message can name them.
#pragma once
#include <stdexcept>
#include <string>

namespace p2psim {

struct InputError : std::runtime_error {
  InputError(const std::string& file, long line, const std::string& field, const std::string& what)
      : std::runtime_error(format(file, line, field, what)), file(file), line(line), field(field), message(what) {}

  // The parts, for callers that hand them on (the Python module's p2psim.InputError).
  std::string file;
  long line = 0;
  std::string field, message;

  static std::string format(const std::string& file, long line, const std::string& field, const std::string& what) {
    if (file.empty()) return what;  // already formatted (e.g. relayed from a child process)
    std::string where = file;
    if (line > 0) where += ":" + std::to_string(line);
    if (!field.empty()) where += ": field '" + field + "'";
    return where + ": " + what;
  }
};

}  // namespace p2psim
