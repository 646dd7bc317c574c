// A fresh directory for one test, removed when the test ends.
#pragma once
#include <filesystem>
#include <string>

#include "../sim/util/temporary_folder.hpp"

struct TempDir : p2psim::TemporaryFolder {
  const std::filesystem::path root;
  TempDir() : p2psim::TemporaryFolder("p2psim-test"), root(p2psim::TemporaryFolder::path()) {}
  std::string path(const std::string& name) const { return (root / name).string(); }
};
