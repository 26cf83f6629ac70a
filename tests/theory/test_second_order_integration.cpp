#include "test_support.hpp"

#include "dmlbench/theory/loss_field_integrability.hpp"

#include <random>

using namespace dmlbench::theory;
using dmlbench::test::find;
using Catch::Matchers::WithinAbs;

TEST_CASE("L2nd integrates its weighted gradients: path independence, and the L1st-beta field does not [XHN Sec 5]",
          "[theory][XHN eq 16]") {
  const auto rs = check_second_order_integration();
  const auto& b = find(rs, "xhn-sec5-integrable");
  const auto& c = find(rs, "xhn-sec5-l1st-weights-not-integrable");
  INFO(b.max_error << " " << c.max_error << " " << c.note);
  CHECK(b.verdict == Verdict::verified);
  CHECK_THAT(b.max_error, WithinAbs(0.0, 1e-10));
  CHECK(c.verdict == Verdict::verified);
}

TEST_CASE("curl of the fields: zero for L1st and L2nd, sigma(1-sigma)(1-S_ap-S_an) for weighted L1st [XHN Sec 5]",
          "[theory][XHN eq 16]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 200; ++i) {
    const double x = u(rng), y = u(rng);
    // autodiff derivatives: exact to rounding, a few eps of O(1) terms
    CHECK_THAT(field_curl(SimilarityField::second_order, x, y), WithinAbs(0.0, 1e-15));
    CHECK_THAT(field_curl(SimilarityField::first_order, x, y), WithinAbs(0.0, 1e-15));
    CHECK_THAT(field_curl(SimilarityField::weighted_first_order, x, y),
               WithinAbs(weighted_first_order_curl_closed_form(x, y), 1e-15));
  }
  // the weighted field's curl vanishes exactly on the line S_ap + S_an = 1 and nowhere else
  CHECK_THAT(field_curl(SimilarityField::weighted_first_order, 0.3, 0.7), WithinAbs(0.0, 1e-16));
  CHECK(std::abs(field_curl(SimilarityField::weighted_first_order, 0.9, 0.9)) > 0.1);
}

TEST_CASE("negative control: the path-independence check separates exact from non-exact fields [XHN Sec 5]",
          "[theory][XHN eq 16][negative-control]") {
  const Eigen::Vector2d from(0.1, 0.2), to(0.9, 0.7), corner(0.1, 0.7);
  // L1st's own field is the gradient of L1st: integrable, equal to the loss difference
  const auto s1 = line_integral(SimilarityField::first_order, {from, to});
  const auto b1 = line_integral(SimilarityField::first_order, {from, corner, to});
  const double dl1 = first_order_loss_value(to.x(), to.y()) - first_order_loss_value(from.x(), from.y());
  CHECK_THAT(s1.value, WithinAbs(dl1, 1e-12));
  CHECK_THAT(b1.value, WithinAbs(dl1, 1e-12));
  // the L2nd field integrated against the L1st loss difference: fails by O(0.1)
  const auto s2 = line_integral(SimilarityField::second_order, {from, to});
  CHECK(std::abs(s2.value - dl1) > 1e-2);
  // the weighted field: two paths disagree, and Green's theorem accounts for the gap
  const auto sw = line_integral(SimilarityField::weighted_first_order, {from, to});
  const auto bw = line_integral(SimilarityField::weighted_first_order, {from, corner, to});
  const auto g = curl_over_upper_triangle(SimilarityField::weighted_first_order, from, to);
  CHECK(std::abs(sw.value - bw.value) > 1e-3);
  CHECK_THAT(sw.value - bw.value, WithinAbs(g.value, 1e-10));
}
