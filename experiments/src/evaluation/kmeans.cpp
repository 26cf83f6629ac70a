// k-means for NMI / NMI+: k-means++ or k-means|| seeding, Lloyd steps by float32 GEMM (kmeans.hpp).
#include "dmlbench/experiments/kmeans.hpp"

#include "../models/cpu_kernel_support.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// |a - b|^2 in float64 of two float32 rows: eight lanes summed in a fixed order, so the AVX2 and baseline builds give
// the same bits.
inline double squared_distance(const float* a, const float* b, std::int64_t d) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 8 <= d; j += 8)
    for (int l = 0; l < 8; ++l) {
      const double t = double(a[j + l]) - double(b[j + l]);
      lane[l] += t * t;
    }
  for (; j < d; ++j) {
    const double t = double(a[j]) - double(b[j]);
    lane[j % 8] += t * t;
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// The k-means++ distances as centres are added. Row r's nearest centre is owner[r] at squared distance d2[r]. A new
// centre c can only come nearer to r where |c - c_owner| < 2 |x_r - c_owner| (triangle inequality), so the rows with
// cc[owner] >= 4 d2 (and a margin of 1e-9 for rounding) are skipped: the same d2 as a full pass, without reading
// their rows (Elkan's bound, ICML 2003, applied to the seeding).
struct SeedingDistances {
  std::vector<double> d2;
  std::vector<std::int32_t> owner;
  std::vector<std::int64_t> centres;  // rows
  std::int64_t rows_read = 0;
};

DMLBENCH_KERNEL void nearer_rows(const float* x, std::int64_t r0, std::int64_t r1, std::int64_t d, const float* c,
                                 const double* cc, std::int32_t newest, bool prune, SeedingDistances& s,
                                 std::int64_t& read) {
  for (std::int64_t r = r0; r < r1; ++r) {
    if (newest == 0) {
      s.d2[std::size_t(r)] = squared_distance(x + r * d, c, d);
      s.owner[std::size_t(r)] = 0;
      ++read;
      continue;
    }
    const double now = s.d2[std::size_t(r)];
    if (prune && cc[s.owner[std::size_t(r)]] >= 4.0 * now * (1 + 1e-9)) continue;
    ++read;
    const double t = squared_distance(x + r * d, c, d);
    if (t < now) {
      s.d2[std::size_t(r)] = t;
      s.owner[std::size_t(r)] = newest;
    }
  }
}

void add_centre(const torch::Tensor& x, std::int64_t row, SeedingDistances& s, bool prune = true) {
  const auto N = x.size(0), d = x.size(1);
  const float* px = x.data_ptr<float>();
  const float* c = px + row * d;
  std::vector<double> cc(s.centres.size());  // |c - c_j|^2 to every earlier centre
  // grains large enough that a centre's few rows run on one thread: a parallel region per centre costs more than it
  // saves below tens of thousands of rows (k = 584 of 11,680 rows: 0.36 s on 1 thread, 7 s on 2 beside other work)
  at::parallel_for(0, std::int64_t(cc.size()), 4096, [&](std::int64_t j0, std::int64_t j1) {
    for (auto j = j0; j < j1; ++j) cc[std::size_t(j)] = squared_distance(c, px + s.centres[std::size_t(j)] * d, d);
  });
  const auto newest = std::int32_t(s.centres.size());
  if (newest == 0) {
    s.d2.assign(std::size_t(N), 0.0);
    s.owner.assign(std::size_t(N), 0);
  }
  std::vector<std::int64_t> read(std::size_t(at::get_num_threads()) + 1, 0);
  at::parallel_for(0, N, 32768, [&](std::int64_t r0, std::int64_t r1) {
    nearer_rows(px, r0, r1, d, c, cc.data(), newest, prune, s, read[std::size_t(at::get_thread_num())]);
  });
  for (auto n : read) s.rows_read += n;
  s.centres.push_back(row);
}

// k-means++ over the rows of x: each next row drawn with probability weight x D^2 (D: distance to the nearest chosen
// row); the first with probability proportional to the weight (uniform without weights).
std::vector<std::int64_t> kmeanspp(const torch::Tensor& x, int k, const torch::Tensor& weights, at::Generator& gen,
                                   std::int64_t* rows_read = nullptr, bool prune = true) {
  const auto N = x.size(0);
  SeedingDistances s;
  add_centre(x,
             weights.defined() ? torch::multinomial(weights, 1, false, gen).item<std::int64_t>()
                               : torch::randint(N, {1}, gen).item<std::int64_t>(),
             s, prune);
  const auto d2 = torch::from_blob(s.d2.data(), {N}, torch::kFloat64);
  for (int c = 1; c < k; ++c) {
    const auto p = weights.defined() ? weights * d2 + 1e-300 : d2 + 1e-300;
    add_centre(x, torch::multinomial(p, 1, false, gen).item<std::int64_t>(), s, prune);
  }
  if (rows_read) *rows_read = s.rows_read;
  return s.centres;
}

// Rows [r0, r1) of row_minimum in one pass of 8 lanes (GCC vector extensions): each lane keeps its least value and
// the first column holding it (a strict <, so a later equal value does not replace it) and whether it met a NaN.
// The lanes' least values are then compared, equal ones by column; a row with a NaN takes its first NaN.
using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = std::int32_t __attribute__((vector_size(32)));

DMLBENCH_KERNEL void first_minimum_rows(const float* score, std::int64_t r0, std::int64_t r1, std::int64_t k,
                                        std::int64_t* at, float* best) {
  for (std::int64_t r = r0; r < r1; ++r) {
    const float* row = score + r * k;
    std::int64_t first = 0;
    float least = row[0];
    bool nan = least != least;
    std::int64_t j = 0;
    if (k >= 8) {
      Floats8 low;
      std::memcpy(&low, row, sizeof low);
      Ints8 column = {0, 1, 2, 3, 4, 5, 6, 7}, low_at = column;
      Ints8 seen_nan = low != low;
      for (j = 8; j + 8 <= k; j += 8) {
        Floats8 v;
        std::memcpy(&v, row + j, sizeof v);
        column += 8;
        const Ints8 lower = v < low;
        low = lower ? v : low;
        low_at = lower ? column : low_at;
        seen_nan |= v != v;
      }
      least = low[0];
      first = low_at[0];
      for (int l = 0; l < 8; ++l) {
        nan = nan || seen_nan[l] != 0;
        if (low[l] < least || (low[l] == least && low_at[l] < first)) {
          least = low[l];
          first = low_at[l];
        }
      }
    }
    for (; j < k; ++j) {  // the columns after the last full group of 8 (all of them below 8 columns)
      nan = nan || row[j] != row[j];
      if (row[j] < least) {
        least = row[j];
        first = j;
      }
    }
    if (nan)
      for (first = 0; row[first] == row[first];) ++first;
    at[r] = first;
    best[r] = row[first];
  }
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> row_minimum(const torch::Tensor& score) {
  if (score.dim() != 2 || score.size(1) < 1 || score.scalar_type() != torch::kFloat32 || !score.is_cpu())
    throw std::invalid_argument("row_minimum: a CPU float32 matrix with at least one column");
  const auto s = score.contiguous();
  const auto rows = s.size(0), k = s.size(1);
  auto best = torch::empty({rows}, torch::kFloat32);
  auto at = torch::empty({rows}, torch::kInt64);
  // on the calling thread: right after OpenBLAS's threaded GEMM its pool still spins on the other cores, and a
  // parallel region beside it took longer than the pass alone (bench/README, "Evaluation of the glyph proxy")
  first_minimum_rows(s.data_ptr<float>(), 0, rows, k, at.data_ptr<std::int64_t>(), best.data_ptr<float>());
  return {best, at};
}

namespace {

// For every row of x, the nearest of the rows c (least |c|^2 - 2 x.c, float32 GEMM in blocks, ties to the lower):
// its index, and (when wanted) the squared distance |x|^2 + that, clamped at 0.
torch::Tensor nearest_of(const torch::Tensor& x, const torch::Tensor& c, std::int64_t block_bytes,
                         torch::Tensor* squared = nullptr) {
  const auto N = x.size(0), k = c.size(0);
  const auto cn = c.pow(2).sum(1).unsqueeze(0);
  const auto ct = c.t().contiguous();
  const std::int64_t rows = std::max<std::int64_t>(1, block_bytes / (4 * std::max<std::int64_t>(k, 1)));
  auto out = torch::empty({N}, torch::kInt64);
  if (squared) *squared = torch::empty({N}, torch::kFloat64);
  for (std::int64_t s = 0; s < N; s += rows) {
    const auto e = std::min(N, s + rows);
    const auto xb = x.slice(0, s, e);
    const auto score = torch::addmm(cn, xb, ct, 1, -2);
    const auto [best, at] = row_minimum(score);
    out.slice(0, s, e).copy_(at);
    if (squared)
      squared->slice(0, s, e).copy_((best + xb.pow(2).sum(1)).clamp_min(0).to(torch::kFloat64));
  }
  return out;
}

// k-means|| (Bahmani et al. 2012, Algorithm 2): `rounds` passes each keep row r with probability min(1, l d2_r / sum
// d2), then k of the candidates by k-means++ weighted by the rows nearest each. Empty when it found fewer than k.
std::vector<std::int64_t> kmeans_parallel(const torch::Tensor& x, int k, const KMeansOptions& o, at::Generator& gen,
                                          std::int64_t& candidates_out) {
  const auto N = x.size(0);
  std::vector<std::int64_t> cand = {torch::randint(N, {1}, gen).item<std::int64_t>()};
  SeedingDistances first;
  add_centre(x, cand[0], first);
  auto d2 = torch::tensor(first.d2, torch::kFloat64);
  const double l = o.oversampling * double(k);
  for (int r = 0; r < o.parallel_rounds; ++r) {
    const double psi = d2.sum().item<double>();
    if (!(psi > 0)) break;
    const auto u = torch::rand({N}, gen, torch::TensorOptions().dtype(torch::kFloat64));
    const auto picked = u.lt(d2 * (l / psi)).nonzero().flatten();
    if (picked.size(0) == 0) continue;
    const auto* p = picked.data_ptr<std::int64_t>();
    cand.insert(cand.end(), p, p + picked.size(0));
    torch::Tensor to_new;
    nearest_of(x, x.index({picked}), o.block_bytes, &to_new);
    d2 = torch::minimum(d2, to_new);
  }
  candidates_out = std::int64_t(cand.size());
  if (std::int64_t(cand.size()) < k) return {};
  const auto idx = torch::tensor(cand, torch::kInt64);
  const auto c = x.index({idx}).contiguous();
  const auto w = torch::bincount(nearest_of(x, c, o.block_bytes), {}, c.size(0)).to(torch::kFloat64);
  const auto pick = kmeanspp(c, k, w, gen);
  std::vector<std::int64_t> out;
  for (auto i : pick) out.push_back(cand[std::size_t(i)]);
  return out;
}

// LibTorch's intra-op threads at one while it lives; OpenBLAS's pool keeps its own count. Lloyd's steps are GEMMs
// (OpenBLAS's threads) between small LibTorch operations: run on LibTorch's threads, each of those met OpenBLAS's
// pool still spinning after the GEMM, and 2 threads took longer than 1 (bench/README, "Evaluation of the glyph
// proxy"). The results do not depend on it: no operation here sums in an order that depends on the thread count.
class OneTorchThread {
 public:
  OneTorchThread() : was_(at::get_num_threads()) { at::set_num_threads(1); }
  ~OneTorchThread() { at::set_num_threads(was_); }
  OneTorchThread(const OneTorchThread&) = delete;
  OneTorchThread& operator=(const OneTorchThread&) = delete;

 private:
  int was_;
};

void check(const torch::Tensor& p, int k, const KMeansOptions& o) {
  if (p.dim() != 2 || p.size(0) < 1 || p.size(1) < 1) throw std::invalid_argument("kmeans: a non-empty rows x dims matrix");
  if (k < 1 || k > p.size(0)) throw std::invalid_argument("kmeans: k must lie in [1, N], got " + std::to_string(k));
  if (o.iterations < 1) throw std::invalid_argument("kmeans: at least one iteration");
  if (o.parallel_rounds < 1 || !(o.oversampling > 0) || o.block_bytes < 4)
    throw std::invalid_argument("kmeans: k-means|| needs rounds >= 1, oversampling > 0 and a block of >= 4 bytes");
}

}  // namespace

std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, const KMeansOptions& o,
                        KMeansStats* stats) {
  torch::NoGradGuard no_grad;
  check(points, k, o);
  const auto x = points.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  const auto N = x.size(0), d = x.size(1);
  auto gen = at::detail::createCPUGenerator(seed);
  KMeansStats st;
  auto t0 = Clock::now();
  std::vector<std::int64_t> seeds;
  if (double(N) * double(k) * double(d) > o.exact_seeding_budget) {
    seeds = kmeans_parallel(x, k, o, gen, st.candidates);
    std::ostringstream s;
    s << "k-means|| (" << o.parallel_rounds << " rounds, l = " << o.oversampling << " k)";
    st.seeding = s.str();
  }
  if (seeds.empty()) {
    seeds = kmeanspp(x, k, {}, gen, &st.rows_read, o.prune_seeding);
    st.seeding = "k-means++";
  }
  auto centres = x.index({torch::tensor(seeds, torch::kInt64)}).to(torch::kFloat64);
  st.seeding_seconds = since(t0);
  st.flops_per_iteration = 2.0 * double(N) * double(k) * double(d);
  t0 = Clock::now();
  const OneTorchThread lloyd_threads;
  torch::Tensor assign;
  // the rows in float64 for the centre sums: converted once where the copy takes at most 256 MiB, else per block
  const bool whole = N * d * 8 <= (std::int64_t(256) << 20);
  const auto x64 = whole ? x.to(torch::kFloat64) : torch::Tensor();
  for (int it = 0; it < o.iterations; ++it) {
    const auto a = nearest_of(x, centres.to(torch::kFloat32), o.block_bytes);
    ++st.iterations;
    if (assign.defined() && a.equal(assign)) {
      st.converged = true;
      break;
    }
    assign = a;
    // every centre the float64 mean of its rows (an empty cluster keeps its centre)
    const auto counts = torch::bincount(assign, {}, k);
    auto sums = torch::zeros_like(centres);
    const std::int64_t rows = std::max<std::int64_t>(1, o.block_bytes / (8 * d));
    for (std::int64_t s = 0; s < N; s += rows) {
      const auto e = std::min(N, s + rows);
      sums.index_add_(0, assign.slice(0, s, e), whole ? x64.slice(0, s, e) : x.slice(0, s, e).to(torch::kFloat64));
    }
    centres = torch::where(counts.gt(0).unsqueeze(1), sums / counts.clamp_min(1).unsqueeze(1).to(torch::kFloat64),
                           centres);
  }
  st.seconds_per_iteration = since(t0) / double(st.iterations);
  if (stats) *stats = st;
  return std::vector<int>(assign.data_ptr<std::int64_t>(), assign.data_ptr<std::int64_t>() + N);
}

std::vector<int> kmeans(const torch::Tensor& points, int k, std::uint64_t seed, int iterations, KMeansStats* stats) {
  KMeansOptions o;
  o.iterations = iterations;
  return kmeans(points, k, seed, o, stats);
}

}  // namespace dmlbench::experiments
