// The rules by which a row counts against its paper: a direction that turns under equal tuning is contested; the
// papers' own rows form their own decision family apart from the bench's extensions; every finding on a paper's own
// statements stands on that paper's sheet with its quote, place, reading and reproduce command; a statement whose
// premise the bench's run does not reach is judged premise-not-reached.
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_checked_on.hpp"
#include "dmlbench/experiments/report_claim_premise.hpp"
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/report_paper_sheets.hpp"
#include "dmlbench/experiments/report_sentence_rows.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"
#include "dmlbench/experiments/report_tuned_verdicts.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

namespace ex = dmlbench::experiments;
namespace fs = std::filesystem;

namespace {

// A training row of 10 seeds whose per-seed differences are m + a fixed spread (sd about 0.3), the paper's side above.
ex::ClaimRow training_row(const std::string& id, double m, const std::string& scope = "as-printed") {
  const std::vector<double> z = {-0.4, -0.3, -0.2, -0.1, 0, 0.05, 0.15, 0.2, 0.3, 0.3};
  ex::ClaimSides s;
  s.baseline = std::vector<double>{};
  for (std::size_t i = 0; i < z.size(); ++i) {
    s.baseline->push_back(50 + double(i));
    s.treatment.push_back(s.baseline->back() + m + z[i]);
  }
  s.delta = 0.5;
  s.delta_reason = "a test";
  ex::ClaimRow r;
  r.id = id;
  r.paper = "LCC";
  r.where = "Table 1";
  r.layer = "experiments";
  r.statement = "S-" + id;
  r.scope.scope = scope;
  r.scope.quote = "Q-" + id;
  r.statistics = ex::claim_statistics(s);
  return r;
}

// A row with only its id and verdict (a theory row, or another row a premise names).
ex::ClaimRow verdict_row(const std::string& id, const std::string& verdict) {
  ex::ClaimRow r;
  r.id = id;
  r.verdict = verdict;
  return r;
}

// The two rows the premise rule is for and the theory row [HTL]'s names: [LCC] Table 4's cell presumes a baseline
// that fits the training set (99.9 printed), which the bench's baseline arm does not reach (its means near 50-59
// here); [HTL]'s abstract presumes a loss that can meet its margin, which htl-margin-attainable finds it cannot as
// printed (an erratum).
std::tuple<ex::ClaimRow, ex::ClaimRow, ex::ClaimRow> premise_rows() {
  ex::ClaimRow table4 = training_row("lcc-table4-r1-train-alphabets-paper-baseline", -3);
  table4.scope.premise = ex::ClaimPremise{"the baseline fits the training set", "", "", "baseline", 95};
  ex::ClaimRow htl = training_row("htl-r1-vs-random", -3);
  htl.scope.premise = ex::ClaimPremise{"the printed loss can meet its margin", "htl-margin-attainable", "verified", "", 0};
  ex::ClaimRow margin = verdict_row("htl-margin-attainable", "erratum");
  margin.layer = "theory";
  return {table4, htl, margin};
}

}  // namespace

TEST_CASE("counting rule [LCC Table 1]: a direction that turns with both arms tuned alike is contested, not refuted",
          "[report][counting]") {
  std::vector<ex::ClaimRow> rows = {training_row("turns", -3), training_row("holds", -3), training_row("open", -3)};
  ex::decide_training_claims(rows, ex::PAdjustment::holm);
  REQUIRE(rows[0].verdict == "refuted");
  ex::TunedVerdicts t;
  t.rows = {training_row("turns", 3), training_row("holds", -3), training_row("open", 0.01)};
  ex::decide_training_claims(t.rows, ex::PAdjustment::holm);
  REQUIRE(t.rows[0].verdict == "verified");
  const auto marked = ex::mark_contested(rows, t);
  CHECK(marked == std::vector<std::string>{"turns"});
  CHECK(rows[0].verdict == "contested");
  CHECK_THAT(rows[0].note, Catch::StartsWith("refuted at the default settings, verified with both arms tuned"));
  CHECK(rows[0].statistics["outcome"] == "refuted");  // the default decision is kept
  // the controls: a tuned row in the same direction, and one that decides nothing, leave the verdict as it is
  CHECK(rows[1].verdict == "refuted");
  CHECK(rows[2].verdict == "refuted");
  // the tuned table reads the default row's own outcome: the flip is shown as it is
  CHECK(ex::robustness(t.rows[0], rows) == "reversed");
}

