// The hierarchical triplet loss of [HTL] Sec 3.3: L_M = 1 / (2 Z_M) sum_z [ |x_a - x_p| - |x_a - x_n| + alpha_z ]_+,
// alpha_z the dynamic violate margin of the anchor's and the negative's classes (theory/hierarchical_class_tree.hpp),
// Z_M the number of triplets in the batch.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// emb: B x d; class_index: B (int64, 0..C-1, rows of `margins`); margins: C x C, margins[y_a][y_n] = alpha_z.
// Plain Euclidean distances, as the slides print them (+1e-12 inside the root: the gradient at a zero distance).
// Throws std::invalid_argument for no triplets, a class index outside the table, or a non-square table.
torch::Tensor hierarchical_triplet_loss(const torch::Tensor& emb, const torch::Tensor& class_index,
                                        const MinedTriplets& t, const torch::Tensor& margins);

}  // namespace dmlbench::experiments
