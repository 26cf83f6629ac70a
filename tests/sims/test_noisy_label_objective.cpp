#include "dmlbench/sims/collapse_minimizer.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace dmlbench::sims;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
ObjectiveConfig config(Objective o, int n, int t, double p, Triples tr) {
  ObjectiveConfig c;
  c.objective = o;
  c.model = {n, t, p, tr};
  c.alpha = 0.3;
  c.dim = 2;
  return c;
}
Eigen::VectorXd random_point(const ObjectiveConfig& c, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  Eigen::VectorXd x(c.parameters());
  for (int i = 0; i < x.size(); ++i) x(i) = u(rng);
  return x;
}
}  // namespace

TEST_CASE("exact expectations over the labels agree with Monte Carlo averages within 4 standard errors "
          "[LCC Sec 4.2] [LCC Thm 1] [LCC Thm 2]", "[sims][LCC Sec 4.2]") {
  std::mt19937_64 rng(Catch::rngSeed());
  for (auto o : {Objective::triplet, Objective::margin, Objective::contrastive})
    for (auto tr : {Triples::all, Triples::distinct})
      for (int t : {2, 3}) {
        const auto c = config(o, 6, t, 0.7, tr);
        const auto x = random_point(c, rng);
        const double exact = expected_objective(c, x.data(), nullptr);
        const int draws = 4000;
        double sum = 0, sum2 = 0;
        for (int d = 0; d < draws; ++d) {
          const double v = realized_objective(c, x.data(), sample_labels(c.model, rng));
          sum += v;
          sum2 += v * v;
        }
        const double mean = sum / draws, se = std::sqrt((sum2 / draws - mean * mean) / (draws - 1));
        INFO(name(o) << " " << name(tr) << " t=" << t << ": exact " << exact << " MC " << mean << " +- " << se);
        CHECK(std::abs(mean - exact) < 4 * se + 1e-12);
      }
}

TEST_CASE("negative control: the Monte Carlo check catches an expectation off by 5 percent [LCC Sec 4.2]",
          "[sims][LCC Sec 4.2][negative-control]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const auto c = config(Objective::triplet, 6, 2, 0.7, Triples::distinct);
  const auto x = random_point(c, rng);
  const double wrong = 1.05 * expected_objective(c, x.data(), nullptr);
  double sum = 0, sum2 = 0;
  const int draws = 4000;
  for (int d = 0; d < draws; ++d) {
    const double v = realized_objective(c, x.data(), sample_labels(c.model, rng));
    sum += v;
    sum2 += v * v;
  }
  const double mean = sum / draws, se = std::sqrt((sum2 / draws - mean * mean) / (draws - 1));
  CHECK(std::abs(mean - wrong) > 4 * se);
}

TEST_CASE("triplet weights: E[delta_ij (1 - delta_ik)] by hand, and the j = i terms of the printed sum "
          "[LCC Sec 4.2]", "[sims][LCC Sec 4.2]") {
  NoisyLabelModel m{4, 2, 0.8, Triples::all};
  // i, j in A_1, k in A_2: P(Y_i = Y_j) - P(all equal) = (p^2 + q^2) - (p^2 q + q^2 p) = 0.68 - 0.16
  CHECK_THAT(m.triplet_weight(0, 1, 2), WithinAbs(0.68 - 0.16, 1e-15));
  // j = i: 1 - P(Y_i = Y_k) = 1 - 2pq = 0.68; k = i and j = k: 0
  CHECK_THAT(m.triplet_weight(0, 0, 2), WithinAbs(0.68, 1e-15));
  CHECK(m.triplet_weight(0, 1, 0) == 0.0);
  CHECK(m.triplet_weight(0, 1, 1) == 0.0);
  m.triples = Triples::distinct;
  CHECK(m.triplet_weight(0, 0, 2) == 0.0);
  // three classes: q = (1 - p)/(t - 1)
  NoisyLabelModel m3{6, 3, 0.7, Triples::distinct};
  CHECK_THAT(m3.same_label(0, 1), WithinAbs(2 * 0.7 * 0.15 + 0.15 * 0.15, 1e-15));
}

