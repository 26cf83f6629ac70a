// k-means for NMI / NMI+: k-means++ or k-means|| seeding, Lloyd steps by float32 GEMM (kmeans.hpp).
#include "dmlbench/experiments/kmeans.hpp"

#include "dmlbench/experiments/blas_info.hpp"

#include "../models/cpu_kernel_support.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dmlbench::experiments {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// |a - b|^2 in float64 of two float32 rows: eight lanes summed in a fixed order, so the AVX2 and baseline builds give
// the same bits.
__attribute__((always_inline)) inline double squared_distance(const float* a, const float* b, std::int64_t d) {
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

using Floats8 = float __attribute__((vector_size(32)));
using Ints8 = std::int32_t __attribute__((vector_size(32)));

// Squares of a - b added into two 8-lane accumulators over dimensions [j0, j1) (j1 - j0 a multiple of 16).
__attribute__((always_inline)) inline void add_squares(const float* a, const float* b, std::int64_t j0, std::int64_t j1,
                                                       Floats8& s0, Floats8& s1) {
  for (auto j = j0; j < j1; j += 16) {
    Floats8 a0, b0, a1, b1;
    std::memcpy(&a0, a + j, sizeof a0);
    std::memcpy(&b0, b + j, sizeof b0);
    std::memcpy(&a1, a + j + 8, sizeof a1);
    std::memcpy(&b1, b + j + 8, sizeof b1);
    const Floats8 t0 = a0 - b0, t1 = a1 - b1;
    s0 += t0 * t0;
    s1 += t1 * t1;
  }
}

__attribute__((always_inline)) inline float lanes_sum(const Floats8& s0, const Floats8& s1) {
  const Floats8 s = s0 + s1;
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// |a - b|^2 in float32: a cheaper look at whether squared_distance can be below a value. Each rounded difference, its
// square and the sum of the d nonnegative squares (in any order) stay within gamma_{d+2} = (d + 2) u / (1 - (d + 2) u)
// (u = 2^-24) of the exact |a - b|^2, relatively (Higham, Sec 3.1).
__attribute__((always_inline)) inline float squared_distance32(const float* a, const float* b, std::int64_t d) {
  Floats8 s0 = {}, s1 = {};
  const auto whole = d - d % 16;
  add_squares(a, b, 0, whole, s0, s1);
  float s = lanes_sum(s0, s1);
  for (auto j = whole; j < d; ++j) {
    const float t = a[j] - b[j];
    s += t * t;
  }
  return s;
}

// The relative error of squared_distance against the exact |a - b|^2: each float64 difference of two float32 values
// and its square round once, and each of the 8 lanes sums at most d / 8 + 1 terms before 3 levels of pairwise sums
// (Higham, Sec 3.1: within gamma_n, n the longest chain of roundings), with a margin for gamma's denominator.
inline double squared_distance_error(std::int64_t d) { return double(d / 8 + 8) * 0x1p-53 * 1.01; }

// A float32 not below v (+inf for NaN or above float32's range: a threshold that allows no skip).
inline float float_above(double v) {
  if (!(v < 3e38)) return std::numeric_limits<float>::infinity();
  const float f = static_cast<float>(v);
  return double(f) >= v ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
}

// k-means++'s D^2 kept lazily, the same bits where a draw reads them. d2[r] is the least squared_distance from row r
// to the first seen[r] centres (every row has seen the first `applied`); a distance only falls as centres come, so a
// stale d2[r] bounds the current one from above. A draw refreshes (refresh_row) the rows whose stale bound could
// still win it; the centres since `applied` are brought to every row in one pass every few draws (apply_pending), a
// float32 GEMM whose scores, within a proven rounding bound, rule out the pairs that cannot lower d2. d2[r] is then
// the least of the same float64 values as a pass per centre over every row gives, so each draw sees the same D^2.
struct SeedingDistances {
  const float* x = nullptr;
  std::int64_t N = 0, d = 0;
  std::vector<double> d2;
  std::vector<std::int32_t> seen;
  std::vector<double> nx2;  // |x_r|^2 in float64, for apply_pending
  std::vector<std::int64_t> centres;  // rows
  std::int32_t applied = 0;
  double margin = 1;  // the rounding margins times this (KMeansOptions::margin_scale)
  std::atomic<std::int64_t> rows_read{0};  // float64 distances computed
};

// Every row against the newest centre (the first centre, or the pass per centre over every row).
void full_pass(SeedingDistances& s) {
  const auto newest = std::int32_t(s.centres.size()) - 1;
  const float* c = s.x + s.centres.back() * s.d;
  if (newest == 0) {
    s.d2.assign(std::size_t(s.N), kInf);
    s.seen.assign(std::size_t(s.N), 0);
  }
  at::parallel_for(0, s.N, 32768, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const double t = squared_distance(s.x + r * s.d, c, s.d);
      if (newest == 0 || t < s.d2[std::size_t(r)]) s.d2[std::size_t(r)] = t;
      s.seen[std::size_t(r)] = newest + 1;
    }
  });
  s.rows_read += s.N;
  s.applied = newest + 1;
}

// Row r against the centres it has not seen: a centre whose float32 distance (within gamma_{d+2} relatively, Higham
// Sec 3.1) already shows t >= d2 is passed over, the others give their float64 t. True where d2[r] fell.
bool refresh_row(SeedingDistances& s, std::int64_t r) {
  const auto now = std::int32_t(s.centres.size());
  auto& seen = s.seen[std::size_t(r)];
  if (seen >= now) return false;
  const double g = double(s.d + 2) * 0x1p-24,
               below = 1 - s.margin * (1 - (1 - g / (1 - g)) * (1 - squared_distance_error(s.d)));
  const float* xr = s.x + r * s.d;
  double& d2 = s.d2[std::size_t(r)];
  bool fell = false;
  std::int64_t read = 0;
  for (auto m = seen; m < now; ++m) {
    const float* c = s.x + s.centres[std::size_t(m)] * s.d;
    if (double(squared_distance32(xr, c, s.d)) * below > d2) continue;
    ++read;
    const double t = squared_distance(xr, c, s.d);
    if (t < d2) {
      d2 = t;
      fell = true;
    }
  }
  seen = now;
  s.rows_read += read;
  return fell;
}

// The centres since `applied` brought to every row that has not seen them. Their scores s_b = fl(|c_b|^2 - 2 x.c_b)
// come from a float32 GEMM (the rows in parts, one per thread, one OpenBLAS thread each) and lie within E(x) of
// |x - c_b|^2 - |x|^2 for any order of summation (the bound derived for Lloyd's steps below, with C the largest
// |c_b|). So |x - c_b|^2 >= s_b - E + |x|^2, and squared_distance gives at least that times 1 - its relative error:
// where s_b > d2 / (1 - that) + E - |x|^2 (plus a margin for the float64 sum), t >= d2 and the pair cannot lower d2.
// The other pairs give their float64 t. Rows or centres of norm^2 over 1e30 skip nothing.
void apply_pending(SeedingDistances& s, const torch::Tensor& x) {
  const auto now = std::int32_t(s.centres.size()), from = s.applied, B = now - from;
  if (B <= 0) return;
  const auto d = s.d;
  const double rel = s.margin * squared_distance_error(d), norm_rel = s.margin * double(d + 2) * 0x1p-53 * 1.01;
  if (s.nx2.empty()) {
    s.nx2.resize(std::size_t(s.N));
    at::parallel_for(0, s.N, 32768, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        double n = 0;
        for (std::int64_t j = 0; j < d; ++j) n += double(s.x[r * d + j]) * double(s.x[r * d + j]);
        s.nx2[std::size_t(r)] = n;
      }
    });
  }
  const auto c = x.index_select(0, torch::tensor(std::vector<std::int64_t>(s.centres.begin() + from, s.centres.end())));
  const auto cn = c.pow(2).sum(1).unsqueeze(0);  // as the bound assumes: float32, any order
  const auto ct = c.t().contiguous();
  double C2 = 0;
  for (std::int32_t b = 0; b < B; ++b) C2 = std::max(C2, s.nx2[std::size_t(s.centres[std::size_t(from + b)])]);
  C2 *= 1 + norm_rel;
  const double u = 0x1p-24, gam = double(d + 1) * u / (1 - double(d + 1) * u), eta = double(4 * d + 8) * 0x1p-126;
  const double C = std::sqrt(C2) * (1 + 1e-15);
  const bool bounded = C2 < 1e30;
  const SerialBlas serial_blas;
  at::parallel_for(0, s.N, 4096, [&](std::int64_t r0, std::int64_t r1) {
    const auto scores = torch::addmm(cn, x.slice(0, r0, r1), ct, 1, -2).contiguous();
    const float* ps = scores.data_ptr<float>();
    std::int64_t read = 0;
    for (auto r = r0; r < r1; ++r) {
      auto& seen = s.seen[std::size_t(r)];
      if (seen >= now) continue;
      double& d2 = s.d2[std::size_t(r)];
      const double nx = s.nx2[std::size_t(r)];
      const double E = bounded && nx < 1e30 ? s.margin * (gam * (2 + gam) * C2 + 2 * gam * std::sqrt(nx) * (1 + 1e-15) * C +
                                                          eta) * (1 + 1e-12)
                                            : kInf;
      auto threshold = [&] {
        if (!(E < kInf)) return std::numeric_limits<float>::infinity();
        const double nx_lo = nx * (1 - norm_rel);
        return float_above(d2 / (1 - rel) + E - nx_lo + s.margin * (1e-15 * (2 * d2 + E + nx) + 1e-300));
      };
      float T = threshold();
      const float* row = ps + (r - r0) * B;
      const float* xr = s.x + r * d;
      for (auto b = std::max(seen, from) - from; b < B; ++b) {
        if (row[b] > T) continue;
        ++read;
        const double t = squared_distance(xr, s.x + s.centres[std::size_t(from + b)] * d, d);
        if (t < d2) {
          d2 = t;
          T = threshold();
        }
      }
      seen = now;
    }
    s.rows_read += read;
  });
  s.applied = now;
}

