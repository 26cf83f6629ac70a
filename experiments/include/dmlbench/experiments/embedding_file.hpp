// Embeddings and labels made by other frameworks, read for `dmlbench eval`: CSV, NumPy .npy (format versions 1-3,
// numpy.lib.format) and idx (LeCun et al.), plain or gzip. The format is told by the file's first bytes. Torch-free.
#pragma once

#include "dmlbench/experiments/idx_file.hpp"  // data_error

#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// rows x cols float32, row-major. Every value is finite.
struct EmbeddingMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<float> values;
};

// labels[level][row]; level_names[level].
struct LabelColumns {
  std::vector<std::string> level_names;
  std::vector<std::vector<std::int64_t>> labels;
  std::size_t rows() const { return labels.empty() ? 0 : labels[0].size(); }
};

// Accepted embedding files (float64 values are rounded to float32, the precision the evaluation computes in):
//  - .npy: dtype '<f4' or '<f8', C order, 2-D (rows x dims). Big-endian, fortran_order, other dtypes: an error.
//  - idx: data type 0x08 (uint8), 0x0D (float32) or 0x0E (float64), big-endian as the format defines, >= 2 dims;
//    dims after the first are flattened (an N x 28 x 28 image file reads as N x 784).
//  - CSV (anything else): one row per line, fields separated by commas (or by spaces/tabs on a line without a comma,
//    as numpy.savetxt writes by default); '#' comment lines and blank lines are skipped; the first row is a header,
//    and skipped, when none of its fields is a number. Every row has the same number of fields.
// Throws data_error naming the file (and the line or the index) for a missing, truncated or malformed file, a
// non-finite value, a value beyond float32's range, or no rows.
EmbeddingMatrix read_embedding_file(const std::string& path);

// Accepted label files (integers; one column per label level):
//  - text: one integer per line (level "class"), or CSV with one column per level; a first row in which no field
//    is an integer names the levels (e.g. "superclass,class"); without it the levels are "class" (one column) or
//    "level0", "level1", ... Comment and blank lines as above.
//  - .npy: dtype '<i4' or '<i8', 1-D (level "class") or 2-D rows x levels ("level0", ...).
//  - idx: 1-D, data type 0x08 (uint8, as MNIST's label files) or 0x0C (int32); level "class".
// Throws data_error as read_embedding_file does (duplicate level names included).
LabelColumns read_label_file(const std::string& path);

}  // namespace dmlbench::experiments
