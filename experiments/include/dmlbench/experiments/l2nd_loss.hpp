// The 2nd-order triplet loss L2nd's formula ([XHN eq 16]), defined in experiments/src/losses/l2nd_loss.cpp beside
// its registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// [XHN eq 16]: mean of softplus(S_an^2/2 - S_ap + S_ap^2/2).
torch::Tensor second_order_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t);
torch::Tensor second_order_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t);

}  // namespace dmlbench::experiments
