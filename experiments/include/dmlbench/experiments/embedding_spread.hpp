// How collapsed a set of embeddings is ([XHN] Problem 1, Fig 4: "all points mapped to the same location"): the mean
// cosine similarity over all pairs, over same-class pairs and over other-class pairs (1 when every point is the same).
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

struct EmbeddingSpread {
  double mean_all = 0, mean_same_class = 0, mean_other_class = 0;  // NaN where there is no such pair
};

// emb: N x d (any device; rows L2-normalised here, in float64), labels: N (int64). Exact, in O(N d) from class sums:
// the sum over ordered pairs i != j of h_i . h_j is |sum h|^2 - N. Throws std::invalid_argument for N < 2, a label
// count other than N, or a zero row.
EmbeddingSpread embedding_spread(const torch::Tensor& emb, const torch::Tensor& labels);

}  // namespace dmlbench::experiments
