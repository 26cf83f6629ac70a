// k-means for NMI (kmeans.hpp). Lloyd's loop with bounds (Yinyang k-means, Ding, Zhao, Shen, Musuvathi and
// Mytkowicz, ICML 2015: an upper bound per row on the distance to its centre, a lower bound per group of centres, both
// moved by the centres' drifts, and a margin for the float32 GEMM's rounding) against the plain loop: the same
// assignments, iterations and NMI at 1 and 2 threads on awkward data; the rounding bound it rests on; a negative
// control without the margin; k-means++'s draws (Arthur and Vassilvitskii 2007) against torch::multinomial.
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/kmeans.hpp"
#include "dmlbench/experiments/nmi.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace dmlbench::experiments;

namespace {

// LibTorch's and OpenBLAS's threads at n while it lives
class Threads {
 public:
  explicit Threads(int n) : was_(torch::get_num_threads()) { set_compute_threads(n); }
  ~Threads() { set_compute_threads(was_); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int was_;
};

struct Case {
  std::string name;
  torch::Tensor x;
  std::vector<int> labels;
  int k;
  KMeansOptions options;
};

// rows around `classes` normal centres (spread `spread`), with their class
std::pair<torch::Tensor, std::vector<int>> mixture(std::int64_t n, std::int64_t d, int classes, double spread,
                                                    std::uint64_t seed) {
  auto g = at::detail::createCPUGenerator(seed);
  const auto centres = torch::randn({classes, d}, g) * spread;
  const auto y = torch::randint(classes, {n}, g);
  const auto x = centres.index({y}) + torch::randn({n, d}, g);
  return {x.contiguous(), std::vector<int>(y.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>() + n)};
}

std::vector<Case> awkward_cases() {
  std::vector<Case> cases;
  KMeansOptions blocks;  // several blocks of the plain loop, so that batches mix blocks and near ties replay one
  blocks.block_bytes = 4 * 40 * 211;
  {
    auto [x, y] = mixture(3000, 24, 40, 4.0, 1);
    cases.push_back({"clustered mixture, k = classes, blocks of 211 rows", x, y, 40, blocks});
    cases.push_back({"clustered mixture, k = 10 x classes", x, y, 400, KMeansOptions{}});
    KMeansOptions few;  // fewer groups than Yinyang's k / 10, and every row in one group
    few.groups = 3;
    cases.push_back({"clustered mixture, 3 groups", x, y, 120, few});
    few.groups = 1;
    cases.push_back({"clustered mixture, 1 group (Hamerly's single bound)", x, y, 120, few});
  }
  {
    // near ties: coordinates rounded to halves and every row three times, 13 dimensions (not a multiple of 8)
    auto [x, y] = mixture(700, 13, 12, 2.0, 2);
    x = (x * 2).round() / 2;
    x = torch::cat({x, x, x}).contiguous();
    std::vector<int> yy;
    for (int r = 0; r < 3; ++r) yy.insert(yy.end(), y.begin(), y.end());
    cases.push_back({"rounded and duplicated rows, d = 13", x, yy, 60, blocks});
  }
  {
    auto [x, y] = mixture(150, 7, 5, 3.0, 3);
    cases.push_back({"k near N (140 of 150), d = 7", x, y, 140, KMeansOptions{}});
    cases.push_back({"k = 1", x, y, 1, KMeansOptions{}});
  }
  {
    // the evaluation's rows: unit vectors, 128 dimensions; k-means|| seeding (over the budget)
    auto [x, y] = mixture(4000, 128, 50, 0.35, 4);
    x = x / x.norm(2, 1, true);
    KMeansOptions parallel;
    parallel.exact_seeding_budget = 1;
    cases.push_back({"unit vectors, d = 128, k-means|| seeding", x, y, 500, parallel});
    cases.push_back({"unit vectors, d = 128, k-means++", x, y, 50, KMeansOptions{}});
  }
  return cases;
}

}  // namespace

// Yinyang k-means (Ding et al. 2015) with the rounding margin assigns exactly as the plain Lloyd loop: the same
// clusters, iterations and NMI bits, with 1 and 2 threads, and it skips rows on clustered data.
TEST_CASE("k-means with Yinyang bounds equals the plain Lloyd loop on awkward data at 1 and 2 threads",
          "[experiments][kmeans]") {
  for (const auto& c : awkward_cases()) {
    INFO(c.name);
    auto plain = c.options;
    plain.bounds = false;
    KMeansStats ps;
    std::vector<int> want;
    {
      const Threads one(1);
      want = kmeans(c.x, c.k, 9, plain, &ps);
    }
    const double nmi = normalized_mutual_information(want, c.labels);
    for (int threads : {1, 2}) {
      INFO("threads " << threads);
      const Threads t(threads);
      KMeansStats bs;
      const auto got = kmeans(c.x, c.k, 9, c.options, &bs);
      CHECK(got == want);
      auto certify = c.options;  // near ties decided by exact scores or the block, whatever this BLAS does
      certify.trust_same_bits = false;
      KMeansStats cs;
      CHECK(kmeans(c.x, c.k, 9, certify, &cs) == want);
      CHECK_FALSE(cs.same_bits);
      CHECK(bs.iterations == ps.iterations);
      CHECK(bs.converged == ps.converged);
      CHECK(normalized_mutual_information(got, c.labels) == nmi);
      CHECK(bs.rows_replayed <= bs.rows_scored);
      CHECK(bs.groups >= 1);
    }
    CHECK(ps.rows_scored == c.x.size(0) * std::int64_t(ps.iterations));
  }
}

// On well separated clusters the bounds skip most rows once the centres settle: fewer rows scored than the plain
// loop's N per iteration, the same clusters.
TEST_CASE("k-means with Yinyang bounds skips rows on separated clusters", "[experiments][kmeans]") {
  auto [x, y] = mixture(6000, 16, 30, 12.0, 8);
  KMeansOptions plain, bounds;
  bounds.block_bytes = 4 * 60 * 500;  // blocks of 500 rows, so that a near tie scored at its place costs 500 rows
  plain = bounds;
  plain.bounds = false;
  const Threads one(1);
  KMeansStats ps, bs;
  const auto want = kmeans(x, 60, 2, plain, &ps);
  CHECK(kmeans(x, 60, 2, bounds, &bs) == want);
  CHECK(bs.iterations == ps.iterations);
  CHECK(ps.iterations >= 3);
  // the rows the bounds left to score (whatever this BLAS needs for near ties besides)
  CHECK(bs.rows_scored - bs.rows_replayed < ps.rows_scored * 3 / 4);
  WARN(describe_blas() << ": " << bs.iterations << " iterations, " << bs.rows_scored << " of " << ps.rows_scored
                       << " rows scored, " << bs.rows_replayed << " replayed at their blocks' places, batches "
                       << (bs.same_bits ? "" : "not ") << "found to give the plain loop's bits");
}

// The bound the skip rule and the check of a batch's score rest on: each float32 score |c|^2 - 2 x.c of the plain
// loop's GEMM lies within E = gamma_{d+1} (2 + gamma_{d+1}) C^2 + 2 gamma_{d+1} |x| C (+ underflow) of the exact
// value, C = max |c| (Higham's gamma_n = n u / (1 - n u), u = 2^-24); so the scores of the same rows in other batches
// lie within 2 E of the block's, whether or not they are the same bits (for OpenBLAS they are not always: its
// small-matrix path and some kernels' tiles round otherwise; counted and reported here).
TEST_CASE("k-means scores of a row in another batch stay within the rounding bound of the block's",
          "[experiments][kmeans]") {
  const Threads one(1);
  for (auto [k, d, scale] : {std::tuple<int, int, double>{584, 128, 1.0}, {20, 128, 1.0}, {300, 13, 1000.0},
                             {1000, 64, 0.01}}) {
    INFO("k " << k << ", d " << d << ", scale " << scale);
    auto g = at::detail::createCPUGenerator(std::uint64_t(k + d));
    const auto x = torch::randn({700, d}, g) * scale;
    const auto c = (torch::randn({k, d}, g) * scale).to(torch::kFloat32);
    const auto cn = c.pow(2).sum(1).unsqueeze(0);
    const auto ct = c.t().contiguous();
    const auto block = torch::addmm(cn, x, ct, 1, -2);
    const auto exact = (c.to(torch::kFloat64).pow(2).sum(1).unsqueeze(0) -
                        2 * torch::mm(x.to(torch::kFloat64), c.to(torch::kFloat64).t()));
    const double u = std::ldexp(1.0, -24), gamma = (d + 1) * u / (1 - (d + 1) * u);
    const double C = c.to(torch::kFloat64).norm(2, 1).max().item<double>();
    const auto xn = x.to(torch::kFloat64).norm(2, 1).unsqueeze(1);
    const auto E = gamma * (2 + gamma) * C * C + 2 * gamma * xn * C + (4 * d + 8) * std::ldexp(1.0, -126);
    CHECK(((block.to(torch::kFloat64) - exact).abs() <= E).all().item<bool>());
    std::int64_t differ = 0, rows = 0;
    for (int n : {1, 2, 3, 5, 8, 13, 31, 64, 200}) {
      const auto idx = torch::randperm(700, g).slice(0, 0, n);
      const auto part = torch::addmm(cn, x.index({idx}), ct, 1, -2);
      const auto same = block.index({idx});
      CHECK(((part.to(torch::kFloat64) - exact.index({idx})).abs() <= E.index({idx})).all().item<bool>());
      CHECK(((part.to(torch::kFloat64) - same.to(torch::kFloat64)).abs() <= 2 * E.index({idx})).all().item<bool>());
      differ += part.ne(same).any(1).sum().item<std::int64_t>();
      rows += n;
    }
    WARN(describe_blas() << ": " << differ << " of " << rows << " rows scored in other batches differ from the block's "
                         << "bits (k " << k << ", d " << d << ")");
  }
}

// What the near ties rest on: a row scored at its own place in a batch of its block's shape gets its block's score bit
// for bit, whatever the other rows of the batch hold (the GEMM's result for row i does not depend on the values of
// the other rows). Here the rows of blocks 0 and 2 at random places of block 1, for shapes whose other batches differ.
TEST_CASE("k-means scores of a row at its place in a batch of its block's shape equal the block's bits",
          "[experiments][kmeans]") {
  for (int threads : {1, 2}) {
    const Threads t(threads);
    for (auto [k, d, R] : {std::tuple<int, int, int>{584, 128, 300}, {20, 128, 97}, {300, 13, 256}, {5840, 128, 64}}) {
      INFO("k " << k << ", d " << d << ", R " << R << ", threads " << threads);
      auto g = at::detail::createCPUGenerator(std::uint64_t(k * d + R));
      const auto x = torch::randn({3 * R, d}, g);
      const auto c = torch::randn({k, d}, g);
      const auto cn = c.pow(2).sum(1).unsqueeze(0);
      const auto ct = c.t().contiguous();
      std::vector<torch::Tensor> block;
      for (int b = 0; b < 3; ++b) block.push_back(torch::addmm(cn, x.slice(0, b * R, (b + 1) * R), ct, 1, -2));
      auto batch = x.slice(0, R, 2 * R).clone();
      auto want = block[1].clone();
      const auto places = torch::randperm(R, g).slice(0, 0, R / 3);
      for (std::int64_t q = 0; q < places.size(0); ++q) {
        const auto p = places[q].item<std::int64_t>();
        const std::int64_t from = q % 2 == 0 ? 0 : 2;
        batch[p] = x[from * R + p];
        want[p] = block[std::size_t(from)][p];
      }
      CHECK(torch::addmm(cn, batch, ct, 1, -2).equal(want));
    }
  }
}

// Negative control: the same bounds without the rounding margin (margin_scale 0) on rows far from the origin, where
// the float32 score |c|^2 - 2 x.c loses most of its digits (|x|^2 ~ 10^7 against gaps of ~1), skip rows whose plain
// assignment the rounding moves, and so assign otherwise somewhere; with the margin they assign as the plain loop.
TEST_CASE("k-means bounds without the rounding margin assign otherwise than the plain loop (negative control)",
          "[experiments][kmeans]") {
  auto [x, y] = mixture(3000, 16, 30, 1.5, 5);
  x = x + 1000;
  KMeansOptions plain, loose, proven;
  plain.bounds = false;
  loose.margin_scale = 0;
  std::vector<int> want;
  {
    const Threads one(1);
    want = kmeans(x, 60, 3, plain);
  }
  for (int threads : {1, 2}) {
    INFO("threads " << threads);
    const Threads t(threads);
    KMeansStats sl, sb;
    CHECK(kmeans(x, 60, 3, proven, &sb) == want);
    CHECK(kmeans(x, 60, 3, loose, &sl) != want);
  }
}

// [Arthur and Vassilvitskii 2007] k-means++ with D^2 kept lazily (a draw refreshes the rows whose stale D^2 could win
// it; every 64 centres a float32 GEMM with a proven rounding margin brings the rest up to date) draws the same centres
// as a pass per centre over every row: the same one-step clustering (each row to its nearest seed) at 1 and 2 threads,
// on the awkward cases (k-means|| included, whose weighted k-means++ runs the same way), rows far from the origin
// (where the GEMM's scores cancel) and rows of norm^2 over 1e30 (where nothing is skipped); fewer float64 distances.
// Negative control: without the rounding margin the GEMM's scores rule out pairs that were nearer, and the draws
// differ.
TEST_CASE("k-means++ with lazily kept distances draws the seeds of the pass over every row", "[experiments][kmeans]") {
  auto cases = awkward_cases();
  {
    auto [x, y] = mixture(2000, 16, 30, 1.5, 5);
    cases.push_back({"rows around 1000 (1, ..., 1), k = 300", (x + 1000).contiguous(), y, 300, KMeansOptions{}});
    cases.push_back({"rows of norm 1e16, k = 100", (x * 1e16).contiguous(), y, 100, KMeansOptions{}});
  }
  for (const auto& c : cases) {
    INFO(c.name);
    auto full = c.options, lazy = c.options;
    full.prune_seeding = false;
    full.iterations = lazy.iterations = 1;
    KMeansStats fs;
    std::vector<int> want;
    {
      const Threads one(1);
      want = kmeans(c.x, c.k, 13, full, &fs);
    }
    for (int threads : {1, 2}) {
      INFO("threads " << threads);
      const Threads t(threads);
      KMeansStats ls;
      CHECK(kmeans(c.x, c.k, 13, lazy, &ls) == want);
      // (rows of norm^2 over 1e30 are scored exactly, so only where norms are moderate)
      if (c.k >= 60 && fs.seeding == "k-means++" && c.x.abs().max().item<double>() < 1e6)
        CHECK(ls.rows_read < fs.rows_read / 2);
    }
  }
  auto [x, y] = mixture(2000, 16, 30, 1.5, 5);
  x = (x + 1000).contiguous();
  KMeansOptions full, loose;
  full.prune_seeding = false;
  full.iterations = loose.iterations = 1;
  loose.margin_scale = 0;
  CHECK(kmeans(x, 300, 13, loose) != kmeans(x, 300, 13, full));
}

// k-means++'s draw: multinomial_draw gives torch::multinomial(p, 1)'s index and leaves the generator as it does, on
// weights with ties, a dominant entry, tiny entries (1e-300, as k-means++ adds), one entry and many; k-means with
// LibTorch's draws clusters the same. Negative control: a generator one draw ahead picks otherwise somewhere.
TEST_CASE("k-means++ draws equal torch::multinomial's, and so does the clustering", "[experiments][kmeans]") {
  auto values = at::detail::createCPUGenerator(11);
  auto a = at::detail::createCPUGenerator(5), b = at::detail::createCPUGenerator(5);
  auto ahead = at::detail::createCPUGenerator(5);
  torch::rand({1}, ahead, torch::TensorOptions().dtype(torch::kFloat64));
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  int differs_ahead = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t n = trial % 7 == 0 ? 1 : 1 + (trial * 7919) % 5000;
    auto p = torch::rand({n}, values, f64);
    switch (trial % 4) {
      case 0: p = p.pow(8) + 1e-300; break;                                 // a few large entries
      case 1: p = (p * 4).floor() + 1e-300; break;                          // ties, zeros lifted to 1e-300
      case 2: p = torch::full({n}, 1e-300, f64); p[n / 2] = 1; break;      // one dominant entry
      default: p = p + 1e-300;
    }
    const auto want = torch::multinomial(p, 1, false, a).item<std::int64_t>();
    const auto got = multinomial_draw(p, b);
    CHECK(got == want);
    differs_ahead += multinomial_draw(p, ahead) != want;
  }
  CHECK(torch::rand({16}, a, f64).equal(torch::rand({16}, b, f64)));
  CHECK(differs_ahead > 0);
  // not finite or not positive: LibTorch's own refusal
  auto c = at::detail::createCPUGenerator(1);
  CHECK_THROWS(multinomial_draw(torch::tensor({1.0, -1.0}, f64), c));
  auto [x, y] = mixture(2000, 10, 20, 3.0, 6);
  KMeansOptions torch_draws;
  torch_draws.fast_draws = false;
  KMeansStats fast, slow;
  CHECK(kmeans(x, 200, 4, KMeansOptions{}, &fast) == kmeans(x, 200, 4, torch_draws, &slow));
  KMeansOptions parallel = torch_draws;
  parallel.exact_seeding_budget = 1;
  KMeansOptions parallel_fast;
  parallel_fast.exact_seeding_budget = 1;
  CHECK(kmeans(x, 200, 4, parallel_fast) == kmeans(x, 200, 4, parallel));
}

TEST_CASE("k-means refuses bounds options out of range", "[experiments][kmeans]") {
  const auto x = torch::randn({20, 3});
  KMeansOptions bad;
  bad.groups = -1;
  CHECK_THROWS_WITH(kmeans(x, 4, 1, bad), Catch::Contains("groups"));
  bad = KMeansOptions{};
  bad.margin_scale = -1;
  CHECK_THROWS_WITH(kmeans(x, 4, 1, bad), Catch::Contains("margin_scale"));
}
