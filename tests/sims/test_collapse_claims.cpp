#include "dmlbench/sims/collapse_claims.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace dmlbench;

// The pinned verdicts of the [LCC] claims table: a claim that starts or stops holding fails here.
TEST_CASE("claims table of LCC: the pinned verdicts of Sec 4.1, Thm 1, Thm 2, App. B Claims 1-2 [LCC Thm 1] "
          "[LCC Thm 2] [LCC Claim 1]", "[sims][claims]") {
  const auto rs = sims::collapse_claims(Catch::rngSeed());
  const std::map<std::string, theory::Verdict> pinned = {
      {"lcc-sec4.1-clean-rich", theory::Verdict::verified},
      {"lcc-sec4.1-diameter-condition", theory::Verdict::erratum},
      {"lcc-sec4.1-margin-beta", theory::Verdict::erratum},
      {"lcc-thm1", theory::Verdict::verified},
      {"lcc-thm1-proof-gap", theory::Verdict::erratum},
      {"lcc-thm1-all-triples", theory::Verdict::refuted},
      {"lcc-thm2", theory::Verdict::verified},
      {"lcc-thm2-proof-pair-probability", theory::Verdict::erratum},
      {"lcc-claim1", theory::Verdict::verified},
      {"lcc-claim2", theory::Verdict::verified},
      {"lcc-claim3", theory::Verdict::verified},
      {"lcc-claim4", theory::Verdict::verified},
  };
  REQUIRE(rs.size() == pinned.size());
  for (const auto& r : rs) {
    INFO(r.id << ": " << theory::name(r.verdict) << " " << r.witness << " " << r.note);
    REQUIRE(pinned.count(r.id) == 1);
    CHECK(r.verdict == pinned.at(r.id));
    if (r.verdict == theory::Verdict::erratum) CHECK_FALSE(r.corrected_form.empty());
    if (r.verdict != theory::Verdict::verified) CHECK_FALSE(r.witness.empty());
  }
}
