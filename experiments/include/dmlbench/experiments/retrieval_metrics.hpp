// Retrieval and clustering metrics of [LCC] Sec 5 and [XHN] Sec 6: Recall@K with the query excluded from the
// gallery, and NMI of k-means clusters (k = number of classes) and NMI+ (a larger k), against any label set.
#pragma once

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

// What a k-means run cost: k-means++ seeding, then Lloyd iterations of 2 N k d flops each (distances to the centres).
struct KMeansStats {
  int iterations = 0;
  double seeding_seconds = 0, seconds_per_iteration = 0, flops_per_iteration = 0;
};

// Lloyd's k-means with k-means++ seeding, seeded, in float64 on slices of rows (memory: the rows once in float64
// where that takes at most float64_copy_bytes, else one slice at a time, with the same result); returns the cluster
// of each row. Stops when an assignment repeats or after `iterations`.
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, int iterations = 100,
                        KMeansStats* stats = nullptr, std::int64_t float64_copy_bytes = std::int64_t(256) << 20);

// NMI of k-means(k) on the embeddings against the labels.
double nmi_of_kmeans(const torch::Tensor& embeddings, const torch::Tensor& labels, int k, std::uint64_t seed);

}  // namespace dmlbench::experiments