TEST_CASE("exact gradients of the expected objectives agree with central differences [LCC Thm 1] [LCC Thm 2]",
          "[sims][LCC Thm 1][LCC Thm 2]") {
  std::mt19937_64 rng(Catch::rngSeed());
  for (auto o : {Objective::triplet, Objective::margin, Objective::contrastive})
    for (double tau : {0.0, 0.01}) {
      auto c = config(o, 6, 2, 0.7, Triples::all);
      c.smoothing = tau;
      const auto x = random_point(c, rng);  // generic point: no hinge at a kink (probability 0)
      Eigen::VectorXd g(x.size());
      expected_objective(c, x.data(), g.data());
      // central differences: truncation h^2 |f'''| ~ 1e-10 where smooth, rounding eps/h ~ 2e-11; a kink within h
      // of x (probability ~1e-5 here) would show as an O(1e-1) error
      const double h = 1e-5;
      double worst = 0;
      for (int i = 0; i < x.size(); ++i) {
        Eigen::VectorXd xp = x, xm = x;
        xp(i) += h;
        xm(i) -= h;
        const double fd = (expected_objective(c, xp.data(), nullptr) - expected_objective(c, xm.data(), nullptr)) / (2 * h);
        worst = std::max(worst, std::abs(fd - g(i)));
      }
      INFO(name(o) << " tau=" << tau << " worst |fd - grad| " << worst);
      CHECK(worst < 1e-7);
    }
}

TEST_CASE("same seed, same minimizers, another seed, other starts [LCC Thm 1]", "[sims][LCC Thm 1]") {
  const auto c = config(Objective::triplet, 12, 2, 0.7, Triples::distinct);
  MinimizerConfig mc;
  mc.restarts = 2;
  mc.seed = 7;
  const auto a = minimize_from_random_starts(c, mc), b = minimize_from_random_starts(c, mc);
  for (std::size_t r = 0; r < a.size(); ++r) {
    CHECK(a[r].final_objective == b[r].final_objective);
    CHECK(a[r].x == b[r].x);
  }
  mc.seed = 8;
  const auto d = minimize_from_random_starts(c, mc);
  CHECK(d[0].initial_objective != a[0].initial_objective);
}

TEST_CASE("bad input: p <= 1/t or p > 1, n not divisible by t, alpha <= 0, dim < 1 [LCC Sec 4.2]",
          "[sims][bad-input]") {
  auto c = config(Objective::triplet, 12, 2, 0.5, Triples::distinct);
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("(0.5, 1]") && Catch::Contains("0.5"));
  c.model.p = 1.2;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("1.2"));
  c.model.p = 0.8;
  c.model.n = 13;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("divisible"));
  c.model.n = 12;
  c.alpha = 0;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("alpha"));
  c.alpha = 0.2;
  c.dim = 0;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("dimension"));
  c.dim = 2;
  c.model.t = 3;
  c.model.p = 0.4;  // (1/3, 1]: allowed for three classes
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("the sorted O(n^2 t log n) triplet expectations equal the dense O(n^3) sums, value and gradient, on random "
          "and tie-heavy points [LCC Thm 1] [LCC App B]", "[sims][LCC Thm 1][LCC App B]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  for (auto s : {Sampling::all, Sampling::eps})
    for (auto tr : {Triples::all, Triples::distinct})
      for (int t : {2, 3})
        for (int n : {6, 12, 24})
          for (bool ties : {false, true}) {
            auto c = config(Objective::triplet, n, t, 0.7, tr);
            c.sampling = s;
            Eigen::VectorXd x(c.parameters());
            for (int i = 0; i < x.size(); ++i) x(i) = u(rng);
            if (ties)  // every point on one of three locations: many equal distances and zero hinges
              for (int i = 0; i < n; ++i) x.segment(2 * i, 2) = x.segment(2 * (i % 3), 2);
            Eigen::VectorXd g1(x.size()), g2(x.size());
            const double v1 = expected_objective(c, x.data(), g1.data());
            const double v2 = expected_objective_dense(c, x.data(), g2.data());
            INFO(name(s) << " " << name(tr) << " t=" << t << " n=" << n << " ties=" << ties);
            // the same terms summed in another order: a few eps relative
            CHECK_THAT(v1, WithinRel(v2, 1e-12) || WithinAbs(v2, 1e-16));
            CHECK((g1 - g2).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, g2.cwiseAbs().maxCoeff()));
          }
}
