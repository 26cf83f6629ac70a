#include "dmlbench/sims/collapse_minimizer.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace dmlbench::sims;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

ObjectiveConfig config(Objective o, int n, int t, double p, Triples tr = Triples::distinct, int dim = 2) {
  ObjectiveConfig c;
  c.objective = o;
  c.model.n = n;
  c.model.t = t;
  c.model.p = p;
  c.model.triples = tr;
  c.alpha = 0.2;
  c.dim = dim;
  return c;
}

MinimizerConfig starts(int restarts) {
  MinimizerConfig mc;
  mc.restarts = restarts;
  mc.seed = Catch::rngSeed();
  return mc;
}

// The embedding of a 1-D toy set as stacked parameters (dim 1).
Eigen::VectorXd line(std::initializer_list<double> xs) {
  Eigen::VectorXd v(Eigen::Index(xs.size()));
  Eigen::Index i = 0;
  for (double x : xs) v(i++) = x;
  return v;
}

}  // namespace

// A minimizer is judged by its objective against the proof's candidate and by its structure, not by coordinates.
// Objective tolerance 1e-7: L-BFGS stops on function tolerance 1e-15 relative, but the exact objective is piecewise
// linear and the last stage ends within ~1e-8 of a kink; structure tolerance: the single-linkage threshold
// 0.05 sqrt(alpha) = 0.022.

TEST_CASE("Theorem 1: every minimizer of E O_trip is class-collapsed at squared gap alpha, p in (0.5,1) "
          "[LCC Thm 1]", "[sims][LCC Thm 1]") {
  for (int t : {2, 3})
    for (double p : {0.55, 0.7, 0.9})
      for (int n : {12, 24}) {
        if (n % t) continue;
        const auto c = config(Objective::triplet, n, t, p);
        const auto k = proof_candidate(c);
        for (const auto& r : minimize_from_random_starts(c, starts(2))) {
          INFO("t=" << t << " p=" << p << " n=" << n << " restart " << r.restart << " objective " << r.final_objective
                    << " candidate " << k.objective);
          CHECK(r.structure.collapsed);
          CHECK(r.final_objective <= k.objective + 1e-7);
          // the gap between collapsed classes is the proof's: squared distance alpha
          CHECK_THAT(r.structure.min_interclass_sq_distance, WithinAbs(c.alpha, 1e-4));
          CHECK_THAT(r.structure.max_interclass_sq_distance, WithinAbs(c.alpha, 1e-4));
        }
      }
}

TEST_CASE("erratum: the proof of Theorem 1 concludes |f(x_j) - f(x_i)| = alpha, with D squared it is "
          "|f(x_j) - f(x_i)|^2 = alpha [LCC Thm 1]", "[sims][LCC Thm 1][erratum]") {
  const auto c = config(Objective::triplet, 12, 2, 0.8);
  const auto r = minimize_from_random_starts(c, starts(1)).front();
  REQUIRE(r.structure.collapsed);
  const double gap = std::sqrt(r.structure.min_interclass_sq_distance);
  CHECK(std::abs(gap - c.alpha) > 0.2);                        // printed: distance alpha = 0.2 (fails: 0.447)
  CHECK_THAT(gap, WithinAbs(std::sqrt(c.alpha), 1e-4));        // corrected: distance sqrt(alpha)
  // and the collapsed embedding at distance alpha is worse than at sqrt(alpha)
  const double at_alpha = expected_objective(c, collapsed_embedding(c, c.alpha * c.alpha, 0).data(), nullptr);
  CHECK(at_alpha > proof_candidate(c).objective + 1e-3);
}

TEST_CASE("Theorem 1 needs distinct indices: with the printed sum over all (i,j,k), j = i included, the minimizer "
          "at p = 0.55, n = 24 is not collapsed and beats the collapsed candidate [LCC Thm 1]",
          "[sims][LCC Thm 1][refuted]") {
  const auto c = config(Objective::triplet, 24, 2, 0.55, Triples::all);
  const auto k = proof_candidate(c);
  // the best collapsed embedding: scan the squared gap (the candidate's alpha is the best of the family)
  double best_collapsed = INFINITY;
  for (double g = 0.02; g <= 1.0; g += 0.01)
    best_collapsed = std::min(best_collapsed, expected_objective(c, collapsed_embedding(c, g, 0).data(), nullptr));
  CHECK(best_collapsed >= k.objective - 1e-12);
  const auto runs = minimize_from_random_starts(c, starts(2));
  for (const auto& r : runs) {
    INFO("objective " << r.final_objective << " collapsed candidate " << k.objective);
    CHECK_FALSE(r.structure.collapsed);
    CHECK(r.final_objective < best_collapsed - 1e-4);
  }
  // at p = 0.8 the same convention still collapses
  const auto c8 = config(Objective::triplet, 12, 2, 0.8, Triples::all);
  for (const auto& r : minimize_from_random_starts(c8, starts(2))) CHECK(r.structure.collapsed);
}

