#include "test_support.hpp"

#include "dmlbench/theory/entanglement.hpp"

using namespace dmlbench::theory;
using dmlbench::test::find;
using Catch::Matchers::WithinAbs;

namespace {
const std::vector<ClaimResult>& sims() {
  static const auto rs = check_similarity_updates(dmlbench::test::seeded_samples());
  return rs;
}
const std::vector<ClaimResult>& norms() {
  static const auto rs = check_norm_updates(dmlbench::test::seeded_samples());
  return rs;
}
void verified(const std::vector<ClaimResult>& rs, const std::string& id) {
  const auto& r = find(rs, id);
  INFO(id << " max error " << r.max_error << " witness " << r.witness);
  CHECK(r.verdict == Verdict::verified);
  CHECK_THAT(r.max_error, WithinAbs(0.0, kIdentityTolerance));
}
}  // namespace

TEST_CASE("L1st updated similarities [XHN eqs 7-8, 17-18] [XHN-A eq 1]", "[theory][XHN eq 7]") {
  for (const char* id : {"xhn-eq7", "xhn-eq8", "xhn-eq17", "xhn-eq18", "xhna-eq1"}) verified(sims(), id);
}

TEST_CASE("erratum: [XHN-A eq 2] prints (1+b^2) S_ap where S_an belongs", "[theory][XHN-A eq 2][erratum]") {
  const auto& r = find(sims(), "xhna-eq2");
  CHECK(r.verdict == Verdict::erratum);
  REQUIRE(r.corrected_error.has_value());
  CHECK_THAT(*r.corrected_error, WithinAbs(0.0, kIdentityTolerance));
  // witness by hand: S_ap = 0.9, S_an = 0.1, gamma = 0: printed and true differ by (1+b^2)(S_ap - S_an) = 0.8(1+b^2)
  const TripletSimilarities s{0.9, 0.1, spn_from_decomposition(0.9, 0.1, 0.0)};
  const double b = 0.05;
  CHECK_THAT(xhna_eq2_san_new_printed(s, b) - xhn_eq8_san_new(s, b), WithinAbs(0.8 * (1 + b * b), 1e-15));
}

TEST_CASE("L2nd updated similarities [XHN eqs 23-24]", "[theory][XHN eq 23]") {
  for (const char* id : {"xhn-eq23", "xhn-eq24"}) verified(sims(), id);
}

TEST_CASE("vanilla updated similarities [XHN eqs 38-39] [XHN-A eqs 17-18]", "[theory][XHN eq 38]") {
  for (const char* id : {"xhn-eq38", "xhn-eq39", "xhna-eq17", "xhna-eq18"}) verified(sims(), id);
}

TEST_CASE("L1st updated norms [XHN eqs 20-22] [XHN-A eqs 4-6]", "[theory][XHN eq 20]") {
  for (const char* id : {"xhn-eq20", "xhn-eq21", "xhn-eq22", "xhna-eq4", "xhna-eq5", "xhna-eq6"}) verified(norms(), id);
}

TEST_CASE("L2nd updated norms [XHN eqs 25-27]", "[theory][XHN eq 25]") {
  for (const char* id : {"xhn-eq25", "xhn-eq26", "xhn-eq27"}) verified(norms(), id);
}

TEST_CASE("vanilla updated norms [XHN eqs 35-37] [XHN-A eqs 14-16]", "[theory][XHN eq 35]") {
  for (const char* id : {"xhn-eq35", "xhn-eq36", "xhn-eq37", "xhna-eq14", "xhna-eq15", "xhna-eq16"}) verified(norms(), id);
}

TEST_CASE("norms at the awkward points: p = a, gamma = +-1 and 0 [XHN eq 22]", "[theory][XHN eq 22]") {
  // f_p = f_a (S_ap = 1): f_a^new = f_a + b(f_a - f_n), |.|^2 = (1+b)^2 + b^2 - 2b(1+b) S_an
  for (double g : {-1.0, 0.0, 1.0})
    for (double san : {-1.0, 0.0, 0.5, 1.0}) {
      const double b = 0.3;
      CHECK_THAT(xhn_eq22_norm_a_sq(1.0, san, g, b),
                 WithinAbs((1 + b) * (1 + b) + b * b - 2 * b * (1 + b) * san, 1e-15));
    }
  // coplanar p and n on the same side at equal angle (p = n): f_a^new = f_a, norm 1
  CHECK_THAT(xhn_eq22_norm_a_sq(0.3, 0.3, 1.0, 0.7), WithinAbs(1.0, 1e-15));
}
