// Triplet miners over a batch similarity matrix: positives random / easy (EPS, [LCC] Sec 4.3; [XHN] EP) / hard / all
// (FaceNet's every anchor-positive pair);
// negatives random / hard / semi-hard (Schroff et al. 2015) / easy / distance-weighted (Wu et al. 2017); and the
// named combinations of the papers: EPHN, EPSHN, HPHN, EPEN ([XHN]), trip-sh and eps-trip-sh ([LCC]).
#pragma once

#include "dmlbench/experiments/miner_spec.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace dmlbench::experiments {

struct MinerConfig {
  PositiveChoice positive = PositiveChoice::easy;
  NegativeChoice negative = NegativeChoice::hard;
  // distance-weighted sampling (Wu et al. 2017, Sec 4): distances clipped below at `dw_cutoff`, weights zero at or
  // beyond `dw_nonzero_loss_cutoff`; `dw_dim` is the embedding dimension n of q(d) ~ d^(n-2) (1 - d^2/4)^((n-3)/2)
  double dw_cutoff = 0.5, dw_nonzero_loss_cutoff = 1.4;
  int dw_dim = 128;
  // [XHN] Sec 6.1: each feature in at most one triplet of the batch (anchors in a seeded random order, each choosing
  // its positive and negative among the features no triplet holds yet), so that triplets do not move each other
  bool one_triplet_per_feature = false;
};

// The registered miner `name` (miner_spec.hpp; the papers' named miners are in experiments/src/miners/). Throws
// std::invalid_argument ("unknown miner") naming the registered ones for any other name.
MinerConfig named_miner(const std::string& name);

struct MinedTriplets {
  torch::Tensor anchors, positives, negatives;  // int64 indices into the batch, one triplet per usable anchor
  std::int64_t skipped_no_positive = 0;         // anchors whose class has one sample in the batch
  std::int64_t skipped_no_negative = 0;         // anchors with no other class in the batch
};

// For a loss on mined triplets: std::invalid_argument unless `emb` is B x d and `t` holds a triplet.
void require_triplets(const torch::Tensor& emb, const MinedTriplets& t);

// sim: B x B similarities of L2-normalised embeddings (any device); labels: B (int64). One triplet per anchor, or with
// PositiveChoice::all one per anchor-positive pair (anchors in order, each anchor's positives in batch order), each
// pair with its own negative. Semi-hard: the most similar negative that is less similar than the chosen positive (S_an < S_ap, the closest
// negative farther than the positive, as in FaceNet's and TensorFlow's semi-hard loss); an anchor without one
// takes its least similar negative. Random choices draw from `gen` (seeded by the caller). With
// one_triplet_per_feature, an anchor left without a free positive or negative forms no triplet (counted as skipped);
// distance-weighted negatives and all positives are not offered there (std::invalid_argument).
MinedTriplets mine_triplets(const torch::Tensor& sim, const torch::Tensor& labels, const MinerConfig& c,
                            torch::Generator gen);

}  // namespace dmlbench::experiments
