// The Multi-Similarity loss's formula (Wang et al. 2019; [LCC] Sec 5.2.3's EPS + MS), defined in
// experiments/src/losses/multi_similarity_loss.cpp beside its registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// Multi-Similarity loss (Wang et al. 2019 eqs 10-12, 15) with its pair mining (epsilon); normalised embeddings.
// easiest_positive ([LCC] Sec 5.2.3 EPS + MS): the positive term has only each anchor's most similar positive
// instead of Wang et al.'s mined positives; the negatives are mined exactly as in MS (S_an + epsilon > the least
// similar positive's S_ap). The anchors' terms averaged as `reduction` says (loss_reducers.hpp).
torch::Tensor multi_similarity_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha = 2.0,
                                    double beta = 50.0, double lambda = 1.0, double epsilon = 0.1,
                                    bool easiest_positive = false, MsReduction reduction = MsReduction::batch);

}  // namespace dmlbench::experiments
