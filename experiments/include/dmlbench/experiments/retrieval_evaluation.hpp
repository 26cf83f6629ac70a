// The full retrieval evaluation of Musgrave et al. 2020 ("A Metric Learning Reality Check", Sec 3.2) per label
// level: Recall@K ([LCC] Sec 5, [XHN] Sec 6), precision@1, R-precision and MAP@R over exact nearest neighbours,
// with k-means NMI (k = number of classes) and NMI+ (k = a multiple of it). The exact kNN engine (exact_knn.hpp)
// holds one tile of distances and each query's bounded candidate list at a time.
#pragma once

#include "dmlbench/experiments/exact_knn.hpp"
#include "dmlbench/experiments/similarity.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The ranking of a query's gallery: by distance (Euclidean: the squared distance |q|^2 + |g|^2 - 2<q, g>; cosine:
// 0 - the cosine similarity), as computed in float32 by exact_knn, and among exactly equal values by gallery index,
// lower first. The query itself is excluded by its index, never by a distance. pytorch-metric-learning
// has no rule: it takes torch.topk / faiss's order of tied items, and its tie test (test_tied_distances) only checks
// that a co-located item of another label, not the query, is what remains after dropping the query. This rule gives
// the same answer there.
extern const char* const kRetrievalTieRule;

// A query with no other item of its label in the gallery: a miss in Recall@K, left out of precision@1,
// R-precision and MAP@R (as pytorch-metric-learning leaves out its "lone" queries), counted in
// queries_without_positive. A level where every query is such has no precision@1, R-precision nor MAP@R (null).
extern const char* const kQueriesWithoutPositiveRule;

struct LabelLevel {
  std::string name;
  std::vector<std::int64_t> labels;  // one per row; any integer values, compared for equality
};

struct RetrievalOptions {
  std::vector<int> ks = {1, 2, 4, 8};
  Similarity similarity = Similarity::cosine;
  bool ranking_metrics = true;  // precision@1, R-precision and MAP@R (R neighbours ranked per query); false: Recall@K
  bool clustering = true;     // NMI and NMI+ (self-retrieval only); k-means runs on the L2-normalised embeddings
                              // for cosine, on the raw ones for Euclidean
  int nmi_plus_factor = 10;   // NMI+ clusters into factor x classes (0: no NMI+); must not exceed the rows
  std::uint64_t kmeans_seed = 0;
  int kmeans_iterations = 100;  // at most this many Lloyd iterations (it stops earlier when an assignment repeats)
  std::int64_t block = 0;         // queries per block (exact_knn's query_block); 0: automatic
  std::int64_t gallery_tile = 0;  // gallery rows per tile of distances (exact_knn); 0: automatic
  KnnBackend backend = KnnBackend::automatic;
  // progress of long evaluations: ("search", queries done, queries) after each block of queries, ("k-means k=K", 0,
  // 1) before each clustering; may be null
  std::function<void(const std::string& stage, std::int64_t done, std::int64_t total)> progress;
};

struct LevelReport {
  std::string level;
  std::vector<int> ks;
  std::vector<double> recall_at_k;  // over all queries
  std::optional<double> precision_at_1, r_precision, map_at_r;  // over the queries with a positive; none: nullopt
  std::optional<double> nmi, nmi_plus;
  int nmi_k = 0, nmi_plus_k = 0;
  std::int64_t queries = 0, queries_without_positive = 0;
};

struct RetrievalReport {
  Similarity similarity = Similarity::cosine;
  bool separate_gallery = false;  // query/gallery sets (In-shop) rather than each item against all others
  std::int64_t queries = 0, gallery = 0, dims = 0;
  // recall_ties_at_k[i]: the queries whose K-th and (K+1)-th nearest lie at the same distance (K = ks[i]), whose
  // Recall@K at some level the tie rule may decide. Another rule (torch::topk's order, as pytorch-metric-learning's
  // plain path) changes Recall@K by at most this many queries / queries.
  std::vector<int> ks;
  std::vector<std::int64_t> recall_ties_at_k;
  std::vector<LevelReport> levels;
  // what the work cost (not part of to_json: timings differ run to run): the neighbour search, and each k-means
  // clustering by its k
  KnnStats search;
  std::vector<std::pair<int, KMeansStats>> clustering_cost;
};

// {metric, gallery_is_queries, queries, gallery, dims, recall_ties_at_k: {"1": ...}, levels: {<name>: {recall_at_k: {"1": ...}, precision_at_1,
// r_precision, map_at_r, nmi, nmi_k, nmi_plus, nmi_plus_k, queries, queries_without_positive}}}; a value is null
// where it is undefined or not computed. The rules above belong in the config that goes with it (dmlbench eval writes them).
void to_json(nlohmann::ordered_json& j, const LevelReport& r);
void to_json(nlohmann::ordered_json& j, const RetrievalReport& r);

// Each of the N rows against the other N - 1 (the query excluded). embeddings: N x d, finite, any device and
// floating type (computed in float32). NMI clusters with kmeans(x, k, kmeans_seed) and scores the labels in their
// numeric order, so it equals nmi_of_kmeans on the same float32 rows (Euclidean: the embeddings as given).
// Throws std::invalid_argument for NaN/inf embeddings, a level whose label
// count is not N, an empty or duplicate level name, K outside [1, N-1] or repeated, NMI+ asking for more clusters
// than rows, or squared distances that overflow float32.
RetrievalReport retrieval_report(const torch::Tensor& embeddings, const std::vector<LabelLevel>& levels,
                                 const RetrievalOptions& options = {});

// Queries against a separate gallery (In-shop): nothing excluded, no clustering. The levels are matched by name;
// K must lie in [1, gallery size]. Throws also for a dimension mismatch or a query level the gallery lacks.
RetrievalReport retrieval_report(const torch::Tensor& queries, const std::vector<LabelLevel>& query_levels,
                                 const torch::Tensor& gallery, const std::vector<LabelLevel>& gallery_levels,
                                 const RetrievalOptions& options = {});

}  // namespace dmlbench::experiments
