// Small helpers shared by the p2psim command-line front ends (p2psim and p2psim-torch): parsing options and
// numbers, and reporting a user's mistake on one line with exit code 2.
#pragma once
#include <boost/program_options.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "parse_number.hpp"

namespace p2psim {

/// A mistake in what the user typed or supplied: reported on one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs `body` as the subcommand `p2psim NAME`: a UsageError is reported on one line with exit code 2, any other
/// exception as an internal error with exit code 1. Shared by main() and the commands run in forked children.
inline int run_reporting_errors(const std::string& name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "p2psim " << name << ": error: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "p2psim " << name << ": internal error: " << e.what() << '\n';
    return kExitInternal;
  }
}

/// Splits "a,b,c" into its items; empty items are an error naming `option`.
inline std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError("--" + option + ": empty item in '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

/// Parses a whole decimal integer in [min, max]; anything else is a UsageError naming `option`.
inline long long parse_int(const std::string& text, const std::string& option, long long min, long long max) {
  const auto parsed = parse_integer(text);
  if (!parsed) throw UsageError("--" + option + ": '" + text + "' is not an integer");
  const long long v = *parsed;
  if (v < min || v > max)
    throw UsageError("--" + option + ": " + text + " is outside [" + std::to_string(min) + ", " +
                     std::to_string(max) + "]");
  return v;
}

template <class Int>
std::vector<Int> parse_int_list(const std::string& text, const std::string& option, long long min, long long max) {
  std::vector<Int> out;
  for (const auto& item : split_list(text, option)) out.push_back(static_cast<Int>(parse_int(item, option, min, max)));
  return out;
}

/// Parses argv with `desc`; --help prints usage and returns false. Unknown options become UsageErrors.
inline bool parse_or_help(int argc, char** argv, const boost::program_options::options_description& desc,
                          const std::string& usage, boost::program_options::variables_map& vm,
                          const boost::program_options::positional_options_description* positional = nullptr) {
  namespace po = boost::program_options;
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(desc);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n\n" << desc << '\n';
      return false;
    }
    po::notify(vm);
  } catch (const po::required_option& e) {
    // A missing positional argument is named as the usage line names it, not as the option ("--experiment") that
    // holds it, which no usage line shows.
    const std::string name = e.get_option_name().substr(e.get_option_name().find_first_not_of('-'));
    const std::string line = usage.substr(0, usage.find('\n'));  // "usage: p2psim run EXPERIMENT.xml [--out DIR]"
    std::istringstream words(line);
    std::vector<std::string> shown;  // the usage line's arguments, as it shows them
    for (std::string w; words >> w;)
      if (w != "usage:" && w[0] != '[' && w[0] != '-') shown.push_back(w);
    for (unsigned i = 0; positional && i < positional->max_total_count() && i < 8; ++i)
      if (positional->name_for_position(i) == name)
        throw UsageError("missing " + (i + 2 < shown.size() ? shown[i + 2] : name) + " (" + line + ")");
    throw UsageError(e.what());
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

/// The nearest folder of `path` that exists (itself, or an ancestor): where creating it needs permission. A
/// symbolic link counts as existing even when what it points to does not, so that it is judged, not skipped.
inline std::filesystem::path nearest_existing(std::filesystem::path path) {
  namespace fs = std::filesystem;
  path = fs::absolute(path);
  while (!fs::exists(fs::symlink_status(path)) && path.has_parent_path() && path != path.parent_path())
    path = path.parent_path();
  return path;
}

/// Whether a folder `at` that exists takes new entries: a probe folder made and removed there. access() is not
/// enough: it answers yes to root for /proc and /sys, which refuse every new entry.
inline bool takes_new_entries(const std::filesystem::path& at) {
  std::string probe = (at / ".p2psim-probe-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) return false;
  std::error_code ignored;
  std::filesystem::remove(probe, ignored);
  return true;
}

/// --OPTION names a folder to write into (created when missing): refused before any work when it is a file, a
/// broken link, or cannot be created or written, so that nothing computed is lost to a bad path.
inline void check_output_dir(const std::string& path, const std::string& option = "out") {
  namespace fs = std::filesystem;
  if (path.empty()) throw UsageError("--" + option + ": empty path");
  try {
    const auto at = nearest_existing(path);
    if (fs::is_symlink(fs::symlink_status(at)) && !fs::exists(at))
      throw UsageError("--" + option + ": '" + at.string() + "' is a symbolic link to nothing");
    if (!fs::is_directory(at)) throw UsageError("--" + option + ": '" + at.string() + "' is a file, expected a folder");
    if (::access(at.c_str(), W_OK | X_OK) != 0 || !takes_new_entries(at))
      throw UsageError("--" + option + ": cannot write into '" + at.string() + "'");
  } catch (const fs::filesystem_error& e) {  // a name too long, a loop of links, ...
    throw UsageError("--" + option + ": '" + path + "': " + e.code().message());
  }
}

/// --OPTION names a file to write: refused before any work when it is a folder or its folder is missing or
/// cannot be written.
inline void check_output_file(const std::string& path, const std::string& option = "out") {
  namespace fs = std::filesystem;
  if (path.empty()) throw UsageError("--" + option + ": empty path");
  try {
    if (fs::is_directory(path)) throw UsageError("--" + option + ": '" + path + "' is a folder, expected a file name");
    const fs::path dir = fs::absolute(path).parent_path();
    if (!fs::is_directory(dir)) throw UsageError("--" + option + ": folder '" + dir.string() + "' does not exist");
    if (::access(dir.c_str(), W_OK | X_OK) != 0 || !takes_new_entries(dir))
      throw UsageError("--" + option + ": cannot write into '" + dir.string() + "'");
  } catch (const fs::filesystem_error& e) {  // a name too long, a loop of links, ...
    throw UsageError("--" + option + ": '" + path + "': " + e.code().message());
  }
}

}  // namespace p2psim
