// Reading embeddings and labels made elsewhere (embedding_file.hpp): CSV, .npy and idx, and every malformed input
// as one clear error naming the file.
#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/experiments/npy_file.hpp"

#include "scratch_dir.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace dmlbench::experiments;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p.string();
}

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;  // little-endian on the machines this builds for (x86-64, aarch64)
}

// A .npy file, format 1.0: magic, version, header length, the header dict padded to 64 bytes, then the data.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false,
                int major = 1) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
                  ", }";
  const std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string s = "\x93NUMPY";
  s += char(major);
  s += char(0);
  const auto n = h.size();
  s += char(n & 0xff);
  s += char((n >> 8) & 0xff);
  if (major != 1) s += std::string(2, '\0');
  return s + h + data;
}

// An idx file: 0 0 type ndims, big-endian sizes, then big-endian data (given here already in that order).
std::string idx(int type, const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string s = {0, 0, char(type), char(dims.size())};
  for (auto d : dims)
    for (int b = 3; b >= 0; --b) s += char((d >> (8 * b)) & 0xff);
  return s + data;
}

std::string big_endian_floats(const std::vector<float>& v) {
  std::string s;
  for (float f : v) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int b = 3; b >= 0; --b) s += char((u >> (8 * b)) & 0xff);
  }
  return s;
}

}  // namespace

