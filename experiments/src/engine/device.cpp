#include "dmlbench/experiments/device.hpp"

#include <torch/torch.h>
#include <torch/version.h>

#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

std::string resolve_device(const std::string& spec) {
  if (spec == "cpu") return "cpu";
  const bool cuda = torch::cuda::is_available();
  if (spec == "auto") return cuda ? "cuda" : "cpu";
  if (spec == "cuda") {
    if (!cuda)
      throw std::runtime_error("--device cuda: no CUDA device is available to this LibTorch build "
                               "(use --device auto or cpu)");
    return "cuda";
  }
  throw std::invalid_argument("--device must be auto, cpu or cuda, got '" + spec + "'");
}

std::string describe_torch() {
  std::ostringstream o;
  o << "LibTorch " << TORCH_VERSION << ", CUDA available: " << (torch::cuda::is_available() ? "yes" : "no")
    << ", CUDA devices: " << torch::cuda::device_count();
  return o.str();
}

}  // namespace dmlbench::experiments
