// The contrastive loss's formula ([LCC] Sec 3), defined in experiments/src/losses/contrastive_loss.cpp beside its
// registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// [LCC] Sec 3 contrastive loss over all pairs i != j of the batch: delta D + (1 - delta)(alpha - D)_+, D squared.
torch::Tensor contrastive_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha);

}  // namespace dmlbench::experiments