// ---- k-means++'s draw: torch::multinomial(p, 1) computed where it can matter ----
//
// LibTorch 1.13's multinomial(p, 1, false) on the CPU checks p (finite, >= 0, a positive sum), draws q_i = -log(1 - u_i)
// for every entry i (exponential_: u_i = (random64() & (2^53 - 1)) 2^-53, random64() two outputs of the generator's
// mt19937, the first the high half) and returns the first index of the greatest p_i / q_i (argmax; a NaN counts as
// the greatest). A draw costs a logarithm per row; here the u_i come from a copy of the same mt19937 (and its state
// goes back into the generator), and q_i and p_i / q_i are computed only where the entry can win: -log(1 - u) >= u,
// so with glibc's log within an ulp p_i / q_i <= (p_i / u_i)(1 + 2^-50), and an entry whose bound lies below a value
// another entry reached is not the greatest. The same index and generator state as multinomial's (checked once per
// process against LibTorch, else LibTorch draws; and in test_kmeans.cpp).

inline std::uint32_t mt_twist(std::uint32_t u, std::uint32_t v) {
  return (((u & at::UMASK) | (v & at::LMASK)) >> 1) ^ ((0u - (v & 1)) & at::MATRIX_A);
}

// at::mt19937's next_state(), as indexed loops the compiler vectorises: the first N - M words from the old words
// after them, the next M - 1 from new words N - M before them, the last from the new first word
DMLBENCH_KERNEL void twist_state(std::uint32_t* p) {
  constexpr int N = at::MERSENNE_STATE_N, M = at::MERSENNE_STATE_M;
  for (int i = 0; i < N - M; ++i) p[i] = p[i + M] ^ mt_twist(p[i], p[i + 1]);
  for (int i = N - M; i < N - 1; ++i) p[i] = p[i + M - N] ^ mt_twist(p[i], p[i + 1]);
  p[N - 1] = p[M - 1] ^ mt_twist(p[N - 1], p[0]);
}

// at::mt19937's tempering of n state words into outputs
DMLBENCH_KERNEL void temper(const std::uint32_t* st, std::uint32_t* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t y = st[i];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= (y >> 18);
    out[i] = y;
  }
}

// at::mt19937 (ATen/core/MT19937RNGEngine.h) on its state: the same outputs, many at a time.
class Mt19937Block {
 public:
  explicit Mt19937Block(const at::mt19937_data_pod& s) : s_(s) {}
  const at::mt19937_data_pod& state() const { return s_; }

  // the next m outputs, as m calls of at::mt19937::operator() return them
  void fill(std::uint32_t* out, std::int64_t m) {
    while (m > 0) {
      // operator() decrements left_ and twists where it reaches 0, then returns state_[next_++]
      if (s_.left_ == 1) {
        twist();
        s_.left_ = at::MERSENNE_STATE_N + 1;
        s_.next_ = 0;
      }
      const std::int64_t take = std::min<std::int64_t>(m, s_.left_ - 1);
      temper(s_.state_.data() + s_.next_, out, take);
      s_.next_ += std::uint32_t(take);
      s_.left_ -= int(take);
      out += take;
      m -= take;
    }
  }

 private:
  void twist() { twist_state(s_.state_.data()); }
  at::mt19937_data_pod s_;
};

// Entries [i0, i0 + m) of a draw from their u (2 m generator outputs `bits`): the first greatest value so far in
// *best, its index in *at. An entry's value p / q is computed only where its bound p / u (times 1 + 2^-48) reaches
// *best. False where a p is not finite and positive. With `lazy`, d2 are its stale bounds: an entry whose bound from
// the stale p reaches *best is refreshed and tested again (a smaller d2 gives a smaller p, rounded monotonically, so
// an entry ruled out by its stale p is ruled out by its current one); every finite positive stale p has a finite
// positive current one, and a false answer makes the caller refresh every row and draw again.
DMLBENCH_KERNEL bool draw_chunk(const std::uint32_t* bits, const double* w, const double* d2, std::int64_t i0,
                                std::int64_t m, double* best, std::int64_t* at, SeedingDistances* lazy) {
  // A first look, in vector lanes, rules out where p (1 + 2^-48) < top0 u_lo: top0 the value reached before the chunk
  // (it only grows) and u_lo <= u the value of u's leading 21 bits (the first output's low 21), so that the right side
  // is at most the test's below and an entry it rules out is one the test rules out.
  constexpr std::int64_t most = 1024;
  std::uint8_t open[most];
  const double top0 = *best;
  int bad = 0;
  for (std::int64_t q0 = 0; q0 < m; q0 += most) {
    const auto n = std::min(most, m - q0);
    const std::uint32_t* b = bits + 2 * q0;
    const double* pd = d2 + i0 + q0;
    const double* pw = w ? w + i0 + q0 : nullptr;
    for (std::int64_t i = 0; i < n; ++i) {
      const double u_lo = double(std::int32_t(b[2 * i] & 0x1FFFFFu)) * 0x1p-21;
      const double p = (pw ? pw[i] * pd[i] : pd[i]) + 1e-300;
      bad |= int(!(p > 0)) | int(!(p < kInf));
      open[i] = std::uint8_t(!(p * (1 + 0x1p-48) < top0 * u_lo));
    }
    for (auto i = n; i < (n + 7) / 8 * 8; ++i) open[i] = 0;
    double top = *best;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i % 8 == 0) {  // eight entries ruled out at once, mostly
        std::uint64_t eight;
        std::memcpy(&eight, open + i, sizeof eight);
        if (eight == 0) {
          i += 7;
          continue;
        }
      }
      if (!open[i]) continue;
      const auto e = i0 + q0 + i;
      const std::uint64_t r = (std::uint64_t(b[2 * i]) << 32) | b[2 * i + 1];
      const double u = double(std::int64_t(r & ((std::uint64_t(1) << 53) - 1))) * 0x1p-53;
      // p as LibTorch's weights * d2 + 1e-300: two roundings (no contraction in this file)
      double p = (w ? w[e] * d2[e] : d2[e]) + 1e-300;
      if (p * (1 + 0x1p-48) < top * u) continue;
      if (lazy && refresh_row(*lazy, e)) {
        p = (w ? w[e] * d2[e] : d2[e]) + 1e-300;
        if (p * (1 + 0x1p-48) < top * u) continue;
      }
      const double v = p / (-1.0 * std::log(1.0 - u));  // exponential_: -1 / lambda * log(1 - u), lambda = 1
      if (v > top || (v != v && top == top)) {  // argmax: the first greatest, a NaN greater than all
        top = v;
        *at = e;
      }
    }
    *best = top;
  }
  return bad == 0;
}

// The index torch::multinomial(p, 1, false, gen) returns for p = w * d2 + 1e-300 (w null: d2 + 1e-300) over n
// entries, the generator advanced as it advances it; -1, the generator untouched, where a p is not finite and
// positive. A NaN value would stop nothing here (none arises from finite positive p), and ties keep the first index.
// With `lazy`, d2 is its stale D^2 (draw_chunk).
std::int64_t draw_index(const double* w, const double* d2, std::int64_t n, at::Generator& gen,
                        SeedingDistances* lazy = nullptr) {
  auto* g = at::check_generator<at::CPUGeneratorImpl>(gen);
  std::lock_guard<std::mutex> lock(gen.mutex());
  auto engine = g->engine();
  Mt19937Block mt(engine.data());
  constexpr std::int64_t chunk = 1024;
  std::uint32_t bits[2 * chunk];
  double best = -kInf;
  std::int64_t at = 0;
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const auto m = std::min(chunk, n - i0);
    mt.fill(bits, 2 * m);
    if (!draw_chunk(bits, w, d2, i0, m, &best, &at, lazy)) return -1;
  }
  engine.set_data(mt.state());
  g->set_engine(engine);
  return at;
}

