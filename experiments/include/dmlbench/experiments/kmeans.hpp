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
  // k-means++ while N k d is at most this, else k-means||. k-means++ computes a row's float64 distance to a new centre
  // only where a draw needs it or a float32 GEMM's bounded scores cannot rule it out, so far fewer than N k of them.
  double exact_seeding_budget = 1.0e11;
  bool prune_seeding = true;      // k-means++: distances kept lazily, the same draws (false: every row, every centre)
  // k-means++'s draws by multinomial_draw (the same draws, computed where they can matter); false: torch::multinomial
  bool fast_draws = true;
  int parallel_rounds = 5;        // k-means|| rounds, each drawing about `oversampling` x k candidates
  double oversampling = 2.0;
  std::int64_t block_bytes = std::int64_t(16) << 20;  // the float32 block of distances of the assignment step
  // Lloyd's steps skip the rows whose assignment cannot change (Yinyang k-means, Ding et al., ICML 2015: an upper
  // bound on the distance to the own centre and a lower bound per group of centres, moved by the centres' drifts),
  // with a margin for the float32 GEMM's rounding, and run on at::get_num_threads() threads; the assignment is that
  // of the plain loop. false: the plain loop (every row every iteration, LibTorch on one thread).
  bool bounds = true;
  int groups = 0;  // Yinyang's groups of centres; 0: k / 10, as many as bound_bytes holds
  std::int64_t bound_bytes = std::int64_t(256) << 20;  // the float32 lower bounds, rows x groups
  // The rounding margins (of the skip rule, of the check of a score computed apart from the plain loop's block, and
  // of the float32 looks that spare k-means++ a float64 distance) times this. 1 is the rule proven safe; tests set 0 to show that the margins are needed.
  double margin_scale = 1.0;
  // Take a batch's scores as the plain loop's where this BLAS was found to give them bit for bit (checked on the first
  // iteration's rows); false: decide every near tie by exact scores or by the plain loop's block (tests).
  bool trust_same_bits = true;
};

// What a k-means run did and cost.
struct KMeansStats {
  std::string seeding;  // "k-means++" or "k-means|| (R rounds, l = ...)"
  std::int64_t candidates = 0;  // k-means||: the candidates the weighted k-means++ picked from (0 for k-means++)
  std::int64_t rows_read = 0;   // k-means++: the float64 row distances computed, against N k without pruning
  int iterations = 0;           // Lloyd iterations run
  bool converged = false;       // the last iteration changed no assignment
  double seeding_seconds = 0, seconds_per_iteration = 0, flops_per_iteration = 0;
  int groups = 0;                  // Yinyang's groups of centres (0: the plain loop)
  std::int64_t rows_scored = 0;    // rows whose scores a GEMM computed, summed over the iterations (plain: N each)
  std::int64_t rows_replayed = 0;  // of them, rows scored again in a batch of the plain loop's block shape (near ties)
  bool same_bits = false;          // batches were found to give the plain loop's scores bit for bit
};

// The index torch::multinomial(p, 1, false, gen) draws from the float64 weights p (1-D, CPU) and the generator state
// after it, as LibTorch 1.13 computes them (an exponential per entry), but computing the exponentials only where the
// entry can win; LibTorch draws where p holds an entry that is not finite and positive, or where this build's
// LibTorch was found to draw otherwise (checked once per process).
std::int64_t multinomial_draw(const torch::Tensor& p, at::Generator& gen);

// The least value of each row of a CPU float32 matrix and its column, as torch::min(score, 1) gives them: the first
// column where several are equal, the first NaN where a row holds one (the assignment step's argmin). One thread.
std::pair<torch::Tensor, torch::Tensor> row_minimum(const torch::Tensor& score);

// The cluster of each row of the N x d `points`, seeded. k-means++ draws each next centre with probability
// proportional to the squared distance (float64 sums of float32 rows) to the nearest one chosen; k-means|| draws
// candidates in `parallel_rounds` passes and picks k of them by k-means++ weighted by the rows nearest each. A Lloyd
// step assigns every row to the centre of least |c|^2 - 2 x.c (float32 GEMM in blocks of block_bytes / (4 k) rows, ties
// to the lower centre) and moves each centre to the float64 mean of its rows in row order (an empty cluster keeps its
// centre). With `bounds` the same assignments, iterations and centres as the plain loop with its GEMMs on one
// OpenBLAS thread, for any thread count. Throws std::invalid_argument for k outside [1, N] or options out of range.
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, const KMeansOptions& options,
                        KMeansStats* stats = nullptr);
std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, int iterations = 100,
                        KMeansStats* stats = nullptr);

}  // namespace dmlbench::experiments
