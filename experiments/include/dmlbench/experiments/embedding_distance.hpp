// The distances between embeddings that the losses, the batch miner and the training evaluation compare by: squared
// Euclidean ([LCC] Sec 3, [XHN] eq 28), Euclidean ([HTL] eq 3) and cosine 1 - S ([XHN] eq 1's S), one place for each
// form, so that no loss or miner derives its own. Named once at the config's parser (distance_kind.hpp).
#pragma once

#include "dmlbench/experiments/distance_kind.hpp"

#include <torch/torch.h>

#include <string>

namespace dmlbench::experiments {

// Row i of a against row i of b (n x d each): a length-n vector. Euclidean adds 1e-12 inside the root (the gradient
// of |x| at x = 0 is undefined); cosine is 1 - <a_i, b_i> (rows on the unit sphere).
torch::Tensor paired_distance(const torch::Tensor& a, const torch::Tensor& b, Distance d);

// A squared distance made the given one (squared: as is; Euclidean: the root with 1e-12 inside, as paired_distance).
// Cosine is not a function of the squared distance off the sphere: std::invalid_argument.
torch::Tensor from_squared(const torch::Tensor& squared, Distance d);

// B x B squared Euclidean distances of the rows of x: torch::cdist squared (the contrastive loss, the miner's
// similarity in Euclidean space), or the expansion |x_i|^2 + |x_j|^2 - 2 <x_i, x_j> clamped at 0 (the [HTL] loss over
// all triplets). The two differ in the last bits; each caller keeps the form its results were computed with.
torch::Tensor pairwise_squared_cdist(const torch::Tensor& x);
torch::Tensor pairwise_squared_expanded(const torch::Tensor& x);

// The Euclidean distance of unit vectors from their cosine similarity, sqrt(max(2 - 2 S, 0)) (Wu et al. 2017's
// distance-weighted sampling, [WU] Sec 4).
torch::Tensor unit_sphere_distance(const torch::Tensor& similarity);

}  // namespace dmlbench::experiments
