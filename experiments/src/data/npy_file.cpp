#include "dmlbench/experiments/npy_file.hpp"

#include "dmlbench/experiments/atomic_file.hpp"

#include <cstring>
#include <string>

namespace dmlbench::experiments {

void write_npy_float32(const std::string& path, const float* data, std::int64_t rows, std::int64_t cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  // magic (6) + version (2) + header length (2) + header + '\n', padded with spaces to a multiple of 64
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += char(1);
  bytes += char(0);
  bytes += char(header.size() & 0xff);
  bytes += char((header.size() >> 8) & 0xff);
  bytes += header;
  const std::size_t n = std::size_t(rows * cols) * sizeof(float);
  const std::size_t at = bytes.size();
  bytes.resize(at + n);
  std::memcpy(bytes.data() + at, data, n);  // x86-64 and aarch64 are little-endian, as '<f4' says
  write_file_atomically(path, bytes);
}

}  // namespace dmlbench::experiments
