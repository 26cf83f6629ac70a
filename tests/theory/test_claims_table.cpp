#include "test_support.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

using namespace dmlbench::theory;

namespace {

// The papers whose rows this file pins. A paper registered beside them pins its own rows, whatever their verdicts,
// in its own test, tests/papers/test_<key>.cpp (the key in lower case, '-' as '_'), so that adding a paper edits no
// file of another.
const std::set<std::string> kPinnedHere = {"XHN", "XHN-A", "XGS", "HTL"};

// The own test file a paper's rows are pinned in, relative to the repository.
std::string own_test_file(std::string key) {
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char ch) { return ch == '-' ? '_' : char(std::tolower(ch)); });
  return "tests/papers/test_" + key + ".cpp";
}

// Of `papers`, those pinned neither here nor in their own test file under `source`.
std::vector<std::string> papers_without_pins(const std::set<std::string>& papers, const std::filesystem::path& source) {
  std::vector<std::string> out;
  for (const auto& p : papers)
    if (!kPinnedHere.count(p) && !std::filesystem::exists(source / own_test_file(p))) out.push_back(p);
  return out;
}

}  // namespace

// The pinned verdicts of the four papers' claims: a change of verdict (a printed claim that starts or stops holding)
// fails here.
TEST_CASE("claims table: every item 1-8 has a row and the verdicts are the pinned ones [XHN] [XHN-A] [XGS]",
          "[theory][claims]") {
  const auto rs = all_claims(dmlbench::test::seeded_config(30));
  std::map<std::string, Verdict> got;
  for (const auto& r : rs) {
    INFO(r.id);
    CHECK(got.count(r.id) == 0);  // ids are unique
    if (kPinnedHere.count(r.paper)) got[r.id] = r.verdict;
    CHECK_FALSE(r.paper.empty());
    CHECK_FALSE(r.equation.empty());
    CHECK_FALSE(r.tolerance_reason.empty());
    if (r.verdict == Verdict::erratum) {
      CHECK_FALSE(r.corrected_form.empty());
      CHECK_FALSE(r.witness.empty());
    }
    if (r.verdict == Verdict::refuted) CHECK_FALSE(r.witness.empty());
  }
  const std::set<std::string> errata = {"xhna-eq2", "xhn-eq32-34", "htl-margin-attainable"};
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
  // no pinned count (a new paper's rows would break it): the ids are unique, every paper whose checks are registered
  // gives rows, and test_claim_scopes_complete holds every id against its scope entry, so a dropped row fails there
  std::set<std::string> ids, papers_with_rows;
  for (const auto& r : rs) ids.insert(r.id), papers_with_rows.insert(r.paper);
  CHECK(rs.size() == ids.size());
  for (const auto& [paper, claims] : registered_theory_claims()) CHECK(papers_with_rows.count(paper) == 1);
  CHECK(papers_with_rows.count("XHN-A") == 1);  // checked with XHN's rows (aliases)
  // every other paper's rows are pinned in its own test file
  const std::filesystem::path source = DMLBENCH_SOURCE_DIR;
  const auto unpinned = papers_without_pins(papers_with_rows, source);
  std::string missing;
  for (const auto& p : unpinned) missing += "\n  " + p + ": no " + own_test_file(p);
  INFO("papers whose rows no test pins:" << missing);
  CHECK(unpinned.empty());
  // negative control: a paper without its own test file is named
  CHECK(papers_without_pins({"XHN", "NO-SUCH"}, source) == std::vector<std::string>{"NO-SUCH"});
  CHECK(own_test_file("XHN-A") == "tests/papers/test_xhn_a.cpp");
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