TEST_CASE("embeddings from CSV: comments, a header, commas or spaces, gzip", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-emb-csv");
  const auto& dir = scratch_dir.dir();
  const auto a = read_embedding_file(write(dir / "a.csv", "# made by numpy\nx,y\n1.5, -2\n\n+3e2,4\r\n"));
  CHECK(a.rows == 2);
  CHECK(a.cols == 2);
  CHECK(a.values == std::vector<float>{1.5f, -2.0f, 300.0f, 4.0f});
  // numpy.savetxt's default: space-separated, no header
  const auto b = read_embedding_file(write(dir / "b.txt", "1 2 3\n4\t5 6\n"));
  CHECK(b.rows == 2);
  CHECK(b.cols == 3);
  CHECK(b.values[4] == 5.0f);
  // gzip is read transparently
  const auto gz = (dir / "c.csv.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  gzputs(f, "0.25,0.5\n");
  gzclose(f);
  CHECK(read_embedding_file(gz).values == std::vector<float>{0.25f, 0.5f});
}

TEST_CASE("embeddings from .npy float32 and float64 (format 1.0 and 2.0) and from idx", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-emb-bin");
  const auto& dir = scratch_dir.dir();
  const std::vector<float> f = {1, 2, 3, 4, 5, 6};
  auto m = read_embedding_file(write(dir / "f4.npy", npy("<f4", "(3, 2)", bytes_of(f))));
  CHECK(m.rows == 3);
  CHECK(m.cols == 2);
  CHECK(m.values == f);
  const std::vector<double> d = {0.5, -1.25, 1e-3, 7};
  m = read_embedding_file(write(dir / "f8.npy", npy("<f8", "(2, 2)", bytes_of(d), false, 2)));
  CHECK(m.rows == 2);
  CHECK(m.values == std::vector<float>{0.5f, -1.25f, float(1e-3), 7.0f});  // float64 rounded to float32
  m = read_embedding_file(write(dir / "f.idx", idx(0x0D, {2, 3}, big_endian_floats(f))));
  CHECK(m.rows == 2);
  CHECK(m.cols == 3);
  CHECK(m.values == f);
  // uint8 images N x 2 x 2 flatten to N x 4
  m = read_embedding_file(write(dir / "u8.idx", idx(0x08, {2, 2, 2}, std::string("\x01\x02\x03\x04\x05\x06\x07\xff"))));
  CHECK(m.rows == 2);
  CHECK(m.cols == 4);
  CHECK(m.values[7] == 255.0f);
}

TEST_CASE("malformed embedding files: one clear error naming the file, the line or the index", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-emb-bad");
  const auto& dir = scratch_dir.dir();
  const std::vector<float> f = {1, 2, 3, 4};
  auto bad = [&](const std::string& name, const std::string& bytes) { return read_embedding_file(write(dir / name, bytes)); };
  CHECK_THROWS_WITH(read_embedding_file((dir / "missing.csv").string()), Contains("embeddings file not found") && Contains("missing.csv"));
  CHECK_THROWS_WITH(read_embedding_file(dir.string()), Contains("is a folder"));
  CHECK_THROWS_WITH(bad("nan.csv", "1,2\nnan,3\n"), Contains("nan.csv line 2, field 1: non-finite value"));
  CHECK_THROWS_WITH(bad("inf.csv", "1,inf\n"), Contains("inf.csv line 1, field 2: non-finite"));
  CHECK_THROWS_WITH(bad("range.csv", "1,1e39\n"), Contains("line 1, field 2: beyond float32's range"));
  CHECK_THROWS_WITH(bad("word.csv", "1,2\n3,x\n"), Contains("word.csv line 2, field 2: not a number: \"x\""));
  CHECK_THROWS_WITH(bad("ragged.csv", "# c\n1,2\n3,4,5\n"), Contains("ragged.csv line 3: 3 fields, line 2 has 2"));
  CHECK_THROWS_WITH(bad("hdr.csv", "a,b\n1,2,3\n"), Contains("line 2: 3 fields, the header has 2"));
  CHECK_THROWS_WITH(bad("empty.csv", "# nothing\n\n"), Contains("empty.csv: no rows"));
  CHECK_THROWS_WITH(bad("fortran.npy", npy("<f4", "(2, 2)", bytes_of(f), true)), Contains("fortran_order"));
  CHECK_THROWS_WITH(bad("be.npy", npy(">f4", "(2, 2)", bytes_of(f))), Contains("big-endian dtype '>f4'"));
  CHECK_THROWS_WITH(bad("int.npy", npy("<i4", "(2, 2)", bytes_of(std::vector<int>{1, 2, 3, 4}))),
                    Contains("embeddings of type '<i4' are not supported"));
  CHECK_THROWS_WITH(bad("half.npy", npy("<f2", "(2,)", std::string(4, '\0'))), Contains("'<f2' are not supported"));
  CHECK_THROWS_WITH(bad("1d.npy", npy("<f4", "(4,)", bytes_of(f))), Contains("1-D array of shape (4,)"));
  CHECK_THROWS_WITH(bad("short.npy", npy("<f4", "(3, 2)", bytes_of(f))), Contains("short.npy: truncated data: 16 of the 24"));
  CHECK_THROWS_WITH(bad("long.npy", npy("<f4", "(1, 2)", bytes_of(f))), Contains("8 trailing bytes"));
  CHECK_THROWS_WITH(bad("struct.npy", npy("<f4", "(2, 2)", bytes_of(f)).replace(20, 5, "[('a'")),
                    Contains("struct.npy"));
  CHECK_THROWS_WITH(bad("nan.npy", npy("<f4", "(2, 2)", bytes_of(std::vector<float>{1, 2, NAN, 4}))),
                    Contains("nan.npy: non-finite value nan at row 1, column 0"));
  CHECK_THROWS_WITH(bad("i32.idx", idx(0x0C, {2, 2}, std::string(16, '\0'))), Contains("int32 (0x0C) are not supported"));
  CHECK_THROWS_WITH(bad("type.idx", idx(0x0A, {2, 2}, std::string(4, '\0'))), Contains("unknown idx data type 10"));
  CHECK_THROWS_WITH(bad("short.idx", idx(0x0D, {2, 2}, std::string(12, '\0'))), Contains("truncated data: 12 of the 16"));
  CHECK_THROWS_WITH(bad("1d.idx", idx(0x0D, {4}, big_endian_floats(f))), Contains("1-D array"));
  CHECK_THROWS_WITH(bad("bin.dat", std::string("ab\0cd", 5)), Contains("neither .npy nor idx"));
}

TEST_CASE("labels: one integer per line, CSV with named levels, .npy int32/int64, idx uint8", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-labels");
  const auto& dir = scratch_dir.dir();
  auto l = read_label_file(write(dir / "one.txt", "3\n1\n# comment\n-2\n"));
  CHECK(l.level_names == std::vector<std::string>{"class"});
  CHECK(l.labels[0] == std::vector<std::int64_t>{3, 1, -2});
  l = read_label_file(write(dir / "levels.csv", "superclass,class\n0,10\n0,11\n1,12\n"));
  CHECK(l.level_names == std::vector<std::string>{"superclass", "class"});
  CHECK(l.rows() == 3);
  CHECK(l.labels[1] == std::vector<std::int64_t>{10, 11, 12});
  l = read_label_file(write(dir / "two.csv", "0,10\n1,11\n"));
  CHECK(l.level_names == std::vector<std::string>{"level0", "level1"});
  l = read_label_file(write(dir / "i8.npy", npy("<i8", "(2, 2)", bytes_of(std::vector<std::int64_t>{1, 2, 3, 4}))));
  CHECK(l.level_names == std::vector<std::string>{"level0", "level1"});
  CHECK(l.labels[0] == std::vector<std::int64_t>{1, 3});
  CHECK(l.labels[1] == std::vector<std::int64_t>{2, 4});
  l = read_label_file(write(dir / "i4.npy", npy("<i4", "(3,)", bytes_of(std::vector<std::int32_t>{-1, 0, 7}))));
  CHECK(l.labels[0] == std::vector<std::int64_t>{-1, 0, 7});
  l = read_label_file(write(dir / "u8.idx", idx(0x08, {3}, std::string("\x02\x00\x09", 3))));
  CHECK(l.labels[0] == std::vector<std::int64_t>{2, 0, 9});
}

TEST_CASE("malformed label files: one clear error naming the file and line", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-labels-bad");
  const auto& dir = scratch_dir.dir();
  auto bad = [&](const std::string& name, const std::string& bytes) { return read_label_file(write(dir / name, bytes)); };
  CHECK_THROWS_WITH(read_label_file((dir / "none.txt").string()), Contains("labels file not found"));
  CHECK_THROWS_WITH(bad("float.txt", "1\n2.5\n"), Contains("float.txt line 2, field 1: not an integer label: \"2.5\""));
  CHECK_THROWS_WITH(bad("float1.txt", "1.0\n2\n"), Contains("line 1, field 1: not an integer label"));
  CHECK_THROWS_WITH(bad("names.txt", "cat\ndog\n"), Contains("line 2, field 1: not an integer label: \"dog\""));
  CHECK_THROWS_WITH(bad("ragged.csv", "a,b\n1,2\n3\n"), Contains("ragged.csv line 3: 1 fields, the header has 2"));
  CHECK_THROWS_WITH(bad("dup.csv", "a,a\n1,2\n"), Contains("names the level \"a\" twice"));
  CHECK_THROWS_WITH(bad("hole.csv", "a,\n1,2\n"), Contains("field 2 names no level"));
  CHECK_THROWS_WITH(bad("empty.txt", "class\n"), Contains("empty.txt: no rows of labels"));
  CHECK_THROWS_WITH(bad("f.npy", npy("<f4", "(2,)", std::string(8, '\0'))), Contains("labels of type <f4 are not supported"));
  CHECK_THROWS_WITH(bad("3d.npy", npy("<i4", "(1, 1, 1)", std::string(4, '\0'))), Contains("labels of shape (1, 1, 1)"));
  CHECK_THROWS_WITH(bad("2d.idx", idx(0x08, {1, 1}, std::string(1, '\0'))), Contains("labels of shape (1, 1)"));
}

// The trainer writes its embeddings with write_npy_float32 (out/embeddings/<set>.npy) for `dmlbench eval`: they read
// back bit for bit, so eval sees the very float32 rows the trainer evaluated (-0, denormals and extremes included).
TEST_CASE("the trainer's .npy embeddings (write_npy_float32) read back bit for bit", "[experiments][data]") {
  const ScratchDir scratch_dir("dmlbench-test-npy-round-trip");
  const auto& dir = scratch_dir.dir();
  const std::vector<float> v = {-0.0f, 1.0e-45f, 3.4028235e38f, -1.17549435e-38f, 0.1f, -2.5f};
  const auto path = (dir / "set.npy").string();
  write_npy_float32(path, v.data(), 3, 2);
  const auto m = read_embedding_file(path);
  CHECK(m.rows == 3);
  CHECK(m.cols == 2);
  REQUIRE(m.values.size() == v.size());
  CHECK(std::memcmp(m.values.data(), v.data(), v.size() * sizeof(float)) == 0);  // bits, so -0 != +0 would fail
  // negative control: a file one row short of its header is an error, not a silent shorter matrix
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  CHECK_THROWS_WITH(read_embedding_file(write(dir / "cut.npy", bytes.substr(0, bytes.size() - 8))),
                    Contains("truncated data"));
}
