// Run-time device selection for every LibTorch run: auto (CUDA when present), cpu, cuda. Torch-free header.
#pragma once

#include <string>

namespace dmlbench::experiments {

// Validates a --device value and resolves "auto"; returns "cpu" or "cuda". Throws std::invalid_argument for an
// unknown value and std::runtime_error for "cuda" on a build or machine without a CUDA device.
std::string resolve_device(const std::string& spec);

// One line: LibTorch version, whether CUDA is compiled in and how many devices are visible.
std::string describe_torch();

}  // namespace dmlbench::experiments
