// NumPy's .npy format, version 1.0 (numpy.lib.format): a float32 2-D array written for `dmlbench eval`, numpy and
// the notebooks. Torch-free.
#pragma once

#include <cstdint>
#include <string>

namespace dmlbench::experiments {

// rows x cols little-endian float32, C order, written atomically (temporary file, then rename).
void write_npy_float32(const std::string& path, const float* data, std::int64_t rows, std::int64_t cols);

}  // namespace dmlbench::experiments