TEST_CASE("counting rule: the papers' own training rows are decided as a family apart from the extensions",
          "[report][counting]") {
  // two own rows and two extension rows; each family of 2 at Bonferroni reads at 0.05 / 2
  std::vector<ex::ClaimRow> rows = {training_row("own-a", 3), training_row("own-b", 3),
                                    training_row("ext-a", 3, "extension"), training_row("ext-b", 3, "variant")};
  ex::decide_training_claims(rows, ex::PAdjustment::holm);
  for (const auto& r : rows) {
    INFO(r.id);
    CHECK(r.statistics["decision"]["family_size"] == 2);
    CHECK(r.statistics["decision"]["family"] == ex::training_family_of(r));
  }
  CHECK(ex::training_family_of(rows[0]) == "the papers' own statements");
  CHECK(ex::training_family_of(rows[2]) == "extensions and variants");
  const std::string counts = ex::training_outcome_counts_text(rows, ex::PAdjustment::holm);
  CHECK_THAT(counts, Catch::Contains("the papers' own statements: 2 rows") &&
                         Catch::Contains("extensions and variants: 2 rows"));
  // the control: rows without scopes are one family of 4
  std::vector<ex::ClaimRow> plain = {training_row("a", 3, ""), training_row("b", 3, ""), training_row("c", 3, ""),
                                     training_row("d", 3, "")};
  ex::decide_training_claims(plain, ex::PAdjustment::holm);
  CHECK(plain[0].statistics["decision"]["family_size"] == 4);
  CHECK_FALSE(plain[0].statistics["decision"].contains("family"));
}

TEST_CASE("erratum sheets: each finding on a paper's own statements with its quote, place, reading and command",
          "[report][counting]") {
  std::vector<ex::ClaimRow> rows = {training_row("refuted-own", -3), training_row("verified-own", 3),
                                    training_row("refuted-ext", -3, "extension")};
  ex::decide_training_claims(rows, ex::PAdjustment::holm);
  rows[0].scope.assumptions = {"A-fixed"};
  const std::map<std::string, std::string> commands = {
      {"refuted-own", "dmlbench reproduce --file x.json --profile default --out <dir>"}};
  const auto sheets = ex::paper_sheets_markdown(rows, commands);
  REQUIRE(sheets.count("LCC") == 1);
  const std::string& md = sheets.at("LCC");
  CHECK_THAT(md, Catch::Contains("### `refuted-own`: refuted") && Catch::Contains("([LCC] Table 1): Q-refuted-own") &&
                     Catch::Contains("fixed by the check, left free by the paper: A-fixed") &&
                     Catch::Contains("**Reproduce**: `dmlbench reproduce --file x.json") &&
                     Catch::Contains("**What would change it**"));
  CHECK_THAT(md, Catch::Contains("| `verified-own` | Table 1 | S-verified-own | verified |"));
  CHECK_THAT(md, !Catch::Contains("refuted-ext"));  // an extension counts for no paper
  // a finding with a tuned twin shows what equal tuning of both arms gives beside it; one without shows nothing
  CHECK_THAT(md, !Catch::Contains("With both arms tuned alike"));
  const auto tuned = ex::paper_sheets_markdown(rows, commands, {{"refuted-own", "inconclusive (fragile): T-evidence"}});
  CHECK_THAT(tuned.at("LCC"), Catch::Contains("- **With both arms tuned alike** (the committed study's best settings "
                                              "per arm): inconclusive (fragile): T-evidence"));
  CHECK_THAT(ex::paper_sheets_index_markdown(rows), Catch::Contains("- [[LCC]](papers/LCC.md): 1 refuted, 1 verified"));
  // the negative controls: a finding without its quote, or without a command, is refused naming the row and field
  auto no_quote = rows;
  no_quote[0].scope.quote.clear();
  CHECK_THROWS_WITH(ex::paper_sheets_markdown(no_quote, commands),
                    Catch::Contains("sheet LCC: row refuted-own: no quote"));
  CHECK_THROWS_WITH(ex::paper_sheets_markdown(rows, {}), Catch::Contains("row refuted-own: no reproduce command"));
  auto no_place = rows;
  no_place[0].where.clear();
  CHECK_THROWS_WITH(ex::paper_sheets_markdown(no_place, commands), Catch::Contains("no place"));
}

