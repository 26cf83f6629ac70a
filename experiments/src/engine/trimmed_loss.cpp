#include "dmlbench/experiments/trimmed_loss.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

torch::Tensor trimmed_mean(const torch::Tensor& terms, double trim) {
  if (!(trim >= 0.0 && trim < 1.0))
    throw std::invalid_argument("trimmed loss: trim = " + std::to_string(trim) + " must lie in [0, 1)");
  if (terms.dim() != 1 || terms.size(0) == 0)
    throw std::invalid_argument("trimmed loss: needs a non-empty 1-D tensor of per-term losses");
  if (trim == 0.0) return terms.mean();
  const auto n = terms.size(0);
  const auto keep = std::max<std::int64_t>(1, std::int64_t(std::ceil((1.0 - trim) * double(n) - 1e-9)));
  const auto order = std::get<1>(terms.detach().sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));
  return terms.index({order.slice(0, 0, keep)}).mean();
}

}  // namespace dmlbench::experiments