TEST_CASE("Theorem 2: every minimizer of E O_margin is class-collapsed with D = 2 alpha between classes and "
          "beta = alpha, where P(Y_i = Y_j) > 1/2 within a class [LCC Thm 2]", "[sims][LCC Thm 2]") {
  // t = 2: P(same label | same class) = p^2 + q^2 > 1/2 for every p != 1/2; t = 3: needs p > 2/3
  for (auto [t, p] : {std::pair{2, 0.55}, {2, 0.8}, {3, 0.8}}) {
    const auto c = config(Objective::margin, 12, t, p);
    const auto k = proof_candidate(c);
    for (const auto& r : minimize_from_random_starts(c, starts(2))) {
      INFO("t=" << t << " p=" << p << " objective " << r.final_objective << " candidate " << k.objective);
      CHECK(r.structure.collapsed);
      CHECK(r.final_objective <= k.objective + 1e-7);
      CHECK_THAT(r.structure.min_interclass_sq_distance, WithinAbs(2 * c.alpha, 1e-3));
      const Eigen::VectorXd beta = r.x.tail(c.model.n);
      CHECK_THAT(beta.minCoeff(), WithinAbs(c.alpha, 1e-3));
      CHECK_THAT(beta.maxCoeff(), WithinAbs(c.alpha, 1e-3));
    }
  }
}

TEST_CASE("erratum in the proof of Theorem 2: it takes P(Y_i = Y_j) = p within a class, it is p^2 + (t-1) q'^2, "
          "below 1/2 for t = 3, p < 2/3, where the minimizer puts every point in one place [LCC Thm 2]",
          "[sims][LCC Thm 2][erratum]") {
  NoisyLabelModel m{12, 3, 0.6, Triples::distinct};
  const double q = m.q();
  CHECK_THAT(m.same_label(0, 0), WithinAbs(0.6 * 0.6 + 2 * q * q, 1e-15));  // corrected form
  CHECK(std::abs(m.same_label(0, 0) - m.p) > 0.1);                       // printed form p fails
  CHECK(m.same_label(0, 0) < 0.5);
  const auto c = config(Objective::margin, 12, 3, 0.6);
  const auto k = proof_candidate(c);
  for (const auto& r : minimize_from_random_starts(c, starts(2))) {
    INFO("objective " << r.final_objective << " candidate " << k.objective);
    CHECK(r.final_objective < k.objective - 1e-3);
    CHECK(r.structure.collapsed);                                  // still class-collapsed (trivially) ...
    CHECK(r.structure.max_interclass_sq_distance < 1e-6);          // ... all classes on one point
    CHECK_THAT(r.x.tail(c.model.n).maxCoeff(), WithinAbs(-c.alpha, 1e-3));  // beta = -alpha
  }
}

TEST_CASE("the contrastive objective collapses every class by construction, even with clean labels [LCC Sec 4.1]",
          "[sims][LCC Sec 4.1]") {
  for (double p : {1.0, 0.8}) {
    const auto c = config(Objective::contrastive, 12, 2, p);
    for (const auto& r : minimize_from_random_starts(c, starts(2))) CHECK(r.structure.collapsed);
  }
}

TEST_CASE("clean labels (p = 1): zero E O_trip is reached by embeddings that are not class-collapsed "
          "[LCC Sec 4.1]", "[sims][LCC Sec 4.1]") {
  const auto c = config(Objective::triplet, 12, 2, 1.0);
  int rich = 0;
  for (const auto& r : minimize_from_random_starts(c, starts(4))) {
    CHECK(r.final_objective == 0.0);
    rich += !r.structure.collapsed;
  }
  CHECK(rich == 4);
}