// Whether draw_index gives this LibTorch's draws and generator states (once per process, on a few vectors).
bool multinomial_draw_matches() {
  static const bool matches = [] {
    try {
      auto a = at::detail::createCPUGenerator(20240601), b = at::detail::createCPUGenerator(20240601);
      auto values = at::detail::createCPUGenerator(7);
      for (std::int64_t n : {1, 2, 700, 1500, 3001}) {
        auto p = (torch::rand({n}, values, torch::TensorOptions().dtype(torch::kFloat64)).pow(4) + 1e-300).contiguous();
        if (n > 4) p.slice(0, 0, n / 2).fill_(1e-300);  // many equal entries
        const auto want = torch::multinomial(p, 1, false, a).item<std::int64_t>();
        const auto d2 = (p - 1e-300).contiguous();  // p = d2 + 1e-300 as the draws compute it
        if (!(d2 + 1e-300).equal(p) || draw_index(nullptr, d2.data_ptr<double>(), n, b) != want) return false;
      }
      const auto opts = torch::TensorOptions().dtype(torch::kFloat64);
      return torch::rand({8}, a, opts).equal(torch::rand({8}, b, opts));
    } catch (const std::exception&) {
      return false;
    }
  }();
  return matches;
}


// Centres brought to every row at once by apply_pending: a GEMM of this many columns; a draw refreshes a row against
// at most as many.
constexpr std::int32_t kPendingCentres = 64;

// k-means++ over the rows of x: each next row drawn with probability weight x D^2 (D: distance to the nearest chosen
// row); the first with probability proportional to the weight (uniform without weights). `lazy`: D^2 kept by
// SeedingDistances (the same draws); else, or with LibTorch's draws, a pass per centre over every row.
std::vector<std::int64_t> kmeanspp(const torch::Tensor& x, int k, const torch::Tensor& weights, at::Generator& gen,
                                   std::int64_t* rows_read = nullptr, bool lazy = true, bool fast_draws = true,
                                   double margin_scale = 1) {
  SeedingDistances s;
  s.margin = margin_scale;
  s.x = x.data_ptr<float>();
  s.N = x.size(0);
  s.d = x.size(1);
  s.centres.push_back(weights.defined() ? torch::multinomial(weights, 1, false, gen).item<std::int64_t>()
                                        : torch::randint(s.N, {1}, gen).item<std::int64_t>());
  full_pass(s);
  const auto d2 = torch::from_blob(s.d2.data(), {s.N}, torch::kFloat64);
  const bool fast = fast_draws && multinomial_draw_matches();
  const bool deferred = lazy && fast;  // LibTorch's draws read every D^2
  const auto w = weights.defined() ? weights.contiguous() : torch::Tensor();
  const double* pw = w.defined() ? w.data_ptr<double>() : nullptr;
  for (int c = 1; c < k; ++c) {
    std::int64_t next = fast ? draw_index(pw, s.d2.data(), s.N, gen, deferred ? &s : nullptr) : -1;
    if (next < 0 && deferred) {  // a stale p not finite and positive: every row brought up to date, drawn again
      apply_pending(s, x);
      next = draw_index(pw, s.d2.data(), s.N, gen);
    }
    // else LibTorch draws (and refuses what it refuses)
    if (next < 0)
      next = torch::multinomial(weights.defined() ? weights * d2 + 1e-300 : d2 + 1e-300, 1, false, gen).item<std::int64_t>();
    s.centres.push_back(next);
    if (!deferred)
      full_pass(s);
    else if (std::int32_t(s.centres.size()) - s.applied >= kPendingCentres)
      apply_pending(s, x);
  }
  if (rows_read) *rows_read = s.rows_read;
  return s.centres;
}

// Rows [r0, r1) of row_minimum in one pass of 8 lanes (GCC vector extensions): each lane keeps its least value and
// the first column holding it (a strict <, so a later equal value does not replace it) and whether it met a NaN.
// The lanes' least values are then compared, equal ones by column; a row with a NaN takes its first NaN.
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

std::int64_t multinomial_draw(const torch::Tensor& p, at::Generator& gen) {
  if (p.dim() == 1 && p.is_cpu() && p.scalar_type() == torch::kFloat64 && p.numel() > 0 && multinomial_draw_matches()) {
    // p as d2 + 1e-300 with d2 = p - 1e-300, where that gives p back bit for bit
    const auto d2 = (p - 1e-300).contiguous();
    if ((d2 + 1e-300).equal(p)) {
      const auto at = draw_index(nullptr, d2.data_ptr<double>(), d2.numel(), gen);
      if (at >= 0) return at;
    }
  }
  return torch::multinomial(p, 1, false, gen).item<std::int64_t>();
}

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

torch::Tensor nearest_rows(const torch::Tensor& x, const torch::Tensor& c, std::int64_t block_bytes,
                           torch::Tensor* squared = nullptr);

// k-means|| (Bahmani et al. 2012, Algorithm 2): `rounds` passes each keep row r with probability min(1, l d2_r / sum
// d2), then k of the candidates by k-means++ weighted by the rows nearest each. Empty when it found fewer than k.
std::vector<std::int64_t> kmeans_parallel(const torch::Tensor& x, int k, const KMeansOptions& o, at::Generator& gen,
                                          std::int64_t& candidates_out) {
  const auto N = x.size(0);
  std::vector<std::int64_t> cand = {torch::randint(N, {1}, gen).item<std::int64_t>()};
  SeedingDistances first;
  first.x = x.data_ptr<float>();
  first.N = N;
  first.d = x.size(1);
  first.centres = cand;
  full_pass(first);
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
    nearest_rows(x, x.index({picked}), o.block_bytes, &to_new);
    d2 = torch::minimum(d2, to_new);
  }
  candidates_out = std::int64_t(cand.size());
  if (std::int64_t(cand.size()) < k) return {};
  const auto idx = torch::tensor(cand, torch::kInt64);
  const auto c = x.index({idx}).contiguous();
  const auto w = torch::bincount(nearest_rows(x, c, o.block_bytes), {}, c.size(0)).to(torch::kFloat64);
  const auto pick = kmeanspp(c, k, w, gen, nullptr, o.prune_seeding, o.fast_draws, o.margin_scale);
  std::vector<std::int64_t> out;
  for (auto i : pick) out.push_back(cand[std::size_t(i)]);
  return out;
}

// Lloyd's plain steps run under OneTorchThread (blas_info.hpp): they are GEMMs (OpenBLAS's threads) between small
// LibTorch operations; run on LibTorch's threads, each of those met OpenBLAS's pool still spinning after the GEMM, and
// 2 threads took longer than 1 (bench/README, "Evaluation of the glyph proxy"). The results do not depend on it: no
// operation here sums in an order that depends on the thread count.

void check(const torch::Tensor& p, int k, const KMeansOptions& o) {
  if (p.dim() != 2 || p.size(0) < 1 || p.size(1) < 1) throw std::invalid_argument("kmeans: a non-empty rows x dims matrix");
  if (k < 1 || k > p.size(0)) throw std::invalid_argument("kmeans: k must lie in [1, N], got " + std::to_string(k));
  if (o.iterations < 1) throw std::invalid_argument("kmeans: at least one iteration");
  if (o.parallel_rounds < 1 || !(o.oversampling > 0) || o.block_bytes < 4)
    throw std::invalid_argument("kmeans: k-means|| needs rounds >= 1, oversampling > 0 and a block of >= 4 bytes");
  if (o.groups < 0 || o.bound_bytes < 4 || !(o.margin_scale >= 0))
    throw std::invalid_argument("kmeans: bounds need groups >= 0, bound_bytes >= 4 and margin_scale >= 0");
}


