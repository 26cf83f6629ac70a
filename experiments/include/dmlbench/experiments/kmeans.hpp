// Lloyd's k-means for NMI and NMI+ (Manning et al., Introduction to IR, Sec 16.3; [LCC] Sec 5.2): k-means++ seeding
// (Arthur and Vassilvitskii 2007), or k-means|| (Bahmani et al., VLDB 2012) where a pass per centre costs too much,
// then Lloyd iterations whose assignment step is a float32 GEMM.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

struct KMeansOptions {
  int iterations = 100;  // at most this many Lloyd iterations; it stops earlier when no assignment changes
  // k-means++ while N k d is at most this, else k-means||. k-means++ reads only the rows a new centre may come nearer
  // to (the triangle inequality prunes the rest), so its cost is far below N k d on clustered data.
  double exact_seeding_budget = 1.0e11;
  bool prune_seeding = true;      // k-means++: skip the rows the triangle inequality rules out (false: every row)
  int parallel_rounds = 5;        // k-means|| rounds, each drawing about `oversampling` x k candidates
  double oversampling = 2.0;
  std::int64_t block_bytes = std::int64_t(16) << 20;  // the float32 block of distances of the assignment step
};

// What a k-means run did and cost.
struct KMeansStats {
  std::string seeding;  // "k-means++" or "k-means|| (R rounds, l = ...)"
  std::int64_t candidates = 0;  // k-means||: the candidates the weighted k-means++ picked from (0 for k-means++)
  std::int64_t rows_read = 0;   // k-means++: the row distances computed, against N k without pruning
  int iterations = 0;           // Lloyd iterations run
  bool converged = false;       // the last iteration changed no assignment
  double seeding_seconds = 0, seconds_per_iteration = 0, flops_per_iteration = 0;
};

// The least value of each row of a CPU float32 matrix and its column, as torch::min(score, 1) gives them: the first
// column where several are equal, the first NaN where a row holds one (the assignment step's argmin). One thread.
std::pair<torch::Tensor, torch::Tensor> row_minimum(const torch::Tensor& score);

// The cluster of each row of the N x d `points`, seeded. k-means++ draws each next centre with probability
// proportional to the squared distance (float64 sums of float32 rows) to the nearest one chosen; k-means|| draws
// candidates in `parallel_rounds` passes and picks k of them by k-means++ weighted by the rows nearest each. A Lloyd
// step assigns every row to the centre of least |c|^2 - 2 x.c (float32 GEMM, ties to the lower centre) and moves each
// centre to the float64 mean of its rows (an empty cluster keeps its centre). Throws std::invalid_argument for k
// outside [1, N] or options out of range.
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, const KMeansOptions& options,
                        KMeansStats* stats = nullptr);
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, int iterations = 100,
                        KMeansStats* stats = nullptr);

}  // namespace dmlbench::experiments
