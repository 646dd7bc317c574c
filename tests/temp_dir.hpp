// A fresh directory for one test, removed when the test ends.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

struct TempDir {
  std::filesystem::path root;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "p2psim-test-XXXXXX").string();
    root = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(root); }
  std::string path(const std::string& name) const { return (root / name).string(); }
};
