// The files a dataset is read from on disk, without reading them: the replay reads them (models/replay_data.cpp),
// and an experiment that asks for its accuracy is refused before it is simulated when one is missing.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace p2psim {

/// The folder Debian's dataset-fashion-mnist installs.
constexpr const char* kDebianFashionMnistDir = "/usr/share/datasets/fashion-mnist";

/// The files of `dataset` (fashion_mnist | mnist | cifar10) in `folder`: CIFAR-10's binary batches, or the four
/// IDX files, gzipped (Debian, Zalando) where the .gz is there, else unpacked (many mirrors).
inline std::vector<std::string> dataset_files(const std::string& dataset, const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  if (dataset == "cifar10") {
    for (int b = 1; b <= 5; ++b) files.push_back((fs::path(folder) / ("data_batch_" + std::to_string(b) + ".bin")).string());
    files.push_back((fs::path(folder) / "test_batch.bin").string());
    return files;
  }
  for (const char* stem : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                           "t10k-labels-idx1-ubyte"}) {
    const auto gz = fs::path(folder) / (std::string(stem) + ".gz");
    std::error_code unreadable;  // taken as absent: the file checked next names the folder
    files.push_back(fs::exists(gz, unreadable) ? gz.string() : (fs::path(folder) / stem).string());
  }
  return files;
}

}  // namespace p2psim