// ---- Lloyd's iterations with bounds (Yinyang k-means, Ding et al., ICML 2015) ----
//
// The plain loop assigns row x to the first column of least score s_j = fl(|c_j|^2 - 2 x.c_j), a float32 GEMM of the
// float32 centres c_j. In exact arithmetic s_j = S_j := |x - c_j|^2 - |x|^2; the rounding error is bounded for any
// order of summation, with or without FMA (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec 3.1,
// with gamma_n = n u / (1 - n u), u = 2^-24): |c|^2 is a sum of d rounded squares, |fl(|c|^2) - |c|^2| <=
// gamma_{d+1} |c|^2, and the GEMM adds fl(|c|^2) and the d products -2 x_i c_i (the factor -2 exact) in some order,
// within gamma_{d+1} (fl(|c|^2) + 2 |x| |c|) (Cauchy-Schwarz on sum |x_i c_i|). So
//   |s_j - S_j| <= E(x) := gamma_{d+1} (2 + gamma_{d+1}) C^2 + 2 gamma_{d+1} |x| C + eta,   C = max_j |c_j|,
// eta = (4 d + 8) 2^-126 covering products and sums that underflow (or are flushed to zero). Scores are never near
// float32 overflow here: an iteration whose |c|^2 or a row whose |x|^2 passes 1e30 skips and checks nothing.
//
// Skip rule. Each row keeps an upper bound u >= |x - c_a| on the distance to its centre a and, per group G of
// centres, a lower bound l_G <= min over c_j in G, j != a, of |x - c_j| (float64, rounded outward at every step). When
// the centres move by delta_j (the exact drift of the float32 centres, rounded up), u grows by delta_a and l_G shrinks
// by max over G of delta_j (triangle inequality). With l = min_G l_G, every other column j has
//   s_j - s_a >= (S_j - E) - (S_a + E) = |x - c_j|^2 - |x - c_a|^2 - 2 E >= l^2 - u^2 - 2 E,
// so where l^2 > u^2 + 2 E the plain loop's least score is s_a, alone: the row keeps a and is not scored.
//
// Rows that are scored. A GEMM's per-row results depend on the batch it ran in for some OpenBLAS kernels (place in
// the kernel's tile, the small-matrix path, the split between threads: tested in test_kmeans.cpp), so a score
// computed in another batch than the plain loop's block is not its score bit for bit. The rows to score go in batches
// of their own (split between the threads), against the centres in the groups' order (so that a group's least score
// is a pass over contiguous columns). Such a batch's scores s' lie within E of S too, so within 2 E of the plain
// loop's: where s'_j - s'_a > 4 E for every j != a (a the first least of s'), the plain loop's least is a. A row with
// a closer second is a near tie: exact scores of the columns within 4 E decide it where they can (decide_near_tie),
// else it is scored once more at its own place in a batch of its block's shape (rows block_bytes / (4 k) at a time
// from row 0, one OpenBLAS thread), which gives the plain loop's scores bit for bit, and those decide. New bounds come
// from the scores: u^2 <= |x|^2 + s_a + E, l_G^2 >= |x|^2 + min over G\{a} of s_j - E.
//
// The groups are Yinyang's: a few Lloyd steps on the first centres into t groups; they only decide how much is
// skipped, never the result. The bounds are kept against cumulative drifts (l_G + D_G at the refresh, read as
// (l_G + D_G) - D_G now), so that a skipped row costs reads only.

inline double up(double v) { return std::nextafter(v, kInf); }
inline double down(double v) { return std::nextafter(v, -kInf); }

// A float32 not above v (v >= 0 or NaN): 0 below 2^-100 (where float32 rounds in absolute terms), -inf for NaN (a
// bound that never allows a skip).
inline float float_below(double v) {
  if (v != v) return -std::numeric_limits<float>::infinity();
  if (!(v >= 0x1p-100)) return 0.0f;
  if (v > 2e38) return v == kInf ? std::numeric_limits<float>::infinity() : 1e38f;
  return static_cast<float>(v * (1 - 0x1p-22));  // rounding to float32 moves it by at most 2^-24 relative
}

// The least of double(a[g]) - drift[g] over g < t, four lanes at a time (no NaN reaches it: the bounds hold -inf
// instead and the drifts are finite where it is called).
using Doubles4 = double __attribute__((vector_size(32)));

DMLBENCH_KERNEL double least_moved_bound(const float* a, const double* drift, std::int64_t t) {
  Doubles4 low = {kInf, kInf, kInf, kInf};
  std::int64_t g = 0;
  for (; g + 4 <= t; g += 4) {
    const Doubles4 av = {double(a[g]), double(a[g + 1]), double(a[g + 2]), double(a[g + 3])};
    Doubles4 dv;
    std::memcpy(&dv, drift + g, sizeof dv);
    const Doubles4 v = av - dv;
    low = v < low ? v : low;
  }
  double m = std::min(std::min(low[0], low[1]), std::min(low[2], low[3]));
  for (; g < t; ++g) m = std::min(m, double(a[g]) - drift[g]);
  return m;
}

// The least of s[0, n): +inf for n = 0, NaN where one is NaN; 8 lanes at a time.
__attribute__((always_inline)) inline float least_in(const float* s, std::int64_t n) {
  float m = std::numeric_limits<float>::infinity();
  bool nan = false;
  std::int64_t i = 0;
  if (n >= 8) {
    Floats8 low;
    std::memcpy(&low, s, sizeof low);
    Ints8 seen = low != low;
    for (i = 8; i + 8 <= n; i += 8) {
      Floats8 v;
      std::memcpy(&v, s + i, sizeof v);
      low = v < low ? v : low;
      seen |= v != v;
    }
    for (int l = 0; l < 8; ++l) {
      m = low[l] < m ? low[l] : m;
      nan = nan || seen[l] != 0;
    }
  }
  for (; i < n; ++i) {
    m = s[i] < m ? s[i] : m;
    nan = nan || s[i] != s[i];
  }
  return nan ? std::numeric_limits<float>::quiet_NaN() : m;
}

DMLBENCH_KERNEL float least_of(const float* s, std::int64_t n) { return least_in(s, n); }

// least[g] = the least of s over [start[g], start[g + 1]) for g < t
DMLBENCH_KERNEL void least_per_group(const float* s, const std::int64_t* start, std::int64_t t, float* least) {
  for (std::int64_t g = 0; g < t; ++g) least[g] = least_in(s + start[g], start[g + 1] - start[g]);
}