// The two rows the rule is for, built as the report builds them (premise_rows).
TEST_CASE("counting rule [LCC Table 4][HTL abstract]: a statement whose premise the run does not reach is "
          "premise-not-reached, not refuted, and a reached premise moves nothing", "[report][counting]") {
  const auto [table4, htl, margin] = premise_rows();
  // the controls: the same premises reached (a baseline above 95, a margin row verified), and a row with no premise
  ex::ClaimRow fits = training_row("fits", -3);
  fits.scope.premise = ex::ClaimPremise{"the baseline fits the training set", "", "", "baseline", 40};
  ex::ClaimRow reached = training_row("reached", -3);
  reached.scope.premise = ex::ClaimPremise{"a row holds", "open-row", "verified", "", 0};
  const ex::ClaimRow open_row = verdict_row("open-row", "verified");
  std::vector<ex::ClaimRow> rows = {table4, htl, fits, reached, training_row("plain", -3)};
  ex::decide_training_claims(rows, ex::PAdjustment::holm);
  for (const auto& r : rows) REQUIRE(r.verdict == "refuted");
  rows.push_back(margin);
  rows.push_back(open_row);
  const auto marked = ex::mark_premise_not_reached(rows);
  CHECK(marked == std::vector<std::string>{"lcc-table4-r1-train-alphabets-paper-baseline", "htl-r1-vs-random"});
  CHECK(rows[0].verdict == "premise-not-reached");
  CHECK_THAT(rows[0].note, Catch::Contains("the baseline arm's mean 54.5 over 10 seeds (the premise needs at least "
                                           "95.0), not reached") && Catch::Contains("refuted read without its premise"));
  CHECK(rows[1].verdict == "premise-not-reached");
  CHECK_THAT(rows[1].note, Catch::Contains("htl-margin-attainable is erratum (the premise needs verified)"));
  CHECK(rows[0].statistics["outcome"] == "refuted");  // the decision without the premise is kept
  CHECK(rows[2].verdict == "refuted");
  CHECK_THAT(rows[2].note, Catch::Contains(", reached."));
  CHECK(rows[3].verdict == "refuted");
  CHECK(rows[4].verdict == "refuted");
  CHECK(ex::sheet_finding("premise-not-reached"));
  // a premise that names no row, or a side the row lacks, is an error naming the row
  ex::ClaimRow lost = training_row("lost", -3);
  lost.scope.premise = ex::ClaimPremise{"x", "no-such-row", "verified", "", 0};
  std::vector<ex::ClaimRow> bad = {lost};
  CHECK_THROWS_WITH(ex::mark_premise_not_reached(bad), Catch::Contains("row lost: its premise row no-such-row"));
  ex::ClaimRow theory_side;
  theory_side.id = "theory-side";
  theory_side.scope.premise = ex::ClaimPremise{"x", "", "", "baseline", 1};
  bad = {theory_side};
  CHECK_THROWS_WITH(ex::mark_premise_not_reached(bad), Catch::Contains("row theory-side: its premise reads the baseline"));
}

