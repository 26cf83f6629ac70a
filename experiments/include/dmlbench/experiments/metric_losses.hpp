// Metric-learning losses over L2-normalised embeddings and mined triplets: triplet margin (squared / plain
// Euclidean / cosine), NCA triplet L1st with scale ([XHN eq 1], [XGS eq 4]), 2nd-order L2nd ([XHN eq 16]), margin
// loss with learnable beta ([LCC] Sec 3, Wu et al. 2017), contrastive ([LCC] Sec 3) and Multi-Similarity (Wang et
// al. 2019). Each returns the mean over its terms.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

enum class TripletDistance { squared_euclidean, euclidean, cosine };

// mean over triplets of [D(a,p) - D(a,n) + margin]_+ ; cosine: D = 1 - S. The *_terms functions give the per-triplet
// values whose mean the loss is (for a trimmed loss, trimmed_loss.hpp).
torch::Tensor triplet_margin_loss(const torch::Tensor& emb, const MinedTriplets& t, double margin, TripletDistance d);
torch::Tensor triplet_margin_terms(const torch::Tensor& emb, const MinedTriplets& t, double margin, TripletDistance d);

// [XHN eq 1] with scale s: mean of -log(e^{s S_ap} / (e^{s S_ap} + e^{s S_an})) = softplus(s (S_an - S_ap)).
torch::Tensor nca_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t, double scale = 1.0);
torch::Tensor nca_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t, double scale = 1.0);

// [XHN eq 16]: mean of softplus(S_an^2/2 - S_ap + S_ap^2/2).
torch::Tensor second_order_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t);
torch::Tensor second_order_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t);

// [LCC] Sec 3 margin loss on the mined pairs (a, p) and (a, n): (D_ap - beta + alpha)_+ + (beta - D_an + alpha)_+,
// D the squared distance as in [LCC], beta one learnable scalar per class of the anchor (Wu et al.), initialised to
// beta0 (1.2 in [LCC] Sec 5). Mean over the pairs that are active (> 0), as Wu et al. normalise.
struct MarginLossImpl : torch::nn::Module {
  MarginLossImpl(int num_classes, double alpha = 0.2, double beta0 = 1.2);
  torch::Tensor forward(const torch::Tensor& emb, const torch::Tensor& labels, const MinedTriplets& t);
  torch::Tensor beta;
  double alpha;
};
TORCH_MODULE(MarginLoss);

// [LCC] Sec 3 contrastive loss over all pairs i != j of the batch: delta D + (1 - delta)(alpha - D)_+, D squared.
torch::Tensor contrastive_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha);

// How the Multi-Similarity loss averages its anchors' terms: batch (Wang et al. eq 15, 1/m over the batch's m
// samples, as pytorch-metric-learning's MultiSimilarityLoss) or mined_anchors (over the anchors that mined a positive
// and a negative pair; the bench's reading before issue 50).
enum class MsReduction { batch, mined_anchors };

// Multi-Similarity loss (Wang et al. 2019 eqs 10-12, 15) with its pair mining (epsilon); normalised embeddings.
// easiest_positive ([LCC] Sec 5.2.3 EPS + MS): the positive term has only each anchor's most similar positive
// instead of Wang et al.'s mined positives; the negatives are mined exactly as in MS (S_an + epsilon > the least
// similar positive's S_ap).
torch::Tensor multi_similarity_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha = 2.0,
                                    double beta = 50.0, double lambda = 1.0, double epsilon = 0.1,
                                    bool easiest_positive = false, MsReduction reduction = MsReduction::batch);

}  // namespace dmlbench::experiments
