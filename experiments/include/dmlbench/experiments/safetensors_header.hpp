// The header of a safetensors file (Hugging Face, https://github.com/huggingface/safetensors): an 8-byte
// little-endian length N, N bytes of JSON {"__metadata__": {str: str}, name: {"dtype", "shape",
// "data_offsets": [begin, end]}}, then the data. Torch-free, so that it is fuzzed: every declared size is
// checked against the bytes present before the LibTorch reader (safetensors_file.hpp) allocates a tensor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct SafetensorsEntry {
  std::string name, dtype;           // dtype: F32, F64, F16, BF16, I64, I32, U8 or BOOL
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // the tensor's bytes: file offsets data_start + [begin, end)
};

struct SafetensorsHeader {
  std::uint64_t data_start = 0, data_size = 0;
  std::map<std::string, std::string> metadata;  // __metadata__
  std::vector<SafetensorsEntry> tensors;        // in the header's order
};

// The bytes of one element of a dtype; data_error naming `where` and the dtypes known for another.
std::size_t safetensors_element_size(const std::string& dtype, const std::string& where);
// Throws data_error naming the file (and the tensor): missing or truncated file, a header length beyond the file or
// 1 GiB, a header that is not a JSON object, a malformed entry, an unknown dtype, a negative size, a shape whose byte
// count exceeds 2^64, data_offsets that do not hold the shape's bytes or lie outside the file.
SafetensorsHeader read_safetensors_header(const std::string& path);

}  // namespace dmlbench::experiments
