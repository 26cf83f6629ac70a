// [HTL] Sec 4.1-4.2 during training (Algorithm 1, step 7): the class tree of the training set's embeddings, the table
// of dynamic violate margins alpha(y_a, y_n) it gives (its JSON: class_tree_json.hpp).
#pragma once

#include "dmlbench/theory/hierarchical_class_tree.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct ClassTreeMargins {
  theory::ClassDistances distances;  // classes: the sorted distinct labels; the loss's class index is the position
  theory::ClassTree tree;
  torch::Tensor margins;             // C x C float64: margins[a][n] = beta + d_H(a, n) - s_a ([HTL] alpha_z)
  std::vector<double> distance_table;  // C x C row-major d(p, q), for anchor_neighbour_batch
};

// emb: N x d (L2-normalised as [HTL] assumes; rows are normalised here again, a zero row is an error); labels: N.
ClassTreeMargins class_tree_margins(const torch::Tensor& emb, const std::vector<std::int64_t>& labels, int levels,
                                    theory::Linkage linkage, double beta);

}  // namespace dmlbench::experiments
