#include "dmlbench/experiments/idx_file.hpp"

#include "dmlbench/theory/memory_budget.hpp"

#include <zlib.h>

#include <filesystem>
#include <algorithm>
#include <fstream>

namespace dmlbench::experiments {

std::size_t IdxArray::item_size() const {
  std::size_t s = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) s *= dims[i];
  return s;
}

namespace {

struct GzFile {
  gzFile f = nullptr;
  explicit GzFile(const std::string& p) : f(gzopen(p.c_str(), "rb")) {}
  ~GzFile() {
    if (f) gzclose(f);
  }
  // reads exactly n bytes or returns the number read
  std::size_t read(void* buf, std::size_t n) {
    std::size_t got = 0;
    auto* out = static_cast<unsigned char*>(buf);
    while (got < n) {
      const unsigned chunk = unsigned(std::min<std::size_t>(n - got, 1u << 30));
      const int r = gzread(f, out + got, chunk);
      if (r <= 0) break;
      got += std::size_t(r);
    }
    return got;
  }
};

std::uint32_t big_endian(const unsigned char* b) {
  return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | std::uint32_t(b[3]);
}

// Reads the n bytes the header promised in chunks that grow with what arrives, so that a header promising more than
// the file holds fails on the missing bytes, never on an allocation of the promised size.
void read_promised_bytes(GzFile& f, std::vector<std::uint8_t>& data, std::size_t total, const std::string& path,
                         std::uint32_t items) {
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  std::size_t got = 0;
  while (got < total) {
    const std::size_t want = std::min(kChunk, total - got);
    data.resize(got + want);
    const std::size_t r = f.read(data.data() + got, want);
    got += r;
    if (r < want) break;
  }
  if (got != total)
    throw data_error(path + ": truncated idx data: " + std::to_string(got) + " of " + std::to_string(total) +
                     " bytes (the header promises " + std::to_string(items) + " items)");
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  if (!std::filesystem::exists(path)) throw data_error("idx file not found: " + path);
  GzFile f(path);
  if (!f.f) throw data_error("cannot open idx file: " + path);
  unsigned char head[4];
  if (f.read(head, 4) != 4) throw data_error(path + ": truncated idx header (fewer than 4 bytes)");
  if (head[0] != 0 || head[1] != 0)
    throw data_error(path + ": not an idx file (magic starts " + std::to_string(head[0]) + " " + std::to_string(head[1]) +
                     ", expected 0 0)");
  if (head[2] != 0x08)
    throw data_error(path + ": idx data type 0x" + std::to_string(head[2]) + " is not unsigned byte (0x08)");
  const int nd = head[3];
  if (nd < 1 || nd > 4) throw data_error(path + ": idx with " + std::to_string(nd) + " dimensions (expected 1 to 4)");
  IdxArray a;
  double promised = 1;  // in double: four sizes of up to 2^32 - 1 cannot wrap before the check
  for (int d = 0; d < nd; ++d) {
    unsigned char b[4];
    if (f.read(b, 4) != 4) throw data_error(path + ": truncated idx header (dimension " + std::to_string(d) + ")");
    a.dims.push_back(big_endian(b));
    promised *= a.dims.back();
  }
  try {
    theory::require_memory(promised, path + ": the idx header's " + std::to_string(a.dims[0]) + " items");
  } catch (const std::invalid_argument& e) {  // theory::domain_error, as a data error of this file
    throw data_error(e.what());
  }
  read_promised_bytes(f, a.data, std::size_t(promised), path, a.dims[0]);
  unsigned char extra;
  if (f.read(&extra, 1) != 0)
    throw data_error(path + ": trailing bytes after the " + std::to_string(a.data.size()) + " promised");
  return a;
}

void write_idx(const std::string& path, const IdxArray& a) {
  if (a.dims.empty() || a.dims.size() > 4) throw data_error("write_idx: 1 to 4 dimensions");
  std::size_t total = 1;
  for (auto d : a.dims) total *= d;
  if (total != a.data.size()) throw data_error("write_idx: dims do not match the data size");
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary);
    const unsigned char head[4] = {0, 0, 0x08, static_cast<unsigned char>(a.dims.size())};
    o.write(reinterpret_cast<const char*>(head), 4);
    for (auto d : a.dims) {
      const unsigned char b[4] = {static_cast<unsigned char>(d >> 24), static_cast<unsigned char>(d >> 16),
                                  static_cast<unsigned char>(d >> 8), static_cast<unsigned char>(d)};
      o.write(reinterpret_cast<const char*>(b), 4);
    }
    o.write(reinterpret_cast<const char*>(a.data.data()), std::streamsize(a.data.size()));
    if (!o) throw data_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, p);
}

LabeledImages read_labeled_images(const std::string& images_path, const std::string& labels_path, int num_classes) {
  LabeledImages out;
  out.images = read_idx(images_path);
  if (out.images.dims.size() != 3)
    throw data_error(images_path + ": an image file has 3 dimensions (N, rows, cols), this one " +
                     std::to_string(out.images.dims.size()));
  const IdxArray l = read_idx(labels_path);
  if (l.dims.size() != 1)
    throw data_error(labels_path + ": a label file has 1 dimension, this one " + std::to_string(l.dims.size()));
  if (l.count() != out.images.count())
    throw data_error("image and label counts disagree: " + std::to_string(out.images.count()) + " images in " +
                     images_path + ", " + std::to_string(l.count()) + " labels in " + labels_path);
  out.rows = int(out.images.dims[1]);
  out.cols = int(out.images.dims[2]);
  out.labels.reserve(l.data.size());
  for (std::size_t i = 0; i < l.data.size(); ++i) {
    if (l.data[i] >= num_classes)
      throw data_error(labels_path + ": label " + std::to_string(l.data[i]) + " at index " + std::to_string(i) +
                       " is not below " + std::to_string(num_classes));
    out.labels.push_back(l.data[i]);
  }
  return out;
}

LabeledImages read_mnist_layout(const std::string& dir, const std::string& prefix) {
  auto find = [&](const std::string& stem) {
    for (const std::string& name : {stem, stem + ".gz"}) {
      const auto p = std::filesystem::path(dir) / name;
      if (std::filesystem::exists(p)) return p.string();
    }
    throw data_error("no " + stem + "[.gz] in " + dir + " (expected the official MNIST layout)");
  };
  const std::string images = find(prefix + "-images-idx3-ubyte");  // images first, so errors name them first
  const std::string labels = find(prefix + "-labels-idx1-ubyte");
  return read_labeled_images(images, labels);
}

}  // namespace dmlbench::experiments