// A tuned twin is judged on its premise as its default row is: the default row's scope, the premise read from the
// tuned runs (a side's mean) or from the report's rows (another row's verdict).
TEST_CASE("counting rule [LCC Table 4][HTL abstract]: the tuned twins are judged on the same premises",
          "[report][counting]") {
  const auto [table4, htl, margin] = premise_rows();
  std::vector<ex::ClaimRow> defaults = {table4, htl, training_row("plain", -3)};
  ex::decide_training_claims(defaults, ex::PAdjustment::holm);
  defaults.push_back(margin);
  ex::TunedVerdicts t;  // the twins as the tuned stages give them: no scope of their own
  for (const auto* id : {"lcc-table4-r1-train-alphabets-paper-baseline", "htl-r1-vs-random", "plain"})
    t.rows.push_back(training_row(id, -3));
  ex::decide_training_claims(t.rows, ex::PAdjustment::holm);
  auto fits = t;  // the control: a tuned baseline that fits the training set reaches its premise
  fits.rows[0].statistics["baseline"]["mean"] = 99.0;
  CHECK(ex::mark_tuned_premises(t, defaults) ==
        std::vector<std::string>{"lcc-table4-r1-train-alphabets-paper-baseline", "htl-r1-vs-random"});
  CHECK(t.rows[0].verdict == "premise-not-reached");
  CHECK_THAT(t.rows[0].note, Catch::Contains("the baseline arm's mean 54.5 over 10 seeds"));
  CHECK(t.rows[1].verdict == "premise-not-reached");
  CHECK(t.rows[2].verdict == "refuted");  // no premise
  CHECK(defaults[0].verdict == "refuted");  // the default rows are read, not marked
  CHECK(ex::mark_tuned_premises(fits, defaults) == std::vector<std::string>{"htl-r1-vs-random"});
  CHECK(fits.rows[0].verdict == "refuted");
}

// The committed scope entries carry the two premises the rule is for.
TEST_CASE("counting rule: the committed scopes give [LCC] Table 4's paper-baseline row and [HTL]'s R@1 row their "
          "premises", "[report][counting]") {
  const auto scopes = ex::read_claim_scopes(DMLBENCH_SOURCE_DIR);
  REQUIRE(scopes.at("lcc-table4-r1-train-alphabets-paper-baseline").premise.has_value());
  CHECK(scopes.at("lcc-table4-r1-train-alphabets-paper-baseline").premise->side == "baseline");
  REQUIRE(scopes.at("htl-r1-vs-random").premise.has_value());
  CHECK(scopes.at("htl-r1-vs-random").premise->row == "htl-margin-attainable");
  CHECK_FALSE(scopes.at("lcc-table4-r1-train-alphabets").premise.has_value());  // the control: its variant twin
}

