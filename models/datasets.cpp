#include "datasets.hpp"

#include <zlib.h>

#include <fstream>
#include <memory>

namespace p2psim::data {
namespace {

// gzread reads plain files transparently, so one reader serves .gz and uncompressed IDX files.
class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
    if (!f_) throw DataError(path + ": cannot open file");
  }
  ~GzFile() { gzclose(f_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void read(void* dst, size_t bytes, const char* what) {
    int got = gzread(f_, dst, static_cast<unsigned>(bytes));
    if (got < 0) throw DataError(path_ + ": corrupt compressed data while reading " + what);
    if (static_cast<size_t>(got) != bytes)
      throw DataError(path_ + ": truncated: expected " + std::to_string(bytes) + " bytes of " + what + ", got " +
                      std::to_string(got));
  }
  uint32_t read_be32(const char* what) {
    unsigned char b[4];
    read(b, 4, what);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  }
  bool at_end() {
    char c;
    return gzread(f_, &c, 1) == 0;
  }

 private:
  std::string path_;
  gzFile f_;
};

constexpr uint32_t kIdxImagesMagic = 0x00000803;  // unsigned byte, 3 dimensions
constexpr uint32_t kIdxLabelsMagic = 0x00000801;  // unsigned byte, 1 dimension
constexpr int64_t kMaxIdxDim = 1 << 24;            // guards allocations against garbage headers

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

ImageSet read_idx(const std::string& images_path, const std::string& labels_path) {
  ImageSet set;
  set.channels = 1;
  {
    GzFile f(images_path);
    uint32_t magic = f.read_be32("the magic number");
    if (magic != kIdxImagesMagic)
      throw DataError(images_path + ": not an IDX image file (magic " + hex(magic) + ", expected " +
                      hex(kIdxImagesMagic) + ")");
    set.count = f.read_be32("the item count");
    set.height = f.read_be32("the row count");
    set.width = f.read_be32("the column count");
    if (set.count > kMaxIdxDim || set.height > 4096 || set.width > 4096)
      throw DataError(images_path + ": implausible IDX dimensions");
    set.pixels.resize(static_cast<size_t>(set.count * set.sample_bytes()));
    f.read(set.pixels.data(), set.pixels.size(), "pixels");
    if (!f.at_end()) throw DataError(images_path + ": trailing bytes after the last image");
  }
  GzFile f(labels_path);
  uint32_t magic = f.read_be32("the magic number");
  if (magic != kIdxLabelsMagic)
    throw DataError(labels_path + ": not an IDX label file (magic " + hex(magic) + ", expected " +
                    hex(kIdxLabelsMagic) + ")");
  uint32_t count = f.read_be32("the item count");
  if (count != set.count)
    throw DataError(labels_path + ": holds " + std::to_string(count) + " labels but " + images_path + " holds " +
                    std::to_string(set.count) + " images");
  set.labels.resize(count);
  f.read(set.labels.data(), count, "labels");
  return set;
}

ImageSet read_cifar10(const std::vector<std::string>& batch_paths) {
  constexpr int64_t kPixels = 3 * 32 * 32, kRecord = 1 + kPixels;
  ImageSet set;
  set.channels = 3;
  set.height = set.width = 32;
  for (const auto& path : batch_paths) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw DataError(path + ": cannot open file");
    const int64_t size = in.tellg();
    if (size == 0 || size % kRecord != 0)
      throw DataError(path + ": size " + std::to_string(size) + " bytes is not a whole number of " +
                      std::to_string(kRecord) + "-byte CIFAR-10 records (truncated or wrong file?)");
    in.seekg(0);
    const int64_t records = size / kRecord;
    std::vector<uint8_t> buf(static_cast<size_t>(size));
    in.read(reinterpret_cast<char*>(buf.data()), size);
    for (int64_t r = 0; r < records; ++r) {
      const uint8_t* rec = buf.data() + r * kRecord;
      if (rec[0] > 9)
        throw DataError(path + ": record " + std::to_string(r) + " has label " + std::to_string(rec[0]) +
                        ", outside CIFAR-10's 0..9");
      set.labels.push_back(rec[0]);
      set.pixels.insert(set.pixels.end(), rec + 1, rec + kRecord);
    }
    set.count += records;
  }
  return set;
}

}  // namespace p2psim::data
