#include "limits.hpp"

#include <fstream>
#include <sstream>

namespace p2psim::limits {

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      double kib = 0;
      fields >> kib;
      return kib * 1024;
    }
  return 0;
}

}  // namespace p2psim::limits
