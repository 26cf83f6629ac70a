// The idx format of MNIST and Fashion-MNIST (LeCun et al.): big-endian magic 0x0000 0x08 <ndims>, ndims uint32
// sizes, then unsigned bytes. Plain or gzip (zlib reads both). Torch-free. Every malformed file is a clear error.
#pragma once

#include "dmlbench/experiments/data_error.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::experiments {


struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;  // row-major
  std::size_t count() const { return dims.empty() ? 0 : dims[0]; }
  std::size_t item_size() const;  // product of dims[1..]
};

// Throws data_error: missing file, wrong magic (not unsigned-byte data), truncated header or data, trailing bytes.
IdxArray read_idx(const std::string& path);
void write_idx(const std::string& path, const IdxArray& a);  // plain (not gzip), written atomically

// Images (N x rows x cols) and their labels (N): counts must agree and labels lie below num_classes.
struct LabeledImages {
  IdxArray images;
  std::vector<int> labels;
  int rows = 0, cols = 0;
};
LabeledImages read_labeled_images(const std::string& images_path, const std::string& labels_path, int num_classes = 10);

// An official MNIST-layout folder: <prefix>-images-idx3-ubyte and <prefix>-labels-idx1-ubyte, plain or .gz
// (prefix "train" or "t10k"). The error names the folder and the file names looked for.
LabeledImages read_mnist_layout(const std::string& dir, const std::string& prefix);

}  // namespace dmlbench::experiments
