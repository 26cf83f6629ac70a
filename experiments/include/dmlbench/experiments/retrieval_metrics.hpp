// Retrieval and clustering metrics of [LCC] Sec 5 and [XHN] Sec 6: Recall@K with the query excluded from the
// gallery, and NMI of k-means clusters (k = number of classes) and NMI+ (a larger k), against any label set.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

enum class Similarity { cosine, euclidean };

// embeddings: N x d (any device), compared by cosine similarity (after L2 normalisation) or by Euclidean distance
// (for un-normalised embeddings such as the 2-D MNIST ones); labels: N. Returns Recall@K for each K: the fraction
// of queries with a same-label item among their K nearest other items. Query blocks of `block` rows bound memory.
std::vector<double> recall_at_k(const torch::Tensor& embeddings, const torch::Tensor& labels,
                                const std::vector<int>& ks, Similarity similarity = Similarity::cosine,
                                std::int64_t block = 1024);

// Lloyd's k-means with k-means++ seeding, seeded; returns the cluster of each row.
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, int iterations = 100);

// NMI of k-means(k) on the embeddings against the labels.
double nmi_of_kmeans(const torch::Tensor& embeddings, const torch::Tensor& labels, int k, std::uint64_t seed);

}  // namespace dmlbench::experiments
