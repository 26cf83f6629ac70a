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
  const std::set<std::string> errata = {"xhna-eq2", "xhn-eq32-34", "xhna-eq11-13", "htl-margin-attainable"};
  const std::set<std::string> refuted = {"xhn-sec6.1-no-top-left"};
  for (const auto& [id, v] : got) {
    INFO(id << " is " << name(v));
    if (errata.count(id)) CHECK(v == Verdict::erratum);
    else if (refuted.count(id)) CHECK(v == Verdict::refuted);
    else CHECK(v == Verdict::verified);
  }
  // one row at least per item of the bench
  for (const char* id : {"xhn-eq19", "xhn-eq4-6", "xhn-eq7", "xhn-eq22", "xhn-eq9-10-l2nd", "xhn-sec5-integrable",
                         "xhn-sec6.1-no-top-left-small-step", "xgs-ms", "xgs-eq20-strength", "htl-class-distance-range"})
    CHECK(got.count(id) == 1);
  // issue 51: no pinned count (a new paper's rows would break it); the ids are unique, every paper whose checks are
  // registered gives rows, and test_claim_scopes_complete holds every id against its scope entry, so a dropped row
  // fails there
  CHECK(rs.size() == got.size());
  std::set<std::string> papers_with_rows;
  for (const auto& r : rs) papers_with_rows.insert(r.paper);
  for (const auto& [paper, claims] : registered_theory_claims()) CHECK(papers_with_rows.count(paper) == 1);
  CHECK(papers_with_rows.count("XHN-A") == 1);  // checked with XHN's rows (aliases)
  // the registry's listing (`dmlbench papers`): one table row a registered paper, in order, and the layers' keys
  const std::string table = papers_markdown();
  std::size_t rows_listed = 0;
  for (std::size_t at = table.find("\n| ["); at != std::string::npos; at = table.find("\n| [", at + 1)) ++rows_listed;
  CHECK(rows_listed == registered_papers().size());
  CHECK(table.find("| [XHN] |") < table.find("| [LCC] |"));
  CHECK_THAT(table, Catch::Contains("| [XGS] | Dissecting the impact of different loss functions with gradient surgery |"));
  CHECK(paper_keys_text("sims") == "[LCC]");
  CHECK_THAT(paper_keys_text("theory"), Catch::StartsWith("[XHN], [XHN-A], [XGS], [HTL]"));
  CHECK_THROWS_WITH(registered_paper("NOPE"), Catch::Contains("no paper NOPE is registered"));
}

// [HTL] Sec 4.2: the printed hinge compares plain distances (>= -2 apart on the sphere) with a margin built from squared
// distances (up to beta + 4 - s): pinned as an erratum. The checker must be able to pass: with beta = -3 every margin
// is below 2 - s and the printed form is attainable (negative control).
TEST_CASE("the HTL margin as printed cannot be met by pairs with alpha_z > 2, with squared distances it can [HTL Sec 4.2]",
          "[theory][claims][HTL]") {
  const auto r = check_htl_margin_attainable(CheckConfig{}, 0.1);
  CHECK(r.verdict == Verdict::erratum);
  CHECK(r.max_error > 0.01);  // some pair's margin lies clearly beyond the attainable 2
  REQUIRE(r.corrected_error.has_value());
  CHECK(*r.corrected_error <= r.tolerance);
  CHECK_THAT(r.witness, Catch::Contains("alpha = "));
  CHECK(r.samples > 100);
  const auto control = check_htl_margin_attainable(CheckConfig{}, -3.0);
  CHECK(control.verdict == Verdict::verified);
  CHECK(control.samples >= r.samples);  // the same trees (none skipped: every s >= -3), only beta changed
  const auto range = check_htl_class_distance_range(CheckConfig{});
  CHECK(range.verdict == Verdict::verified);
  CHECK(range.max_error <= range.tolerance);
}
