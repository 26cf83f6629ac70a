#include "dmlbench/experiments/embedding_spread.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

EmbeddingSpread embedding_spread(const torch::Tensor& emb, const torch::Tensor& labels) {
  if (emb.dim() != 2 || emb.size(0) < 2)
    throw std::invalid_argument("embedding_spread: needs an N x d matrix with N >= 2");
  if (labels.dim() != 1 || labels.size(0) != emb.size(0))
    throw std::invalid_argument("embedding_spread: " + std::to_string(labels.numel()) + " labels for " +
                                std::to_string(emb.size(0)) + " embeddings");
  auto h = emb.detach().to(torch::kCPU, torch::kFloat64);
  const auto norms = h.norm(2, 1);
  if (norms.min().item<double>() <= 0) throw std::invalid_argument("embedding_spread: a zero embedding has no direction");
  h = h / norms.unsqueeze(1);
  const double n = double(h.size(0));
  const double all = h.sum(0).pow(2).sum().item<double>() - n;  // ordered pairs i != j
  const auto y = labels.to(torch::kCPU, torch::kInt64);
  const auto [classes, inverse] = at::_unique(y, false, true);
  const auto sums = torch::zeros({classes.size(0), h.size(1)}, torch::kFloat64).index_add_(0, inverse, h);
  const auto counts = torch::zeros({classes.size(0)}, torch::kFloat64).index_add_(0, inverse, torch::ones_like(y, torch::kFloat64));
  const double same = sums.pow(2).sum().item<double>() - n;
  const double same_pairs = (counts * (counts - 1)).sum().item<double>(), all_pairs = n * (n - 1);
  EmbeddingSpread s;
  s.mean_all = all / all_pairs;
  s.mean_same_class = same_pairs > 0 ? same / same_pairs : NAN;
  s.mean_other_class = all_pairs - same_pairs > 0 ? (all - same) / (all_pairs - same_pairs) : NAN;
  return s;
}

}  // namespace dmlbench::experiments
