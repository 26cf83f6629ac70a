// The hierarchical triplet loss of [HTL] Sec 4.2: L_M = 1 / (2 Z_M) sum_z [ |x_a - x_p| - |x_a - x_n| + alpha_z ]_+,
// alpha_z the dynamic violate margin of the anchor's and the negative's classes (theory/hierarchical_class_tree.hpp),
// Z_M the number of triplets in the batch.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// emb: B x d; class_index: B (int64, 0..C-1, rows of `margins`); margins: C x C, margins[y_a][y_n] = alpha_z.
// Plain Euclidean distances, as the slides print them (+1e-12 inside the root: the gradient at a zero distance); with
// `squared`, squared distances, the units of alpha_z (d_H and s are squared distances) and of the slides' own
// triplet loss l_tri. Throws std::invalid_argument for no triplets, a class index outside the table, or a non-square
// table.
torch::Tensor hierarchical_triplet_loss(const torch::Tensor& emb, const torch::Tensor& class_index,
                                        const MinedTriplets& t, const torch::Tensor& margins, bool squared = false);

// The same loss over all triplets of the batch, as [HTL] forms them: every ordered anchor-positive pair of a class
// (A_t^2) with every sample of every other class (A_{l'm}^2 C_t^1), Z_M their number; computed from the B x B distance
// matrix (B^3 terms, no index copies). `active`: the fraction of the triplets whose hinge term is positive (the
// triplets that violate their margin and give a gradient), `triplets`: Z_M. Throws std::invalid_argument as above,
// and for a batch with no triplet (one class, or no class with two samples).
struct AllTripletsLoss {
  torch::Tensor loss;
  double active = 0;
  std::int64_t triplets = 0;
};
AllTripletsLoss hierarchical_triplet_loss_all(const torch::Tensor& emb, const torch::Tensor& class_index,
                                              const torch::Tensor& margins, bool squared = false);

}  // namespace dmlbench::experiments
