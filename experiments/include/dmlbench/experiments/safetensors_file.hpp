// Named tensors in the safetensors format (Hugging Face, https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON {"__metadata__": {str: str}, name: {"dtype", "shape",
// "data_offsets": [begin, end]}}, then the raw little-endian row-major data. The form in which
// scripts/export_torchvision_weights.py hands a torchvision model's weights to EmbeddingModel::load_pretrained.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

struct NamedTensors {
  std::map<std::string, std::string> metadata;                  // the header's __metadata__
  std::vector<std::pair<std::string, torch::Tensor>> tensors;  // in the header's order, CPU, contiguous
  const torch::Tensor* find(const std::string& name) const;    // nullptr when absent
};

// dtypes F32, F64, F16, BF16, I64, I32, U8, BOOL. Throws data_error naming the file (and the tensor): missing or
// truncated file, malformed header, unknown dtype, data_offsets that do not match the shape or lie outside the file.
NamedTensors read_safetensors(const std::string& path);
// Written atomically (temporary file, then rename); tensors are made contiguous CPU copies.
void write_safetensors(const std::string& path, const NamedTensors& t);

}  // namespace dmlbench::experiments
