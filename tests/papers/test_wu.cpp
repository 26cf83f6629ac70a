// [WU] Sec 4 (issue 51 item 2, the sixth paper): its registry entry, its theory row's verdict and control, and the
// bench's distance-weighted miner drawing negatives with the weights the paper's density gives, min(lambda, 1/q(d)).
#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace th = dmlbench::theory;
namespace ex = dmlbench::experiments;

namespace {

th::ClaimResult wu_row() {
  for (const auto& [paper, claims] : th::registered_theory_claims())
    if (paper == "WU") {
      const auto rows = claims(th::CheckConfig{});
      REQUIRE(rows.size() == 1);
      return rows[0];
    }
  FAIL("no theory checks registered for WU");
  return {};
}

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

TEST_CASE("[WU] is registered with its theory layer and no text, and its row is reconstructed", "[papers][WU]") {
  const auto& p = th::registered_paper("WU");
  CHECK(p.title == "Sampling matters in deep embedding learning");
  CHECK(p.text.empty());
  CHECK(th::paper_keys_text("theory").find("[WU]") != std::string::npos);
  CHECK(th::paper_keys_text("sims").find("[WU]") == std::string::npos);
  CHECK_THROWS_WITH(th::registered_paper("WUU"), Catch::Contains("no paper WUU is registered") &&
                                                     Catch::Contains("WU"));
}

TEST_CASE("[WU Sec 4] the distance density on the sphere: verified by quadrature and Monte Carlo, its control refuted",
          "[papers][WU]") {
  const auto r = wu_row();
  CHECK(r.id == "wu-sec4-distance-density");
  CHECK(r.verdict == th::Verdict::verified);
  CHECK(r.max_error <= r.tolerance);
  CHECK(r.samples == 4 * 20000);
  // the tolerance is the DKW bound at alpha 1e-6: sqrt(ln(2e6) / 40000) = 0.01905...
  CHECK_THAT(r.tolerance, Catch::WithinRel(std::sqrt(std::log(2e6) / 40000.0), 1e-12));
  REQUIRE(r.control.has_value());
  CHECK(r.control->verdict == th::Verdict::refuted);
  CHECK(r.control->error > 2 * r.tolerance);
  // an independent fact the closed form must give: on S^2 (n = 3) the density is d / 2 on [0, 2] (Archimedes: the
  // height of a uniform point is uniform), so its mean distance is 4/3; the row's CDF at d is then d^2 / 4
  CHECK_THAT(r.note, Catch::Contains("n = 3: KS") && Catch::Contains("n = 128: KS"));
}

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
