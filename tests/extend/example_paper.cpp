// How to add a paper and a theory claim: [EXAMPLE], whose one identity is |a - p|^2 = 2 - 2 a.p on the unit sphere.
// A real paper puts register_paper in theory/papers/<key>.cpp and its checks in theory/src/claims_<key>.cpp.
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

namespace dmlbench::theory {
namespace {

// The claim: the printed form against the truth on explicit unit vectors, and a negative control that must fail.
ClaimResult check_example_unit_distance(const CheckConfig& c) {
  return check_identity(
      {"example-unit-distance", "EXAMPLE", "eq 1", "on the unit sphere |a - p|^2 = 2 - 2 a.p", kIdentityTolerance,
       kIdentityToleranceReason},
      make_samples(c),
      [](const Sample& s) { return 2 - 2 * s.t.a.dot(s.t.p); },           // the printed form
      [](const Sample& s) { return (s.t.a - s.t.p).squaredNorm(); },      // the truth, from the vectors
      {"the factor 2 of a.p dropped", [](const Sample& s) { return 2 - s.t.a.dot(s.t.p); }});
}

std::vector<ClaimResult> example_claims(const CheckConfig& c) { return {check_example_unit_distance(c)}; }

// {key, title, citation, text (its extraction in ../shared/papers/, "" if none), layers, order}
const bool paper_registered = register_paper({"EXAMPLE", "An example paper (tests/extend)",
                                             "none: the example of docs/extend/paper.md", "", {"theory"}, 1000});
const bool claims_registered = register_theory_claims("EXAMPLE", example_claims);

}  // namespace
}  // namespace dmlbench::theory
