// The CSV files of a folder (calibration folders are given as folders of them).
#pragma once
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace p2psim {

/// Every *.csv in `dir`, in name order (empty when there is none).
inline std::vector<std::string> csv_files_in(const std::string& dir) {
  std::vector<std::string> csvs;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".csv") csvs.push_back(entry.path().lexically_normal().string());
  std::sort(csvs.begin(), csvs.end());
  return csvs;
}

}  // namespace p2psim
