// The distances between embeddings ([LCC] Sec 3, [HTL] eq 3, [XHN] eq 1, [WU] Sec 4): one form each.
#include "dmlbench/experiments/embedding_distance.hpp"

#include <stdexcept>

namespace dmlbench::experiments {

torch::Tensor paired_distance(const torch::Tensor& a, const torch::Tensor& b, Distance d) {
  switch (d) {
    case Distance::squared_euclidean: return (a - b).pow(2).sum(1);
    case Distance::euclidean: return ((a - b).pow(2).sum(1) + 1e-12).sqrt();
    case Distance::cosine: return 1 - (a * b).sum(1);
  }
  throw std::logic_error("paired_distance: unknown distance");
}

torch::Tensor from_squared(const torch::Tensor& squared, Distance d) {
  switch (d) {
    case Distance::squared_euclidean: return squared;
    case Distance::euclidean: return (squared + 1e-12).sqrt();
    case Distance::cosine: break;
  }
  throw std::invalid_argument("from_squared: the cosine distance is not a function of the squared distance");
}

torch::Tensor pairwise_squared_cdist(const torch::Tensor& x) { return torch::cdist(x, x).pow(2); }

torch::Tensor pairwise_squared_expanded(const torch::Tensor& x) {
  const auto sq = x.pow(2).sum(1);
  return (sq.unsqueeze(1) + sq.unsqueeze(0) - 2 * x.matmul(x.t())).clamp_min(0);
}

torch::Tensor unit_sphere_distance(const torch::Tensor& similarity) {
  return (2.0 - 2.0 * similarity).clamp_min(0.0).sqrt();
}

}  // namespace dmlbench::experiments
