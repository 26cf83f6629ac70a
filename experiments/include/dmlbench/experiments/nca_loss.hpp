// The NCA triplet loss L1st's formula ([XHN eq 1], [XGS eq 4]), defined in experiments/src/losses/nca_loss.cpp
// beside its registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// [XHN eq 1] with scale s: mean of -log(e^{s S_ap} / (e^{s S_ap} + e^{s S_an})) = softplus(s (S_an - S_ap)).
torch::Tensor nca_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t, double scale = 1.0);
torch::Tensor nca_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t, double scale = 1.0);

}  // namespace dmlbench::experiments
