// Retrieval and clustering metrics of [LCC] Sec 5 and [XHN] Sec 6: Recall@K with the query excluded from the
// gallery, and NMI of k-means clusters (k = number of classes) and NMI+ (a larger k), against any label set.
#pragma once

#include "dmlbench/experiments/kmeans.hpp"

#include "dmlbench/experiments/similarity.hpp"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

// embeddings: N x d (any device), compared by cosine similarity (after L2 normalisation) or by Euclidean distance
// (for un-normalised embeddings such as the 2-D MNIST ones); labels: N. Returns Recall@K for each K: the fraction
// of queries with a same-label item among their K nearest other items, ranked by the exact kNN engine with its tie
// rule (retrieval_evaluation.hpp's kRetrievalTieRule). block: queries per block (0: automatic).
std::vector<double> recall_at_k(const torch::Tensor& embeddings, const torch::Tensor& labels,
                                const std::vector<int>& ks, Similarity similarity = Similarity::cosine,
                                std::int64_t block = 0);

// NMI of k-means(k) on the embeddings against the labels.
double nmi_of_kmeans(const torch::Tensor& embeddings, const torch::Tensor& labels, int k, std::uint64_t seed);

}  // namespace dmlbench::experiments
