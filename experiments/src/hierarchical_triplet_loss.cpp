#include "dmlbench/experiments/hierarchical_triplet_loss.hpp"

#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

torch::Tensor hierarchical_triplet_loss(const torch::Tensor& emb, const torch::Tensor& class_index,
                                        const MinedTriplets& t, const torch::Tensor& margins) {
  if (emb.dim() != 2) throw std::invalid_argument("hierarchical_triplet_loss: embeddings must be B x d");
  if (!t.anchors.defined() || t.anchors.numel() == 0)
    throw std::invalid_argument("hierarchical_triplet_loss: no triplets in the batch");
  if (margins.dim() != 2 || margins.size(0) != margins.size(1))
    throw std::invalid_argument("hierarchical_triplet_loss: the margin table must be C x C");
  if (class_index.dim() != 1 || class_index.size(0) != emb.size(0))
    throw std::invalid_argument("hierarchical_triplet_loss: one class index per embedding");
  const auto C = margins.size(0);
  const auto y = class_index.to(torch::kInt64).to(emb.device());
  if (y.min().item<std::int64_t>() < 0 || y.max().item<std::int64_t>() >= C)
    throw std::invalid_argument("hierarchical_triplet_loss: a class index outside the " + std::to_string(C) + " x " +
                                std::to_string(C) + " margin table");
  const auto a = emb.index({t.anchors}), p = emb.index({t.positives}), n = emb.index({t.negatives});
  const auto dap = ((a - p).pow(2).sum(1) + 1e-12).sqrt();
  const auto dan = ((a - n).pow(2).sum(1) + 1e-12).sqrt();
  const auto m = margins.to(emb.device(), emb.scalar_type()).index({y.index({t.anchors}), y.index({t.negatives})});
  return torch::relu(dap - dan + m).sum() / (2.0 * double(t.anchors.size(0)));
}

}  // namespace dmlbench::experiments
