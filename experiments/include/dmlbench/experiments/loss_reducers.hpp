// How a loss's terms become the one value it back-propagates: the mean of its terms, the trimmed mean
// of [LCC] Sec 5.2.5 (Shen and Sanghavi 2019, iterative trimmed loss minimisation: only the batch's terms with the
// lowest current loss, the rest treated as badly labelled), and the Multi-Similarity loss's average over anchors
// (Wang et al. 2019 eq 15). A loss's file computes its terms; the engine or the loss picks the reducer.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>

namespace dmlbench::experiments {

// The plain mean of the terms.
torch::Tensor mean_of_terms(const torch::Tensor& terms);

// The mean of the ceil((1 - trim) x T) smallest of the T per-term losses `terms` (1-D); the others get no gradient.
// Equal values at the cut: the lower index is kept (a stable sort). trim = 0: the plain mean. Throws
// std::invalid_argument for trim outside [0, 1), an empty or non-1-D `terms`.
torch::Tensor trimmed_mean(const torch::Tensor& terms, double trim);

// The share of the terms above 0 (the triplets that violate their margin), for a hinge loss's `active`.
std::optional<double> share_violating(const torch::Tensor& terms);

// How the Multi-Similarity loss averages its anchors' terms: batch (Wang et al. eq 15, 1/m over the batch's m
// samples, as pytorch-metric-learning's MultiSimilarityLoss) or mined_anchors (over the anchors that mined a positive
// and a negative pair; the bench's earlier reading).
enum class MsReduction { batch, mined_anchors };

// `sum`, the anchors' terms added up, averaged as `how` says over a batch of `batch` samples of which `mined` gave a
// term; with no anchor mined, 0 that keeps the graph of `graph` (a tensor of the batch, so that backward runs).
torch::Tensor average_over_anchors(const torch::Tensor& sum, std::int64_t mined, std::int64_t batch, MsReduction how,
                                   const torch::Tensor& graph);

}  // namespace dmlbench::experiments