// [XHN] Sec 6.2's "a clear gap of L1st and L2nd with EPHN" is checked at n = 2, 4, 8, 16 (four extensions) and judged
// once, by every part; Sec 6.3's "for most choices of the group size n" by more than half of them.
TEST_CASE("counting rule [XHN Sec 6.2][XHN Sec 6.3]: one sentence checked in parts is judged once, from its parts by "
          "its rule", "[report][counting]") {
  using V = std::vector<std::string>;
  CHECK(ex::sentence_verdict(V{"verified", "verified", "verified", "verified"}, "all") == "verified");
  CHECK(ex::sentence_verdict(V{"verified", "inconclusive", "refuted", "refuted"}, "all") == "refuted");
  CHECK(ex::sentence_verdict(V{"verified", "inconclusive", "verified", "verified"}, "all") == "inconclusive");
  CHECK(ex::sentence_verdict(V{"verified", "verified", "verified", "refuted"}, "most") == "verified");
  CHECK(ex::sentence_verdict(V{"verified", "verified", "refuted", "refuted"}, "most") == "refuted");
  CHECK(ex::sentence_verdict(V{"inconclusive", "inconclusive", "inconclusive", "inconclusive"}, "most") ==
        "inconclusive");
  CHECK(ex::sentence_verdict(V{"verified", "verified", "inconclusive", "inconclusive"}, "most") == "inconclusive");
  CHECK_THROWS_AS(ex::sentence_verdict(V{"verified"}, "some"), std::invalid_argument);
  // the row: added after its parts, its scope the sentence's, its measured column each part's verdict
  std::vector<ex::ClaimRow> rows;
  for (const char* id : {"gap-n2", "gap-n8"}) {
    ex::ClaimRow r;
    r.id = id;
    r.paper = "XHN";
    r.scope.scope = "extension";
    r.verdict = std::string(id) == "gap-n2" ? "verified" : "refuted";
    rows.push_back(r);
  }
  ex::ClaimScope sentence;
  sentence.id = "gap";
  sentence.paper = "XHN";
  sentence.scope = "as-printed";
  sentence.sentence = ex::ClaimSentence{{"gap-n2", "gap-n8"}, "all", "Sec 6.2", "a gap at every n"};
  const std::map<std::string, ex::ClaimScope> scopes = {{"gap", sentence}};
  CHECK(ex::add_sentence_rows(rows, scopes) == std::vector<std::string>{"gap"});
  REQUIRE(rows.size() == 3);
  CHECK(rows[2].verdict == "refuted");
  CHECK(rows[2].measured == "its parts: gap-n2: verified; gap-n8: refuted (rule: every part)");
  CHECK(ex::judges_the_paper(rows[2].scope.scope));
  // the controls: a part that still judges the paper itself, and a part that is no row, are refused
  rows.pop_back();
  rows[1].scope.scope = "as-printed";
  CHECK_THROWS_WITH(ex::add_sentence_rows(rows, scopes), Catch::Contains("its part gap-n8 must be an extension"));
  rows.pop_back();
  CHECK_THROWS_WITH(ex::add_sentence_rows(rows, scopes), Catch::Contains("its part gap-n8 is no claim row"));
  rows.clear();  // no part at all (a report without their stage): no row, no error
  CHECK(ex::add_sentence_rows(rows, scopes).empty());
}

TEST_CASE("counting rule: the committed scopes judge [XHN]'s three sentences checked by group size once each",
          "[report][counting]") {
  const auto scopes = ex::read_claim_scopes(DMLBENCH_SOURCE_DIR);
  std::size_t sentences = 0;
  for (const auto& [id, s] : scopes) {
    if (!s.sentence) continue;
    ++sentences;
    INFO(id);
    CHECK(ex::judges_the_paper(s.scope));
    for (const auto& part : s.sentence->rows) CHECK(scopes.at(part).scope == "extension");
  }
  CHECK(sentences == 3);
  CHECK(scopes.at("xhn-sec6.3-l2nd-ephn-above-epshn").sentence->rule == "most");
  CHECK_FALSE(scopes.at("xhn-fig4-l2nd-ephn-above-epshn-n2").sentence.has_value());  // the control: a part
}

