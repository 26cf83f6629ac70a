// The reducers of the losses' terms (loss_reducers.hpp): mean, the trimmed mean of [LCC] Sec 5.2.5, the MS average
// over anchors of Wang et al. eq 15.
#include "dmlbench/experiments/loss_reducers.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

torch::Tensor mean_of_terms(const torch::Tensor& terms) { return terms.mean(); }

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

std::optional<double> share_violating(const torch::Tensor& terms) {
  return terms.detach().gt(0).to(torch::kFloat64).mean().item<double>();
}

torch::Tensor average_over_anchors(const torch::Tensor& sum, std::int64_t mined, std::int64_t batch, MsReduction how,
                                   const torch::Tensor& graph) {
  // Wang et al. eq 15: 1/m over the batch's m anchors (an anchor that mines nothing adds 0); mined_anchors: over the
  // anchors that mined a pair (the bench's earlier reading)
  const double over = how == MsReduction::batch ? double(batch) : double(mined);
  return mined ? sum / over : sum + 0 * graph.sum();  // keep the graph when nothing was mined
}

}  // namespace dmlbench::experiments
