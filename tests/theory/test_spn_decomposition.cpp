#include "test_support.hpp"

#include "dmlbench/theory/spn_decomposition.hpp"
#include "dmlbench/theory/triplet_sampler.hpp"

#include <random>

using namespace dmlbench::theory;
using Catch::Matchers::WithinAbs;

TEST_CASE("S_pn decomposition on random triplets in d = 3, 16, 128 [XHN eq 19] [XHN-A eq 3]", "[theory][XHN eq 19]") {
  const auto rs = check_spn_decomposition(dmlbench::test::seeded_samples());
  for (const auto& r : rs) {
    INFO(r.id << " max error " << r.max_error << " witness " << r.witness);
    CHECK(r.verdict == Verdict::verified);
    CHECK_THAT(r.max_error, WithinAbs(0.0, kIdentityTolerance));
    CHECK(r.samples == 3 * (100 + edge_cases().size()));  // d = 3, 16, 128: random triplets and every edge case
  }
}

TEST_CASE("S_pn decomposition at S = +-1 and coplanar / orthogonal gamma [XHN eq 19]", "[theory][XHN eq 19]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const auto frame = random_orthonormal_frame(16, rng);
  // p = a: S_pn = S_an whatever gamma is
  for (double g : {-1.0, 0.0, 1.0}) {
    const auto t = make_triplet(1.0, 0.3, g, frame);
    CHECK_THAT(spn_from_decomposition(1.0, 0.3, g), WithinAbs(t.p.dot(t.n), kIdentityTolerance));
    CHECK(measure_gamma(t) == 0.0);  // undefined direction: reported as 0, its coefficient is 0
  }
  // p = -a: S_pn = -S_an
  CHECK_THAT(spn_from_decomposition(-1.0, 0.3, 0.7), WithinAbs(-0.3, 1e-15));
  // coplanar, same side: the angles add; opposite sides: they subtract. cos(t1 - t2) and cos(t1 + t2).
  const double t1 = 0.4, t2 = 1.1;
  CHECK_THAT(spn_from_decomposition(std::cos(t1), std::cos(t2), 1.0), WithinAbs(std::cos(t1 - t2), 4e-16));
  CHECK_THAT(spn_from_decomposition(std::cos(t1), std::cos(t2), -1.0), WithinAbs(std::cos(t1 + t2), 4e-16));
  // orthogonal planes: gamma = 0 gives S_pn = S_ap S_an
  CHECK_THAT(spn_from_decomposition(0.6, -0.2, 0.0), WithinAbs(-0.12, 1e-16));
}

TEST_CASE("constructed triplets have the similarities and gamma asked for [XHN eq 19]", "[theory][XHN eq 19]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (int d : {3, 16, 128}) {
    for (int i = 0; i < 50; ++i) {
      const double sap = u(rng), san = u(rng), g = u(rng);
      const auto t = make_triplet(sap, san, g, random_orthonormal_frame(d, rng));
      REQUIRE_NOTHROW(require_unit_triplet(t));
      CHECK_THAT(t.a.dot(t.p), WithinAbs(sap, 1e-14));
      CHECK_THAT(t.a.dot(t.n), WithinAbs(san, 1e-14));
      // gamma is recovered with error eps / (|p_perp| |n_perp|); with |S| < 1 - 1e-3 that is below 1e-12
      if (std::abs(sap) < 0.999 && std::abs(san) < 0.999) CHECK_THAT(measure_gamma(t), WithinAbs(g, 1e-12));
    }
  }
}

TEST_CASE("negative control: the identity checker refutes a form wrong by 2 x tolerance, accepts 0.5 x [XHN eq 19]",
          "[theory][XHN eq 19][negative-control]") {
  const auto& samples = dmlbench::test::seeded_samples();
  auto truth = [](const Sample& s) { return s.t.p.dot(s.t.n); };
  auto rhs = [](const Sample& s) { return spn_from_decomposition(s.s.ap, s.s.an, s.gamma); };
  const ClaimMeta m{"control", "XHN", "eq 19", "control", kIdentityTolerance, "control"};
  const Perturbation unused{"not under test here", [](const Sample&) { return 0.0; }};
  const auto off = check_identity(m, samples, [&](const Sample& s) { return rhs(s) + 2 * kIdentityTolerance; }, truth, unused);
  CHECK(off.verdict == Verdict::refuted);
  CHECK_FALSE(off.witness.empty());
  // gamma dropped (the "orthogonal planes" mistake) is refuted; with the right form as correction it is an erratum
  const auto dropped = check_identity(m, samples, [](const Sample& s) { return s.s.ap * s.s.an; }, truth, unused, rhs, "eq 19");
  CHECK(dropped.verdict == Verdict::erratum);
  CHECK(dropped.max_error > 0.1);
  const auto nan = check_identity(m, samples, [](const Sample&) { return std::nan(""); }, truth, unused);
  CHECK(nan.verdict == Verdict::refuted);  // a NaN never passes
  // an error well inside the tolerance (one ulp-scale nudge) stays verified: the checker is not over-strict
  const auto near = check_identity(m, samples, [&](const Sample& s) { return rhs(s) + 0.5 * kIdentityTolerance; }, truth, unused);
  CHECK(near.verdict == Verdict::verified);
}