// The rule that a verdict says the domain and settings it was checked on, and that the paper's statement covers more
// where the run differs from the paper: a training row's "data:" deviation is its domain, its other deviations'
// labels its settings; a theory row is checked on its sampled points, which a witness settles and a verification does
// not exhaust.
TEST_CASE("counting rule: a verdict says the data and settings it was checked on, and where the paper's statement "
          "covers more", "[report][counting]") {
  auto row = training_row("glyph-row", 3);
  row.scope.deviations = {"data: the glyph proxy (20 scripts) instead of Omniglot", "network: Conv-4 instead of "
                          "ResNet-50", "schedule: 150 steps", "a sentence without a label"};
  const auto c = ex::checked_on(row);
  CHECK(c.domain == "the glyph proxy (20 scripts)");
  CHECK(c.settings == std::vector<std::string>{"network", "schedule"});
  CHECK(c.paper_covers_more);
  CHECK_THAT(c.text, Catch::StartsWith("Checked on the glyph proxy (20 scripts), with the bench's network and "
                                       "schedule and 1 further deviation: the verdict is about these"));
  // the control: a training row with no deviation is checked on the paper's settings, and says so
  auto plain = training_row("plain-row", 3);
  const auto p = ex::checked_on(plain);
  CHECK_FALSE(p.paper_covers_more);
  CHECK_THAT(p.text, Catch::Contains("the paper's settings as the bench reads them"));
  // theory rows: a verified universal statement covers more than its sample; a witness settles a refutation
  auto verified = verdict_row("theory-verified", "verified");
  verified.layer = "theory";
  auto refuted = verdict_row("theory-refuted", "refuted");
  refuted.layer = "theory";
  refuted.witness = "at x = 1";
  CHECK(ex::checked_on(verified).paper_covers_more);
  CHECK_FALSE(ex::checked_on(refuted).paper_covers_more);
  // in a sheet, each finding carries it
  std::vector<ex::ClaimRow> rows = {training_row("refuted-own", -3)};
  rows[0].scope.deviations = row.scope.deviations;
  ex::decide_training_claims(rows, ex::PAdjustment::holm);
  const auto sheets = ex::paper_sheets_markdown(rows, {{"refuted-own", "dmlbench reproduce --file x.json"}});
  CHECK_THAT(sheets.at("LCC"), Catch::Contains("- **What the verdict covers**: Checked on the glyph proxy (20 scripts)"));
}

// Every committed training scope names its data: each training verdict says what it was checked on.
TEST_CASE("counting rule: every committed training row's scope names the data it was checked on",
          "[report][counting]") {
  const auto scopes = ex::read_claim_scopes(DMLBENCH_SOURCE_DIR);
  std::size_t training = 0;
  for (const auto& [id, s] : scopes) {
    if (s.layer != "experiments") continue;
    ++training;
    ex::ClaimRow r;
    r.id = id;
    r.layer = "experiments";
    r.scope = s;
    INFO(id);
    CHECK(ex::checked_on(r).domain != "the paper's data as the bench reads it");
  }
  CHECK(training >= 60);
}

// Each committed sheet entry's reproduce command runs the reproduction that decides the row: one whose rows enter the
// claims table (not a probe that lists the same claims under changed training) and that lists the claim, or the first
// part of a sentence judged from its parts.
TEST_CASE("erratum sheets: each committed entry's reproduce command names the reproduction that decides its row",
          "[report][counting]") {
  const fs::path src = DMLBENCH_SOURCE_DIR;
  const auto scopes = ex::read_claim_scopes(src.string());
  const auto decides = [&](const std::string& file, const std::string& id) {
    const auto it = scopes.find(id);
    const std::string claim = it != scopes.end() && it->second.sentence ? it->second.sentence->rows.front() : id;
    const auto j = nlohmann::json::parse(std::ifstream(src / file));
    bool listed = false;
    for (const auto& m : j.at("metrics")) listed = listed || m.value("claim", "") == claim;
    return j.value("claims", true) && listed;
  };
  const std::regex entry(R"(### `([^`]+)`:)"), command(R"(\*\*Reproduce\*\*: `dmlbench reproduce --file (\S+))");
  std::size_t checked = 0;
  for (const auto& sheet : fs::directory_iterator(src / "reports/papers")) {
    std::ifstream in(sheet.path());
    std::string line, id;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, entry)) id = m[1];
      if (!std::regex_search(line, m, command)) continue;
      INFO(sheet.path().filename().string() << ": " << id << " -> " << m[1]);
      CHECK(decides(m[1], id));
      ++checked;
    }
  }
  CHECK(checked >= 5);
  // the control: the Table 1 probe lists the same claims and decides none of them
  CHECK_FALSE(decides("experiments/reproductions/lcc_table1_probe.json", "lcc-table1-r5-train-digits"));
  CHECK(decides("experiments/reproductions/lcc_table1.json", "lcc-table1-r5-train-digits"));
}
