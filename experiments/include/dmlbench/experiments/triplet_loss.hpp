// The triplet margin loss's formula ([LCC] Sec 3, [XHN] eq 28's L^v; Schroff et al. 2015), defined in
// experiments/src/losses/triplet_loss.cpp beside its registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// mean over triplets of [D(a,p) - D(a,n) + margin]_+ ; cosine: D = 1 - S. The *_terms function gives the per-triplet
// values whose mean the loss is (for a trimmed loss, trimmed_mean).
torch::Tensor triplet_margin_loss(const torch::Tensor& emb, const MinedTriplets& t, double margin, Distance d);
torch::Tensor triplet_margin_terms(const torch::Tensor& emb, const MinedTriplets& t, double margin, Distance d);

}  // namespace dmlbench::experiments
