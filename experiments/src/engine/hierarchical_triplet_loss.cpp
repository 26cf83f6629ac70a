#include "dmlbench/experiments/hierarchical_triplet_loss.hpp"

#include "dmlbench/experiments/embedding_distance.hpp"

#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

namespace {

// the class indices, on the embeddings' device, after checking them against the margin table
torch::Tensor checked_class_index(const torch::Tensor& emb, const torch::Tensor& class_index,
                                  const torch::Tensor& margins) {
  if (margins.dim() != 2 || margins.size(0) != margins.size(1))
    throw std::invalid_argument("hierarchical_triplet_loss: the margin table must be C x C");
  if (class_index.dim() != 1 || class_index.size(0) != emb.size(0))
    throw std::invalid_argument("hierarchical_triplet_loss: one class index per embedding");
  const auto C = margins.size(0);
  const auto y = class_index.to(torch::kInt64).to(emb.device());
  if (y.numel() > 0 && (y.min().item<std::int64_t>() < 0 || y.max().item<std::int64_t>() >= C))
    throw std::invalid_argument("hierarchical_triplet_loss: a class index outside the " + std::to_string(C) + " x " +
                                std::to_string(C) + " margin table");
  return y;
}

}  // namespace

torch::Tensor hierarchical_triplet_loss(const torch::Tensor& emb, const torch::Tensor& class_index,
                                        const MinedTriplets& t, const torch::Tensor& margins, bool squared) {
  if (emb.dim() != 2) throw std::invalid_argument("hierarchical_triplet_loss: embeddings must be B x d");
  if (!t.anchors.defined() || t.anchors.numel() == 0)
    throw std::invalid_argument("hierarchical_triplet_loss: no triplets in the batch");
  const auto y = checked_class_index(emb, class_index, margins);
  const auto a = emb.index({t.anchors}), p = emb.index({t.positives}), n = emb.index({t.negatives});
  const auto distance = squared ? Distance::squared_euclidean : Distance::euclidean;
  const auto dap = paired_distance(a, p, distance);
  const auto dan = paired_distance(a, n, distance);
  const auto m = margins.to(emb.device(), emb.scalar_type()).index({y.index({t.anchors}), y.index({t.negatives})});
  return torch::relu(dap - dan + m).sum() / (2.0 * double(t.anchors.size(0)));
}

AllTripletsLoss hierarchical_triplet_loss_all(const torch::Tensor& emb, const torch::Tensor& class_index,
                                              const torch::Tensor& margins, bool squared) {
  if (emb.dim() != 2) throw std::invalid_argument("hierarchical_triplet_loss: embeddings must be B x d");
  const auto y = checked_class_index(emb, class_index, margins);
  const auto same = y.unsqueeze(0).eq(y.unsqueeze(1));
  const auto eye = torch::eye(emb.size(0), torch::TensorOptions().dtype(torch::kBool).device(emb.device()));
  const auto pos = same.logical_and(eye.logical_not()), neg = same.logical_not();
  // mask[a][p][n]: p a positive of a (p != a), n a negative of a
  const auto mask = pos.unsqueeze(2).logical_and(neg.unsqueeze(1));
  const auto Z = mask.sum().item<std::int64_t>();
  if (Z == 0)
    throw std::invalid_argument("hierarchical_triplet_loss: no triplet in the batch (it needs a class with two samples "
                                "and another class)");
  const auto d = from_squared(pairwise_squared_expanded(emb), squared ? Distance::squared_euclidean : Distance::euclidean);
  const auto m = margins.to(emb.device(), emb.scalar_type()).index({y}).index({torch::indexing::Slice(), y});
  const auto terms = torch::relu(d.unsqueeze(2) - d.unsqueeze(1) + m.unsqueeze(1)) * mask.to(emb.scalar_type());
  AllTripletsLoss r;
  r.loss = terms.sum() / (2.0 * double(Z));
  r.active = double(terms.detach().gt(0).logical_and(mask).sum().item<std::int64_t>()) / double(Z);
  r.triplets = Z;
  return r;
}

}  // namespace dmlbench::experiments
