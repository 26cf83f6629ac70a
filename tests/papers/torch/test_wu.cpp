// [WU] Sec 4 and the bench's components: the distance-weighted miner draws negatives with the weights the paper's
// density gives, min(lambda, 1/q(d)) (LibTorch: built where the experiments layer is). The paper's theory row is
// pinned in tests/papers/test_wu.cpp.
#include "dmlbench/experiments/batch_miner.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ex = dmlbench::experiments;

namespace {

// The weights of the test's own reading of [WU] Sec 4 with the miner's settings: 1/q(max(d, cutoff)) below the
// nonzero-loss cutoff, 0 beyond; q(d) = d^(n-2) (1 - d^2/4)^((n-3)/2), normalised to probabilities.
std::vector<double> expected_probabilities(const std::vector<double>& d, int n, double cutoff, double beyond,
                                           bool inverted = true) {
  std::vector<double> w;
  for (double x : d) {
    const double c = std::max(x, cutoff);
    const double q = std::pow(c, n - 2) * std::pow(1 - c * c / 4, 0.5 * (n - 3));
    w.push_back(x < beyond ? (inverted ? 1 / q : q) : 0.0);
  }
  double s = 0;
  for (double x : w) s += x;
  for (double& x : w) x /= s;
  return w;
}

// Pearson's statistic of counts against probabilities over the categories with a positive probability; a count in a
// category of probability 0 makes it infinite.
double chi_square(const std::vector<double>& counts, const std::vector<double>& p) {
  double total = 0, x2 = 0;
  for (double c : counts) total += c;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (p[k] == 0) {
      if (counts[k] > 0) return INFINITY;
      continue;
    }
    x2 += (counts[k] - total * p[k]) * (counts[k] - total * p[k]) / (total * p[k]);
  }
  return x2;
}

}  // namespace

TEST_CASE("[WU Sec 4] the distance-weighted miner draws each admissible negative with probability min(lambda, 1/q(d)) "
          "normalised",
          "[papers][WU]") {
  // anchors: A copies of one anchor (label 0, positives of each other); negatives at the distances below, each its own
  // class: 0.3 is clamped to the cutoff 0.5; 1.5 lies beyond the nonzero-loss cutoff 1.4 and is never drawn
  const std::vector<double> d = {0.3, 0.6, 0.9, 1.2, 1.35, 1.5};
  const int A = 1000, K = int(d.size()), B = A + K, n = 8;
  auto sim = torch::zeros({B, B}, torch::kFloat64);
  auto labels = torch::zeros({B}, torch::kInt64);
  for (int i = 0; i < B; ++i) sim[i][i] = 1.0;
  for (int i = 0; i < A; ++i) {
    for (int j = 0; j < A; ++j)
      if (j != i) sim[i][j] = 0.9;
    for (int k = 0; k < K; ++k) sim[i][A + k] = 1.0 - d[std::size_t(k)] * d[std::size_t(k)] / 2;
  }
  for (int k = 0; k < K; ++k) labels[A + k] = k + 1;
  ex::MinerConfig c = ex::named_miner("distance-weighted");
  c.dw_dim = n;
  std::vector<double> counts(std::size_t(K), 0.0);
  for (int call = 0; call < 20; ++call) {
    auto gen = torch::make_generator<at::CPUGeneratorImpl>(std::uint64_t(51 + call));
    const auto t = ex::mine_triplets(sim, labels, c, gen);
    const auto a = t.anchors.accessor<std::int64_t, 1>();
    const auto neg = t.negatives.accessor<std::int64_t, 1>();
    for (std::int64_t i = 0; i < t.anchors.size(0); ++i)
      if (a[i] < A) counts[std::size_t(neg[i] - A)] += 1;
  }
  REQUIRE(counts[5] == 0);  // beyond the nonzero-loss cutoff
  const double critical = boost::math::quantile(boost::math::chi_squared(4.0), 1 - 1e-6);  // 5 categories
  const auto p = expected_probabilities(d, n, c.dw_cutoff, c.dw_nonzero_loss_cutoff);
  INFO("counts " << counts[0] << ", " << counts[1] << ", " << counts[2] << ", " << counts[3] << ", " << counts[4]);
  CHECK(chi_square(counts, p) < critical);
  // negative controls: the density itself as the weight (not inverted), and the weight without the cutoff's clamp
  CHECK(chi_square(counts, expected_probabilities(d, n, c.dw_cutoff, c.dw_nonzero_loss_cutoff, false)) > critical);
  CHECK(chi_square(counts, expected_probabilities(d, n, 0.0, c.dw_nonzero_loss_cutoff)) > critical);
}
