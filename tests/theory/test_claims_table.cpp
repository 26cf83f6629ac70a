#include "test_support.hpp"

#include <map>
#include <set>

using namespace dmlbench::theory;

// The pinned verdicts of every claim: a change of verdict (a printed claim that starts or stops holding) fails here.
TEST_CASE("claims table: every item 1-8 has a row and the verdicts are the pinned ones [XHN] [XHN-A] [XGS]",
          "[theory][claims]") {
  const auto rs = all_claims(dmlbench::test::seeded_config(30));
  std::map<std::string, Verdict> got;
  for (const auto& r : rs) {
    INFO(r.id);
    CHECK(got.count(r.id) == 0);  // ids are unique
    got[r.id] = r.verdict;
    CHECK_FALSE(r.paper.empty());
    CHECK_FALSE(r.equation.empty());
    CHECK_FALSE(r.tolerance_reason.empty());
    if (r.verdict == Verdict::erratum) {
      CHECK_FALSE(r.corrected_form.empty());
      CHECK_FALSE(r.witness.empty());
    }
    if (r.verdict == Verdict::refuted) CHECK_FALSE(r.witness.empty());
  }
  const std::set<std::string> errata = {"xhna-eq2", "xhn-eq32-34", "xhna-eq11-13"};
  const std::set<std::string> refuted = {"xhn-sec6.1-no-top-left"};
  for (const auto& [id, v] : got) {
    INFO(id << " is " << name(v));
    if (errata.count(id)) CHECK(v == Verdict::erratum);
    else if (refuted.count(id)) CHECK(v == Verdict::refuted);
    else CHECK(v == Verdict::verified);
  }
  // one row at least per item of the bench
  for (const char* id : {"xhn-eq19", "xhn-eq4-6", "xhn-eq7", "xhn-eq22", "xhn-eq9-10-l2nd", "xhn-sec5-integrable",
                         "xhn-sec6.1-no-top-left-small-step", "xgs-ms", "xgs-eq20-strength"})
    CHECK(got.count(id) == 1);
  CHECK(rs.size() == 55);
}
