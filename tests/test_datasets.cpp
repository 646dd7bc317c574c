// Dataset readers on the real Fashion-MNIST (Debian's dataset-fashion-mnist) and on files written here.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "datasets.hpp"
#include "temp_dir.hpp"

using namespace p2psim::data;

namespace {
const std::string kFashion = "/usr/share/datasets/fashion-mnist/";

std::vector<char> gunzip_prefix(const std::string& path, size_t bytes) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::vector<char> buf(bytes);
  buf.resize(static_cast<size_t>(gzread(f, buf.data(), static_cast<unsigned>(bytes))));
  gzclose(f);
  return buf;
}

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
}  // namespace

TEST_CASE("reads the real gzipped Fashion-MNIST") {
  auto train = read_idx(kFashion + "train-images-idx3-ubyte.gz", kFashion + "train-labels-idx1-ubyte.gz");
  CHECK(train.count == 60000);
  CHECK(train.channels == 1);
  CHECK(train.height == 28);
  CHECK(train.width == 28);
  CHECK(train.pixels.size() == 60000u * 784u);
  CHECK(*std::max_element(train.labels.begin(), train.labels.end()) == 9);
  // Fashion-MNIST is balanced: 6,000 training images per class.
  CHECK(std::count(train.labels.begin(), train.labels.end(), 3) == 6000);
  auto test = read_idx(kFashion + "t10k-images-idx3-ubyte.gz", kFashion + "t10k-labels-idx1-ubyte.gz");
  CHECK(test.count == 10000);
}

TEST_CASE("a truncated or mismatched IDX file is a clear error") {
  TempDir dir;
  const auto images = dir.path("images.idx"), labels = dir.path("labels.idx");
  write_file(images, gunzip_prefix(kFashion + "t10k-images-idx3-ubyte.gz", 16 + 784 * 10));  // 10 of 10,000 images
  write_file(labels, gunzip_prefix(kFashion + "t10k-labels-idx1-ubyte.gz", 8 + 10000));
  CHECK_THROWS_WITH_AS(read_idx(images, labels), doctest::Contains((images + ": truncated: expected 7840000 bytes").c_str()),
                       DataError);
  CHECK_THROWS_WITH_AS(read_idx(labels, labels), doctest::Contains("not an IDX image file (magic 0x00000801"),
                       DataError);
  CHECK_THROWS_WITH_AS(read_idx(dir.path("missing"), labels), doctest::Contains("missing: cannot open file"),
                       DataError);
}

TEST_CASE("reads CIFAR-10 binary batches written here, and rejects bad ones") {
  TempDir dir;
  std::vector<char> records;
  for (int r = 0; r < 3; ++r) {
    records.push_back(static_cast<char>(r * 4));        // labels 0, 4, 8
    records.insert(records.end(), 3072, static_cast<char>(r + 1));
  }
  write_file(dir.path("data_batch_1.bin"), records);
  auto set = read_cifar10({dir.path("data_batch_1.bin"), dir.path("data_batch_1.bin")});
  CHECK(set.count == 6);
  CHECK(set.labels == std::vector<uint8_t>{0, 4, 8, 0, 4, 8});
  CHECK(set.pixels[3072 * 2] == 3);

  records.pop_back();
  write_file(dir.path("short.bin"), records);
  CHECK_THROWS_WITH_AS(read_cifar10({dir.path("short.bin")}), doctest::Contains("not a whole number of 3073-byte"),
                       DataError);
  records.push_back(0);
  records[0] = 12;
  write_file(dir.path("label.bin"), records);
  CHECK_THROWS_WITH_AS(read_cifar10({dir.path("label.bin")}), doctest::Contains("record 0 has label 12"), DataError);
}