TEST_CASE("erratum: diam(f(A)) < 2 alpha + |f(A) - f(B)| does not give zero triplet loss, diam^2 + alpha <= "
          "gap^2 does [LCC Sec 4.1]", "[sims][LCC Sec 4.1][erratum]") {
  auto c = config(Objective::triplet, 4, 2, 1.0, Triples::distinct, 1);
  // witness: A = {0, 0.4}, B = {0.5, 0.9}; diam 0.4 < 2 alpha + gap = 0.5, yet a = 0, p = 0.4, n = 0.5 violates the
  // margin: D_ap - D_an + alpha = 0.16 - 0.25 + 0.2 = 0.11 > 0
  const auto witness = line({0.0, 0.4, 0.5, 0.9});
  CHECK(expected_objective(c, witness.data(), nullptr) > 0.01);
  // corrected condition, property test: random two-class embeddings with diam^2 + alpha <= gap^2 give exactly 0
  std::mt19937_64 rng(Catch::rngSeed());
  std::uniform_real_distribution<double> u(0, 1);
  c.model.n = 8;
  c.dim = 3;
  for (int trial = 0; trial < 200; ++trial) {
    const double diam = 0.5 * u(rng), gap = std::sqrt(diam * diam + c.alpha) + 0.01 * u(rng);
    Eigen::VectorXd x(c.parameters());
    for (int i = 0; i < c.model.n; ++i) {
      Eigen::Vector3d v(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
      v *= diam / 2 / std::max(1e-12, v.norm()) * u(rng);  // inside a ball of diameter diam
      if (c.model.class_of(i) == 1) v.x() += diam + gap;   // ball centres diam + gap apart: distance >= gap
      x.segment(3 * i, 3) = v;
    }
    CHECK(expected_objective(c, x.data(), nullptr) == 0.0);
  }
}

TEST_CASE("erratum: with beta = alpha the margin loss is zero only on collapsed classes, beta = alpha + diam^2 and "
          "gap^2 >= diam^2 + 2 alpha give zero [LCC Sec 4.1]", "[sims][LCC Sec 4.1][erratum]") {
  auto c = config(Objective::margin, 4, 2, 1.0, Triples::distinct, 1);
  const double a = c.alpha, diam = 0.3, gap = std::sqrt(diam * diam + 2 * a);
  Eigen::VectorXd x(c.parameters());
  x << 0.0, diam, diam + gap, 2 * diam + gap, a, a, a, a;  // rich embedding, beta = alpha as printed
  CHECK(expected_objective(c, x.data(), nullptr) > 0.01);
  x.tail(4).setConstant(a + diam * diam);                  // corrected beta
  CHECK_THAT(expected_objective(c, x.data(), nullptr), WithinAbs(0.0, 1e-15));
}

TEST_CASE("phase diagram regions, pinned at a few points: triplet with all triples (t = 2) collapses from p = 0.65, "
          "not at p = 0.55, and at p = 0.6 only for large n, margin with t = 3 has the proof's structure only for "
          "p > 2/3 [LCC Thm 1] [LCC Thm 2]", "[sims][LCC Thm 1][LCC Thm 2][phase]") {
  struct Pin {
    Objective o;
    Triples tr;
    int t, n;
    double p;
    bool collapsed, proof_structure;
  };
  const Pin pins[] = {
      {Objective::triplet, Triples::all, 2, 12, 0.55, false, false},
      {Objective::triplet, Triples::all, 2, 12, 0.65, true, true},
      {Objective::triplet, Triples::all, 2, 12, 0.6, false, false},
      {Objective::triplet, Triples::all, 2, 48, 0.6, true, true},
      {Objective::triplet, Triples::all, 3, 12, 0.55, true, true},
      {Objective::margin, Triples::distinct, 3, 12, 0.65, true, false},
      {Objective::margin, Triples::distinct, 3, 12, 0.7, true, true},
  };
  for (const auto& pin : pins) {
    const auto c = config(pin.o, pin.n, pin.t, pin.p, pin.tr);
    const auto k = proof_candidate(c);
    const double gap = pin.o == Objective::margin ? 2 * c.alpha : c.alpha;
    for (const auto& r : minimize_from_random_starts(c, starts(2))) {
      INFO(name(pin.o) << " " << name(pin.tr) << " t=" << pin.t << " n=" << pin.n << " p=" << pin.p << ": objective "
                       << r.final_objective << ", candidate " << k.objective << ", gap^2 "
                       << r.structure.min_interclass_sq_distance);
      CHECK(r.structure.collapsed == pin.collapsed);
      const bool proof = r.structure.collapsed && std::abs(r.structure.min_interclass_sq_distance - gap) < 1e-3 &&
                         r.final_objective <= k.objective + 1e-7;
      CHECK(proof == pin.proof_structure);
    }
  }
}