// T threads that run f(0) .. f(T - 1) together: f(0) on the caller, the others on threads started once. The first
// exception is rethrown by run() after every f has returned.
class Workers {
 public:
  explicit Workers(int threads) : n_(std::max(1, threads)) {
    for (int t = 1; t < n_; ++t) threads_.emplace_back([this, t] { loop(t); });
  }
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& th : threads_) th.join();
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  int size() const { return n_; }

  void run(const std::function<void(int)>& f) {
    if (n_ == 1) {
      f(0);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = &f;
      pending_ = n_ - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    try {
      f(0);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      if (!error_) error_ = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      try {
        (*job)(t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  int n_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

// [begin, end) of part t of n equal parts of [0, total)
inline std::pair<std::int64_t, std::int64_t> part_of(std::int64_t total, int t, int n) {
  return {total * t / n, total * (t + 1) / n};
}

// Yinyang's groups: 5 Lloyd steps from t of the centres (evenly spaced in their order, which the seeding drew at
// random) over the k float32 centres. Any grouping gives the same clustering; a good one skips more rows.
std::vector<std::int32_t> group_centres(const torch::Tensor& cf, std::int64_t t) {
  const auto k = cf.size(0);
  std::vector<std::int32_t> of(std::size_t(k), 0);
  if (t <= 1) return of;
  auto g = cf.index_select(0, torch::arange(t, torch::kInt64).mul(k).div(t, "floor")).clone();
  torch::Tensor at;
  for (int it = 0; it < 5; ++it) {
    at = std::get<1>(torch::addmm(g.pow(2).sum(1).unsqueeze(0), cf, g.t(), 1, -2).min(1));
    const auto counts = torch::bincount(at, {}, t).to(torch::kFloat32).unsqueeze(1);
    const auto sums = torch::zeros_like(g).index_add_(0, at, cf);
    g = torch::where(counts.gt(0), sums / counts.clamp_min(1), g);
  }
  const auto* p = at.data_ptr<std::int64_t>();
  for (std::int64_t j = 0; j < k; ++j) of[std::size_t(j)] = std::int32_t(p[j]);
  return of;
}

// nearest_of's results bit for bit (indices and squared distances), from blocks of more rows (so that each block's
// GEMM packs the candidates for more rows: nearest_of's blocks are block_bytes / (4 m) rows, 43 for m = 97,000) split
// between the caller's threads, one OpenBLAS thread each. Where a probe does not find these blocks giving the scores
// of nearest_of's, nearest_of itself. The probe: nearest_of's first block and its last, shorter one, computed as it
// computes them, against the same rows placed in reverse in a block of the larger shape (every block is padded to
// it), all m columns and the squared distances compared; a GEMM's result for one element depends on its row and
// column, the shapes, the places and the threads only, so where they agree the larger blocks give nearest_of's bits.
torch::Tensor nearest_rows(const torch::Tensor& x, const torch::Tensor& c, std::int64_t block_bytes,
                           torch::Tensor* squared) {
  const auto N = x.size(0), m = std::max<std::int64_t>(c.size(0), 1), d = x.size(1);
  const int T = at::get_num_threads();
  const std::int64_t R0 = std::max<std::int64_t>(1, block_bytes / (4 * m));
  const std::int64_t R1 = std::min(N, std::max(R0, (std::int64_t(96) << 20) / (4 * m)));  // 96 MiB of scores a thread
  if (N <= R0 || (R1 < 4 * R0 && T == 1)) return nearest_of(x, c, block_bytes, squared);
  const auto cn = c.pow(2).sum(1).unsqueeze(0);  // as nearest_of computes them
  const auto ct = c.t().contiguous();
  auto distances = [](const torch::Tensor& best, const torch::Tensor& rows) {
    return (best + rows.pow(2).sum(1)).clamp_min(0).to(torch::kFloat64);
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> probes = {{0, R0}};
  if (N % R0 != 0) probes.push_back({N - N % R0, N});
  std::vector<torch::Tensor> want, want_squared;
  for (const auto& [s0, s1] : probes) {  // nearest_of's blocks, its threads
    const auto rows = x.slice(0, s0, s1);
    want.push_back(torch::addmm(cn, rows, ct, 1, -2));
    want_squared.push_back(distances(std::get<0>(row_minimum(want.back())), rows));
  }
  const OneTorchThread one_torch_thread;
  const SerialBlas serial_blas;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto n = probes[i].second - probes[i].first;
    auto batch = x.slice(0, 0, R1).clone();
    batch.slice(0, 0, n).copy_(x.slice(0, probes[i].first, probes[i].second).flip(0));
    const auto got = torch::addmm(cn, batch, ct, 1, -2);
    const auto got_squared = distances(std::get<0>(row_minimum(got)), batch);
    if (!got.slice(0, 0, n).flip(0).equal(want[i]) || !got_squared.slice(0, 0, n).flip(0).equal(want_squared[i]))
      return nearest_of(x, c, block_bytes, squared);
  }
  auto out = torch::empty({N}, torch::kInt64);
  if (squared) *squared = torch::empty({N}, torch::kFloat64);
  const auto blocks = (N + R1 - 1) / R1;
  std::atomic<std::int64_t> next{0};
  Workers workers(T);
  workers.run([&](int) {
    torch::NoGradGuard no_grad;
    auto batch = torch::empty({R1, d}, torch::kFloat32);
    auto score = torch::empty({R1, m}, torch::kFloat32);
    std::vector<std::int64_t> at(static_cast<std::size_t>(R1));
    auto best = torch::empty({R1}, torch::kFloat32);
    for (auto b = next++; b < blocks; b = next++) {
      const auto s0 = b * R1, n = std::min(N, s0 + R1) - s0;
      batch.slice(0, 0, n).copy_(x.slice(0, s0, s0 + n));
      if (n < R1) batch.slice(0, n, R1).copy_(x.slice(0, 0, R1 - n));  // the shape of every block
      torch::addmm_out(score, cn, batch, ct, 1, -2);
      first_minimum_rows(score.data_ptr<float>(), 0, R1, m, at.data(), best.data_ptr<float>());
      std::memcpy(out.data_ptr<std::int64_t>() + s0, at.data(), sizeof(std::int64_t) * std::size_t(n));
      if (squared) squared->slice(0, s0, s0 + n).copy_(distances(best, batch).slice(0, 0, n));
    }
  });
  return out;
}

class BoundedLloyd {
 public:
  BoundedLloyd(const torch::Tensor& x, int k, const KMeansOptions& o, int threads)
      : x_(x), px_(x.data_ptr<float>()), N_(x.size(0)), d_(x.size(1)), k_(k), o_(o), workers_(threads) {
    R_ = std::max<std::int64_t>(1, o.block_bytes / (4 * std::max<std::int64_t>(k, 1)));
    blocks_ = (N_ + R_ - 1) / R_;
    const double g = double(d_ + 1) * 0x1p-24;
    gamma_ = g / (1 - g) * (1 + 0x1p-40);
    usable_ = g < 0.01;  // d below about 1.6e5: the bound is meaningful
    t_ = o.groups > 0 ? o.groups : std::max(1, k / 10);
    t_ = std::min<std::int64_t>(t_, k);
    t_ = std::max<std::int64_t>(1, std::min<std::int64_t>(t_, o.bound_bytes / (4 * N_)));
    // batches of B rows: at least 4e6 multiply-adds each (below about 1e6 OpenBLAS takes its small-matrix path, which
    // rounds otherwise than its blocks), at most a block
    const auto enough = (std::int64_t(4000000) + k_ * d_ - 1) / (k_ * d_);
    batch_rows_ = std::min({N_, R_, std::max<std::int64_t>(512, enough)});
    row_norms();
  }

  // Lloyd's loop from the float64 centres; the assignment of the last iteration
  std::vector<int> run(torch::Tensor& centres, KMeansStats& st) {
    st.groups = int(t_);
    assign_.assign(std::size_t(N_), 0);
    std::vector<std::int32_t> previous;
    torch::Tensor before;  // the float32 centres of the previous iteration
    for (int it = 0; it < o_.iterations; ++it) {
      // as the plain loop computes them (LibTorch on one thread)
      cf_ = centres.to(torch::kFloat32).contiguous();
      cn_ = cf_.pow(2).sum(1).unsqueeze(0);
      ct_ = cf_.t().contiguous();
      if (it == 0) start();
      else drift(before);
      before = cf_;
      // the same centres and |c|^2 in the groups' order, for the batches
      cn_grouped_ = cn_.index_select(1, order_).contiguous();
      ct_grouped_ = cf_.index_select(0, order_).t().contiguous();
      error_coefficients();
      previous = assign_;
      if (it == 0) {
        allocate();
        same_bits_ = o_.trust_same_bits && o_.margin_scale == 1 && same_bits_as_blocks();
        st.same_bits = same_bits_;
      }
      assignment(it == 0, st);
      ++st.iterations;
      if (it > 0 && assign_ == previous) {
        st.converged = true;
        break;
      }
      update(centres);
    }
    return std::vector<int>(assign_.begin(), assign_.end());
  }

 private:
  // |x|^2 of every row bounded both ways, and |x| from above (float64 sums of exact float32 squares: relative error
  // below (d + 1) 2^-53, doubled)
  void row_norms() {
    x2_hi_.resize(std::size_t(N_));
    x2_lo_.resize(std::size_t(N_));
    norm_hi_.resize(std::size_t(N_));
    row_ok_.resize(std::size_t(N_));
    const double rel = double(d_ + 1) * 0x1p-52;
    workers_.run([&](int t) {
      const auto [r0, r1] = part_of(N_, t, workers_.size());
      for (auto r = r0; r < r1; ++r) {
        const float* row = px_ + r * d_;
        double s = 0;
        for (std::int64_t i = 0; i < d_; ++i) s += double(row[i]) * double(row[i]);
        const auto i = std::size_t(r);
        x2_hi_[i] = up(s * (1 + rel));
        x2_lo_[i] = down(s * (1 - rel));
        norm_hi_[i] = up(std::sqrt(x2_hi_[i]));
        row_ok_[i] = x2_hi_[i] < 1e30;  // false for inf and NaN too
      }
    });
  }

  // the first iteration: the groups (the centres in their order: group by group, by index within one) and zero drifts
  void start() {
    group_of_ = group_centres(cf_, t_);
    group_start_.assign(std::size_t(t_) + 1, 0);
    for (auto g : group_of_) ++group_start_[std::size_t(g) + 1];
    for (std::int64_t g = 0; g < t_; ++g) group_start_[std::size_t(g + 1)] += group_start_[std::size_t(g)];
    std::vector<std::int64_t> order(static_cast<std::size_t>(k_));
    place_of_.resize(std::size_t(k_));
    auto fill = group_start_;
    for (std::int64_t j = 0; j < k_; ++j) {
      const auto q = fill[std::size_t(group_of_[std::size_t(j)])]++;
      order[std::size_t(q)] = j;
      place_of_[std::size_t(j)] = q;
    }
    order_ = torch::tensor(order, torch::kInt64);
    centre_of_ = std::move(order);
    centre_drift_.assign(std::size_t(k_), 0.0);
    group_drift_.assign(std::size_t(t_), 0.0);
    all_drift_ = 0;
    upper_.assign(std::size_t(N_), kInf);
    lower_min_.assign(std::size_t(N_), -kInf);
    lower_.assign(std::size_t(N_ * t_), -std::numeric_limits<float>::infinity());
  }

  // the drift of every float32 centre since the last iteration, rounded up, added to the cumulative drifts
  void drift(const torch::Tensor& before) {
    const float* now = cf_.data_ptr<float>();
    const float* was = before.data_ptr<float>();
    const double rel = double(d_ + 2) * 0x1p-52;
    std::vector<double> most(std::size_t(t_), 0.0);
    double all = 0;
    for (std::int64_t j = 0; j < k_; ++j) {
      double s = 0;
      for (std::int64_t i = 0; i < d_; ++i) {
        const double t = double(now[j * d_ + i]) - double(was[j * d_ + i]);
        s += t * t;
      }
      const double v = s == 0 ? 0.0 : up(std::sqrt(up(s * (1 + rel))));
      auto& c = centre_drift_[std::size_t(j)];
      if (v != 0) c = up(c + v);
      auto& m = most[std::size_t(group_of_[std::size_t(j)])];
      m = v > m || v != v ? v : m;
      all = v > all || v != v ? v : all;
    }
    for (std::int64_t g = 0; g < t_; ++g)
      if (most[std::size_t(g)] != 0) group_drift_[std::size_t(g)] = up(group_drift_[std::size_t(g)] + most[std::size_t(g)]);
    if (all != 0) all_drift_ = up(all_drift_ + all);
  }

  // E(x) = alpha + beta |x| for this iteration's centres; whether bounds may skip rows at all
  void error_coefficients() {
    const float* c = cf_.data_ptr<float>();
    const double rel = double(d_ + 1) * 0x1p-52;
    double c2 = 0;
    for (std::int64_t j = 0; j < k_; ++j) {
      double s = 0;
      for (std::int64_t i = 0; i < d_; ++i) s += double(c[j * d_ + i]) * double(c[j * d_ + i]);
      s = up(s * (1 + rel));
      c2 = s > c2 || s != s ? s : c2;
    }
    const double c1 = up(std::sqrt(c2));
    const double eta = double(4 * d_ + 8) * 0x1p-126;
    alpha_ = (gamma_ * (2 + gamma_) * up(c1 * c1) + eta) * (1 + 0x1p-40) * o_.margin_scale;
    beta_ = 2 * gamma_ * c1 * (1 + 0x1p-40) * o_.margin_scale;
    bool finite = std::isfinite(all_drift_);
    for (auto v : group_drift_) finite = finite && std::isfinite(v);
    const float* p = cn_.data_ptr<float>();
    for (std::int64_t j = 0; j < k_; ++j) finite = finite && std::isfinite(p[j]);
    skip_ok_ = usable_ && finite && c2 < 1e30;
  }

  double error_of(std::size_t r) const { return (alpha_ + beta_ * norm_hi_[r]) * (1 + 0x1p-50); }

  // whether row r keeps its centre without being scored (the skip rule above)
  bool skippable(std::int64_t r) const {
    const auto i = std::size_t(r);
    if (!row_ok_[i]) return false;
    const double u = (upper_[i] + centre_drift_[std::size_t(assign_[i])]) * (1 + 0x1p-51);
    const double rhs = (u * u + 2 * error_of(i)) * (1 + 0x1p-50);
    if (!(rhs < kInf)) return false;
    const double l = lower_min_[i] - all_drift_;
    if (l > 0 && l * l * (1 - 0x1p-48) > rhs) return true;
    const double m = least_moved_bound(lower_.data() + r * t_, group_drift_.data(), t_);
    return m > 0 && m * m * (1 - 0x1p-48) > rhs;
  }

  // Row r's new bounds from the least score of each group but a's (`least`, t floats; +inf for a group without
  // another centre) and s_a, at the cumulative drifts of now. Returns the gap from s_a to the next least score (NaN
  // where a score is NaN, or the row is out of range), which says whether another batch's scores decide as the plain
  // loop's block would.
  double bound_row(std::int64_t r, std::int64_t a, float sa, const float* least) {
    const auto i = std::size_t(r);
    float* lo = lower_.data() + r * t_;
    if (sa != sa || !row_ok_[i]) {  // a NaN score (the first least of a row holding one) or a row out of range
      upper_[i] = kInf;
      lower_min_[i] = -kInf;
      std::fill(lo, lo + t_, -std::numeric_limits<float>::infinity());
      return std::numeric_limits<double>::quiet_NaN();
    }
    const double e = error_of(i);
    const double x2lo = x2_lo_[i];
    double second = kInf, lmin = kInf;
    for (std::int64_t g = 0; g < t_; ++g) {
      const float m = least[g];
      second = std::min(second, double(m));
      double l = kInf;
      if (m != std::numeric_limits<float>::infinity()) {
        // |x - c_j|^2 >= |x|^2 + s_j - E: two float64 roundings, each within 2^-53 of its own result, then sqrt
        const double t1 = x2lo + double(m), t2 = t1 - e;
        const double r2 = t2 - 0x1p-50 * (std::fabs(t1) + std::fabs(t2));
        l = r2 > 0 ? std::sqrt(r2) * (1 - 0x1p-51) : 0.0;
      }
      lmin = std::min(lmin, l);
      lo[g] = float_below((l + group_drift_[std::size_t(g)]) * (1 - 0x1p-51));
    }
    lower_min_[i] = (lmin + all_drift_) * (1 - 0x1p-51);
    const double u = up(std::sqrt(up(up(x2_hi_[i] + double(sa)) + e)));
    upper_[i] = up(u - centre_drift_[std::size_t(a)]);
    return second - double(sa);
  }

  // the least score of each group but a's, from a row of scores in the groups' order (a at place pa)
  void least_grouped(const float* s, std::int64_t pa, float* least) const {
    least_per_group(s, group_start_.data(), t_, least);
    const auto ga = std::size_t(group_of_[std::size_t(centre_of_[std::size_t(pa)])]);
    const float left = least_of(s + group_start_[ga], pa - group_start_[ga]);
    const float right = least_of(s + pa + 1, group_start_[ga + 1] - pa - 1);
    least[ga] = std::min(left, right);
  }

  // the same from a row of scores in the centres' order (a: the centre)
  void least_ordered(const float* s, std::int64_t a, float* least) const {
    std::fill(least, least + t_, std::numeric_limits<float>::infinity());
    for (std::int64_t j = 0; j < k_; ++j) {
      float& m = least[group_of_[std::size_t(j)]];
      m = j != a && s[j] < m ? s[j] : m;
    }
  }

  // Where a batch's scores leave a near tie (s_a + 4 E above another score): the plain loop's least column decided
  // from exact scores, or -1 where they do not decide it. Every column j the plain loop could pick has
  // s_j <= min s + 4 E (else its score t_j > min s + 2 E >= t of the best). For those, S_j = |c_j|^2 - 2 x.c_j in
  // float64 (exact products of floats; the sums within (d + 2) 2^-52 (|c_j|^2 + 2 sum |x_i c_ji|)) and the plain
  // loop's rounding bound per column, E_j = gamma_{d+1} ((2 + gamma_{d+1}) |c_j|^2 + 2 sum_i |x_i c_ji|) + eta
  // (Higham's bound with the terms' own sizes): a* of least S_j is the plain loop's pick where every other S_j
  // exceeds S_a* by more than both columns' bounds. `s`: the row's scores in the groups' order.
  std::int64_t decide_near_tie(std::int64_t r, const float* s, float smin) const {
    const double window = 4 * error_of(std::size_t(r)) * (1 + 0x1p-40);
    const float* xr = px_ + r * d_;
    const float* c = cf_.data_ptr<float>();
    const double rel = double(d_ + 2) * 0x1p-52;
    const double eta = double(4 * d_ + 8) * 0x1p-126;
    struct Near {
      std::int64_t j;
      double exact, bound;  // S_j, and how far the plain loop's score may lie from it (plus S_j's own error)
    };
    std::vector<Near> near;
    for (std::int64_t q = 0; q < k_; ++q) {
      if (!(double(s[q]) - double(smin) <= window)) continue;
      if (near.size() == 64) return -1;
      const auto j = centre_of_[std::size_t(q)];
      const float* cj = c + j * d_;
      double c2 = 0, dot = 0, dot_abs = 0;
      for (std::int64_t i = 0; i < d_; ++i) {
        c2 += double(cj[i]) * double(cj[i]);
        const double p = double(xr[i]) * double(cj[i]);
        dot += p;
        dot_abs += std::fabs(p);
      }
      const double size = c2 + 2 * dot_abs;
      const double bound = (gamma_ * ((2 + gamma_) * c2 + 2 * dot_abs) * o_.margin_scale + eta * o_.margin_scale +
                            rel * size) * (1 + 0x1p-40);
      near.push_back({j, c2 - 2 * dot, bound});
    }
    if (near.empty()) return -1;
    std::size_t best = 0;
    for (std::size_t q = 1; q < near.size(); ++q)
      if (near[q].exact < near[best].exact) best = q;
    for (std::size_t q = 0; q < near.size(); ++q)
      if (q != best && !(near[q].exact - near[best].exact > (near[q].bound + near[best].bound) * (1 + 0x1p-40)))
        return -1;
    return near[best].j;
  }

  struct Item {
    enum Kind { block, rows, places } kind;
    std::int64_t index;       // block: that block of the plain loop, whole; places: the batch places_[index]
    std::int64_t begin, end;  // rows: rows todo_[begin, end)
  };

  // Per-thread buffers of one batch: its rows, scores, least columns and values.
  struct Scratch {
    torch::Tensor rows, scores;
    std::vector<std::int64_t> at;
    std::vector<float> best, least;
    std::vector<std::int64_t> replay;  // rows with a near tie the exact scores did not decide
    std::int64_t scored = 0;
  };

  // scores of n rows (`rows`: n x d) into s.scores, against the centres in their order (as the plain loop's GEMM) or
  // in the groups' order, and their first least
  const float* score(Scratch& s, const torch::Tensor& rows, std::int64_t n, bool grouped) {
    auto out = s.scores.slice(0, 0, n);
    torch::addmm_out(out, grouped ? cn_grouped_ : cn_, rows, grouped ? ct_grouped_ : ct_, 1, -2);
    if (!grouped) first_minimum_rows(out.data_ptr<float>(), 0, n, k_, s.at.data(), s.best.data());
    s.scored += n;
    return out.data_ptr<float>();
  }

  // a block of the plain loop (the last, shorter one, or the only one), as it computes it
  void whole_block(Scratch& s, std::int64_t b) {
    const auto r0 = b * R_, r1 = std::min(N_, r0 + R_);
    const float* sc = score(s, x_.slice(0, r0, r1), r1 - r0, false);
    for (auto r = r0; r < r1; ++r) {
      const auto a = s.at[std::size_t(r - r0)];
      assign_[std::size_t(r)] = std::int32_t(a);
      least_ordered(sc + (r - r0) * k_, a, s.least.data());
      bound_row(r, a, s.best[std::size_t(r - r0)], s.least.data());
    }
  }

  // Rows of near ties scored as the plain loop scores them: each at its place in its block, in a batch of R rows
  // whose other places hold the rows of the block of its first row. A GEMM's result for row i, column j depends on
  // the values of row i and column j, the shapes, the thread count and the place (i, j) only (BLAS kernels do not
  // branch on the values of other rows; tested in test_kmeans.cpp), so each gets its block's score bit for bit.
  void placed_batch(Scratch& s, const std::vector<std::pair<std::int64_t, std::int64_t>>& placed) {
    const auto b = placed.front().second / R_;
    float* dst = s.rows.data_ptr<float>();
    std::memcpy(dst, px_ + b * R_ * d_, sizeof(float) * std::size_t(R_ * d_));
    for (const auto& [place, r] : placed)
      std::memcpy(dst + place * d_, px_ + r * d_, sizeof(float) * std::size_t(d_));
    const float* sc = score(s, s.rows, R_, false);
    for (const auto& [place, r] : placed) {
      const auto a = s.at[std::size_t(place)];
      assign_[std::size_t(r)] = std::int32_t(a);
      least_ordered(sc + place * k_, a, s.least.data());
      bound_row(r, a, s.best[std::size_t(place)], s.least.data());
    }
  }

  // The first place of the least score of a row in the groups' order, from its groups' least scores (a NaN group
  // least: the first NaN place, as row_minimum).
  std::int64_t first_least_place(const float* s, const float* least) const {
    std::int64_t g = 0;
    for (std::int64_t h = 1; h < t_; ++h)
      if (least[h] != least[h] ? least[g] == least[g] : least[h] < least[g]) g = h;
    if (least[g] != least[g]) {
      for (std::int64_t h = 0; h < t_; ++h)
        if (least[h] != least[h]) {
          g = h;
          break;
        }
      for (auto q = group_start_[std::size_t(g)]; q < group_start_[std::size_t(g + 1)]; ++q)
        if (s[q] != s[q]) return q;
    }
    for (auto q = group_start_[std::size_t(g)]; q < group_start_[std::size_t(g + 1)]; ++q)
      if (s[q] == least[g]) return q;
    return group_start_[std::size_t(g)];
  }

  // The plain loop's pick from its own scores laid out in the groups' order (pa: the first least place there): the
  // least value, the lowest centre among equal ones; the lowest centre holding a NaN where the row holds one (as
  // row_minimum). `least`: the least score of every group.
  std::int64_t plain_pick(const float* s, std::int64_t pa, const float* least) const {
    const float v = s[pa];
    std::int64_t best = centre_of_[std::size_t(pa)];
    if (v != v) {
      for (std::int64_t q = 0; q < k_; ++q)
        if (s[q] != s[q]) best = std::min(best, centre_of_[std::size_t(q)]);
      return best;
    }
    for (std::int64_t g = 0; g < t_; ++g) {
      if (!(least[g] == v)) continue;
      for (auto q = group_start_[std::size_t(g)]; q < group_start_[std::size_t(g + 1)]; ++q)
        if (s[q] == v) best = std::min(best, centre_of_[std::size_t(q)]);
    }
    return best;
  }

  // Whether this BLAS gives each row's scores in a batch (B rows, the centres in the groups' order) bit for bit as the
  // plain loop's blocks do, compared on the rows of the first whole block and of a shorter last block, each block in
  // two arrangements (as it lies and rotated by a third), each against batches holding its rows in reverse: every
  // place of every shape is compared on two rows and all k columns. A GEMM's result for one element depends on its
  // row and column, the shapes, the places and the threads only (BLAS kernels do not branch on the values of other
  // elements), so where this holds a batch's scores are the plain loop's for any rows, and its pick is the plain
  // loop's pick. Where it does not (some OpenBLAS kernels round by place in the tile or by batch size), near ties are
  // decided by exact scores or by the row's own place in a batch of its block's shape.
  bool same_bits_as_blocks() {
    struct Task {
      std::int64_t first, rows, shift;
    };
    std::vector<Task> tasks;
    for (std::int64_t b : {std::int64_t(0), blocks_ - 1}) {
      const auto r0 = b * R_, n = std::min(N_, r0 + R_) - r0;
      if (b > 0 && n == R_) break;  // the last block is whole: the first one stands for it
      for (std::int64_t shift : {std::int64_t(0), 1 + n / 3}) tasks.push_back({r0, n, shift});
      if (blocks_ == 1) break;
    }
    std::atomic<bool> same{true};
    std::atomic<std::size_t> next{0};
    workers_.run([&](int t) {
      torch::NoGradGuard no_grad;
      auto& s = scratch_[std::size_t(t)];
      auto rows = torch::empty({R_, d_}, torch::kFloat32);
      auto batch = torch::empty({batch_rows_, d_}, torch::kFloat32);
      auto batch_scores = torch::empty({batch_rows_, k_}, torch::kFloat32);
      for (auto i = next++; i < tasks.size() && same; i = next++) {
        const auto [first, n, shift] = tasks[i];
        auto row_of = [&](std::int64_t p) { return first + (p + shift) % n; };  // the row at place p of the block
        float* dst = rows.data_ptr<float>();
        for (std::int64_t p = 0; p < n; ++p)
          std::memcpy(dst + p * d_, px_ + row_of(p) * d_, sizeof(float) * std::size_t(d_));
        auto plain = s.scores.slice(0, 0, n);
        torch::addmm_out(plain, cn_, rows.slice(0, 0, n), ct_, 1, -2);
        const float* want = plain.data_ptr<float>();
        for (std::int64_t b0 = 0; b0 < n && same; b0 += batch_rows_) {
          const auto m = std::min(batch_rows_, n - b0);
          float* bd = batch.data_ptr<float>();
          for (std::int64_t q = 0; q < batch_rows_; ++q)  // block place n - 1 - (b0 + q) at batch place q
            std::memcpy(bd + q * d_, dst + (n - 1 - (b0 + (q < m ? q : 0))) * d_, sizeof(float) * std::size_t(d_));
          torch::addmm_out(batch_scores, cn_grouped_, batch, ct_grouped_, 1, -2);
          const float* got = batch_scores.data_ptr<float>();
          for (std::int64_t q = 0; q < m && same; ++q) {
            const float* w = want + (n - 1 - (b0 + q)) * k_;
            const float* g = got + q * k_;
            for (std::int64_t j = 0; j < k_; ++j)
              if (std::memcmp(w + j, g + place_of_[std::size_t(j)], sizeof(float)) != 0) {
                same = false;
                break;
              }
          }
        }
      }
    });
    return same;
  }

  // rows todo_[begin, end) against the centres in the groups' order: each decided where the scores leave no near
  // tie (or the exact scores decide it), else left for a place in a batch of its block's shape
  void batch(Scratch& s, std::int64_t begin, std::int64_t end) {
    const auto n = end - begin;
    float* dst = s.rows.data_ptr<float>();
    for (auto q = 0; q < batch_rows_; ++q)  // B rows always: the places past n repeat the first row
      std::memcpy(dst + q * d_, px_ + todo_[std::size_t(q < n ? begin + q : begin)] * d_, sizeof(float) * std::size_t(d_));
    const float* sc = score(s, s.rows.slice(0, 0, batch_rows_), batch_rows_, true);
    for (auto q = begin; q < end; ++q) {
      const auto r = todo_[std::size_t(q)];
      const float* row = sc + (q - begin) * k_;
      // one pass over the row: each group's least (a NaN makes it NaN), then the first least place
      least_per_group(row, group_start_.data(), t_, s.least.data());
      const auto pa = first_least_place(row, s.least.data());
      if (same_bits_) {  // the plain loop's scores: its pick, and the bounds
        const auto a = plain_pick(row, pa, s.least.data());
        assign_[std::size_t(r)] = std::int32_t(a);
        least_grouped(row, place_of_[std::size_t(a)], s.least.data());
        bound_row(r, a, row[place_of_[std::size_t(a)]], s.least.data());
        continue;
      }
      const auto a = centre_of_[std::size_t(pa)];
      const float sa = row[pa];
      assign_[std::size_t(r)] = std::int32_t(a);
      least_grouped(row, pa, s.least.data());
      const double gap = bound_row(r, a, sa, s.least.data());
      if (gap * (1 - 0x1p-50) > 4 * error_of(std::size_t(r))) continue;
      const auto decided = gap == gap ? decide_near_tie(r, row, sa) : -1;
      if (decided < 0) {
        s.replay.push_back(r);
      } else if (decided != a) {
        const auto pd = place_of_[std::size_t(decided)];
        assign_[std::size_t(r)] = std::int32_t(decided);
        least_grouped(row, pd, s.least.data());
        bound_row(r, decided, row[pd], s.least.data());
      }
    }
  }

  void run_items(const std::vector<Item>& items) {
    std::atomic<std::size_t> next{0};
    workers_.run([&](int t) {
      torch::NoGradGuard no_grad;
      auto& s = scratch_[std::size_t(t)];
      for (auto i = next++; i < items.size(); i = next++) {
        const auto& item = items[i];
        if (item.kind == Item::block) whole_block(s, item.index);
        else if (item.kind == Item::rows) batch(s, item.begin, item.end);
        else placed_batch(s, places_[std::size_t(item.index)]);
      }
    });
  }

  // the near ties left: rows of whole blocks at their places (the m-th near tie at a place in the m-th batch), rows
  // of a last, shorter block by that block
  std::vector<Item> near_tie_items(std::vector<std::int64_t> rows) {
    std::sort(rows.begin(), rows.end());
    places_.clear();
    std::vector<std::int32_t> used(std::size_t(R_), 0);
    std::vector<Item> items;
    bool last = false;
    for (auto r : rows) {
      if ((r / R_ + 1) * R_ > N_) {
        last = true;
        continue;
      }
      const auto place = r % R_;
      const auto m = std::size_t(used[std::size_t(place)]++);
      if (m == places_.size()) places_.emplace_back();
      places_[m].push_back({place, r});
    }
    for (std::size_t m = 0; m < places_.size(); ++m) items.push_back({Item::places, std::int64_t(m), 0, 0});
    if (last) items.push_back({Item::block, blocks_ - 1, 0, 0});
    return items;
  }

  // the assignment step: every row the plain loop's least column
  void allocate() {
    scratch_.resize(std::size_t(workers_.size()));
    for (auto& s : scratch_) {
      s.rows = torch::empty({R_, d_}, torch::kFloat32);
      s.scores = torch::empty({R_, k_}, torch::kFloat32);
      s.at.resize(std::size_t(R_));
      s.best.resize(std::size_t(R_));
      s.least.resize(std::size_t(t_));
    }
  }

  void assignment(bool first, KMeansStats& st) {
    const int T = workers_.size();
    // the rows to score
    std::vector<std::uint8_t> todo(std::size_t(N_), 1);
    if (!first && skip_ok_)
      workers_.run([&](int t) {
        const auto [r0, r1] = part_of(N_, t, T);
        for (auto r = r0; r < r1; ++r) todo[std::size_t(r)] = !skippable(r);
      });
    todo_.clear();
    for (std::int64_t r = 0; r < N_; ++r)
      if (todo[std::size_t(r)]) todo_.push_back(r);
    // in batches of B rows, one per thread at least where each would be half full
    const auto n = std::int64_t(todo_.size());
    std::vector<Item> items;
    // One block in all, and the batches left near ties the last time: they would be scored again as the whole block,
    // so the block is scored so at once (as the plain loop does), with batches tried again every fourth iteration.
    const bool whole = !same_bits_ && blocks_ == 1 && n > 0 && tied_ > 0 && tied_ % 4 != 0;
    if (whole) {
      items.push_back({Item::block, 0, 0, 0});
      ++tied_;
    } else if (n > 0) {
      std::int64_t parts = (n + batch_rows_ - 1) / batch_rows_;
      if (parts < T && n >= T * batch_rows_ / 2) parts = T;
      for (std::int64_t p = 0; p < parts; ++p) items.push_back({Item::rows, 0, n * p / parts, n * (p + 1) / parts});
    }
    for (auto& s : scratch_) {
      s.replay.clear();
      s.scored = 0;
    }
    run_items(items);
    // near ties the exact scores left open: scored again as the plain loop scores them
    std::vector<std::int64_t> again;
    for (auto& s : scratch_) again.insert(again.end(), s.replay.begin(), s.replay.end());
    std::int64_t scored = 0;
    for (auto& s : scratch_) scored += s.scored;
    if (!whole) tied_ = again.empty() ? 0 : 1;
    if (!again.empty()) {
      for (auto& s : scratch_) s.scored = 0;
      run_items(near_tie_items(again));
      for (auto& s : scratch_) st.rows_replayed += s.scored;
      for (auto& s : scratch_) scored += s.scored;
    }
    st.rows_scored += scored;
  }

  // every centre the float64 mean of its rows, summed in row order (index_add_'s order), one thread per range of
  // centres; an empty cluster keeps its centre
  void update(torch::Tensor& centres) {
    std::vector<std::int64_t> start(std::size_t(k_) + 1, 0);
    for (auto a : assign_) ++start[std::size_t(a) + 1];
    for (std::int64_t j = 0; j < k_; ++j) start[std::size_t(j + 1)] += start[std::size_t(j)];
    std::vector<std::int64_t> rows(static_cast<std::size_t>(N_));
    {
      auto fill = start;
      for (std::int64_t r = 0; r < N_; ++r) rows[std::size_t(fill[std::size_t(assign_[std::size_t(r)])]++)] = r;
    }
    double* c = centres.data_ptr<double>();
    const int T = workers_.size();
    workers_.run([&](int t) {
      // centres [j0, j1): the ones whose rows start in part t of the rows
      const auto [p0, p1] = part_of(N_, t, T);
      const auto j0 = std::int64_t(std::lower_bound(start.begin(), start.end() - 1, p0) - start.begin());
      const auto j1 = t + 1 == T ? k_ : std::int64_t(std::lower_bound(start.begin(), start.end() - 1, p1) - start.begin());
      std::vector<double> sum(static_cast<std::size_t>(d_));
      for (auto j = j0; j < j1; ++j) {
        const auto q0 = start[std::size_t(j)], q1 = start[std::size_t(j + 1)];
        if (q0 == q1) continue;
        std::fill(sum.begin(), sum.end(), 0.0);
        for (auto q = q0; q < q1; ++q) {
          const float* row = px_ + rows[std::size_t(q)] * d_;
          for (std::int64_t i = 0; i < d_; ++i) sum[std::size_t(i)] += double(row[i]);
        }
        const double count = double(q1 - q0);
        for (std::int64_t i = 0; i < d_; ++i) c[j * d_ + i] = sum[std::size_t(i)] / count;
      }
    });
  }

  const torch::Tensor& x_;
  const float* px_;
  std::int64_t N_, d_, k_;
  const KMeansOptions& o_;
  Workers workers_;
  std::int64_t R_ = 1, blocks_ = 1, t_ = 1, batch_rows_ = 1;
  double gamma_ = 0, alpha_ = 0, beta_ = 0;
  bool usable_ = true, skip_ok_ = false;
  bool same_bits_ = false;  // batches give the plain loop's scores bit for bit (same_bits_as_blocks)
  int tied_ = 0;            // iterations since batches left near ties in the only block (0: they did not)
  torch::Tensor cf_, cn_, ct_;                 // this iteration's float32 centres, |c|^2 and c^T, as the plain loop's
  torch::Tensor order_, cn_grouped_, ct_grouped_;  // the same in the groups' order
  std::vector<double> x2_hi_, x2_lo_, norm_hi_;
  std::vector<std::uint8_t> row_ok_;
  std::vector<std::int32_t> group_of_;
  std::vector<std::int64_t> group_start_, centre_of_, place_of_;  // groups' places; centre at a place; its place
  std::vector<double> centre_drift_, group_drift_;
  double all_drift_ = 0;
  std::vector<double> upper_, lower_min_;  // u - D_a, and min_G l_G + D_all, at the last refresh
  std::vector<float> lower_;                // rows x groups: l_G + D_G at the last refresh
  std::vector<std::int32_t> assign_;
  std::vector<std::int64_t> todo_;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> places_;  // batches of (place, row) near ties
  std::vector<Scratch> scratch_;
};

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
    seeds = kmeanspp(x, k, {}, gen, &st.rows_read, o.prune_seeding, o.fast_draws, o.margin_scale);
    st.seeding = "k-means++";
  }
  auto centres = x.index({torch::tensor(seeds, torch::kInt64)}).to(torch::kFloat64);
  st.seeding_seconds = since(t0);
  st.flops_per_iteration = 2.0 * double(N) * double(k) * double(d);
  t0 = Clock::now();
  if (o.bounds) {
    // the threads the caller gives (LibTorch's count at entry) run Lloyd's steps, each GEMM on one of them
    const int threads = at::get_num_threads();
    const OneTorchThread lloyd_threads;
    const SerialBlas serial_blas;
    BoundedLloyd lloyd(x, k, o, threads);
    auto out = lloyd.run(centres, st);
    st.seconds_per_iteration = since(t0) / double(st.iterations);
    if (stats) *stats = st;
    return out;
  }
  const OneTorchThread lloyd_threads;
  torch::Tensor assign;
  // the rows in float64 for the centre sums: converted once where the copy takes at most 256 MiB, else per block
  const bool whole = N * d * 8 <= (std::int64_t(256) << 20);
  const auto x64 = whole ? x.to(torch::kFloat64) : torch::Tensor();
  for (int it = 0; it < o.iterations; ++it) {
    const auto a = nearest_of(x, centres.to(torch::kFloat32), o.block_bytes);
    ++st.iterations;
    st.rows_scored += N;
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
