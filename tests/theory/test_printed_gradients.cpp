#include "test_support.hpp"

#include "dmlbench/theory/entanglement.hpp"

using namespace dmlbench::theory;
using dmlbench::test::find;
using Catch::Matchers::WithinAbs;

namespace {
const std::vector<ClaimResult>& gradient_claims() {
  static const auto rs = check_printed_gradients(dmlbench::test::seeded_samples());
  return rs;
}
}  // namespace

TEST_CASE("L1st gradient step equals eqs 4-6 with beta as printed, vs autodiff [XHN eqs 4-6]", "[theory][XHN eq 4]") {
  const auto& r = find(gradient_claims(), "xhn-eq4-6");
  INFO(r.witness);
  CHECK(r.verdict == Verdict::verified);
  CHECK_THAT(r.max_error, WithinAbs(0.0, kIdentityTolerance));
}

TEST_CASE("L2nd gradient equals the weighted gradients of eqs 13-15 with beta_w, vs autodiff [XHN eqs 13-16]",
          "[theory][XHN eq 16]") {
  const auto& r = find(gradient_claims(), "xhn-eq13-16");
  INFO(r.witness);
  CHECK(r.verdict == Verdict::verified);
  CHECK_THAT(r.max_error, WithinAbs(0.0, kIdentityTolerance));
}

// [XHN-A] names no learning rate: as printed its eqs 11-13 are the unit step f - g, exact; the perturbation (beta = 1)
// is refuted, so the check can fail.
TEST_CASE("the printed update of [XHN-A] eqs 11-13 is the unit step f - g on its eqs 8-10 [XHN-A eqs 11-13]",
          "[theory][XHN-A eq 11]") {
  const auto& r = find(gradient_claims(), "xhna-eq11-13");
  INFO(r.witness);
  CHECK(r.verdict == Verdict::verified);
  CHECK_THAT(r.max_error, WithinAbs(0.0, kIdentityTolerance));
}

TEST_CASE("vanilla triplet gradient has beta = 2 [XHN eqs 29-31]", "[theory][XHN eq 29]") {
  const auto& r = find(gradient_claims(), "xhn-eq29-31");
  INFO(r.witness);
  CHECK(r.verdict == Verdict::verified);
}

TEST_CASE("erratum of notation: the vanilla step of eqs 32-34 drops the learning rate, beta = 2 alpha holds "
          "[XHN eqs 32-34]", "[theory][XHN eq 32][erratum]") {
  const auto& r = find(gradient_claims(), "xhn-eq32-34");
  INFO(r.witness);
  CHECK(r.verdict == Verdict::erratum);
  CHECK(r.corrected_form.rfind("an erratum of notation", 0) == 0);
  REQUIRE(r.corrected_error.has_value());
  CHECK_THAT(*r.corrected_error, WithinAbs(0.0, kIdentityTolerance));
  CHECK(r.max_error > 0.1);  // wrong by O(1) wherever alpha != 1
  // The witness by hand: alpha = 0.1, f_a = e1, f_p = e2, f_n = e3; the gradient step moves f_p by 0.2 (f_a - f_p),
  // eq 32 with beta = 2 moves it by 2 (f_a - f_p).
  Triplet t{Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, 1, 0), Eigen::Vector3d(0, 0, 1)};
  CHECK_THAT(margin_update(t, kMarginGradientBeta).p(0), WithinAbs(2.0, 0.0));
  CHECK_THAT(margin_update(t, margin_step_beta(0.1)).p(0), WithinAbs(0.2, 1e-16));
}

TEST_CASE("negative control: a gradient off by the tolerance is caught by the autodiff comparison [XHN eqs 4-6]",
          "[theory][XHN eq 4][negative-control]") {
  // beta scaled by (1 + 1e-9): one step differs from autodiff by ~1e-9 |f|, a thousand times the tolerance
  const auto& samples = dmlbench::test::seeded_samples();
  std::vector<Sample> some(samples.begin(), samples.begin() + 50);
  const ClaimMeta m{"control", "XHN", "eqs 4-6", "control", kIdentityTolerance, "control"};
  auto r = check_identity(
      m, some,
      [](const Sample& s) {
        const double b = nca_beta(s.s.ap, s.s.an, s.lr) * (1 + 1e-9);
        const Triplet u{s.t.a - b * s.t.n + b * s.t.p, s.t.p + b * s.t.a, s.t.n - b * s.t.a};
        const Triplet v = nca_update(s.t, s.lr);
        return std::max({(u.a - v.a).cwiseAbs().maxCoeff(), (u.p - v.p).cwiseAbs().maxCoeff(),
                         (u.n - v.n).cwiseAbs().maxCoeff()});
      },
      [](const Sample&) { return 0.0; }, {"not under test here", [](const Sample&) { return 0.0; }});
  CHECK(r.verdict == Verdict::refuted);
}
