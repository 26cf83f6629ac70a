// The claim-scope files and what the report makes of them: the reader's checks, each with the input that
// must fail; rows joined with their entries; the counts kept apart for extensions; claims.json and AUDIT.md; the
// provenance rule of the committed report. Inputs are hand-made here; the expected texts follow from them.
#include "dmlbench/experiments/hand_typed_result.hpp"
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_claims_table.hpp"
#include "dmlbench/experiments/report_provenance.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

json entry(const std::string& id, const std::string& scope) {
  return {{"id", id},
          {"scope", scope},
          {"quote", "QUOTE-" + id},
          {"rebuilt_from", scope == "reconstructed" ? "REBUILT-" + id : ""},
          {"assumptions", {"A1-" + id, "A2-" + id}},
          {"deviations", json::array()},
          {"audit", {{"checks", "CHECKS-" + id}, {"differs", "none"}, {"free", ""}, {"action", "none"}}}};
}

json scope_file(const std::string& paper, const std::string& layer, const std::vector<json>& rows) {
  return {{"paper", paper}, {"layer", layer}, {"rows", rows}};
}

ex::ClaimRow row(const std::string& id, const std::string& paper, const std::string& verdict,
                 const std::string& layer = "theory",
                 const std::string& measured = "error 1.0e-16 (tol 1.0e-12, 3 samples)") {
  ex::ClaimRow r;
  r.id = id;
  r.layer = layer;
  r.paper = paper;
  r.where = "eq 1";
  r.statement = "S-" + id;
  r.measured = measured;
  r.verdict = verdict;
  return r;
}

struct Tree {
  fs::path dir = fs::temp_directory_path() / ("dmlbench-scopes-" + std::to_string(::getpid()));
  Tree() { fs::remove_all(dir); }
  ~Tree() { fs::remove_all(dir); }
  void write(const std::string& rel, const json& j) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << j.dump(2);
  }
};

}  // namespace

TEST_CASE("claim scopes: a well-formed file is read entry by entry", "[report][scopes]") {
  const json f = scope_file("XGS", "theory", {entry("x-1", "as-printed"), entry("x-2", "reconstructed")});
  const auto s = ex::parse_claim_scope_file(f.dump(), "theory/scopes/XGS.json");
  REQUIRE(s.size() == 2);
  CHECK(s[0].id == "x-1");
  CHECK(s[0].paper == "XGS");
  CHECK(s[0].layer == "theory");
  CHECK(s[0].quote == "QUOTE-x-1");
  CHECK(s[0].assumptions == std::vector<std::string>{"A1-x-1", "A2-x-1"});
  CHECK(s[0].deviations.empty());
  CHECK(s[0].checks == "CHECKS-x-1");
  CHECK(s[1].rebuilt_from == "REBUILT-x-2");
  CHECK(s[1].file == "theory/scopes/XGS.json");
}

TEST_CASE("claim scopes: each malformed entry is one error naming the file, the row and the key", "[report][scopes]") {
  const auto fails = [](json e, const std::string& why) {
    const json f = scope_file("XHN", "theory", {entry("ok-1", "as-printed"), std::move(e)});
    CHECK_THROWS_WITH(ex::parse_claim_scope_file(f.dump(), "F.json"), Catch::Contains("F.json: row bad") &&
                                                                          Catch::Contains(why));
  };
  json e = entry("bad", "as-printed");
  e["scope"] = "as printed";
  fails(e, "as-printed, reconstructed, variant or extension");
  e = entry("bad", "reconstructed");
  e["rebuilt_from"] = "";
  fails(e, "rebuilt_from");
  e = entry("bad", "as-printed");
  e["quote"] = "  ";
  fails(e, "\"quote\" is empty");
  e = entry("bad", "as-printed");
  e.erase("assumptions");
  fails(e, "assumptions");
  e = entry("bad", "as-printed");
  e["deviations"] = "proxy data";
  fails(e, "list of strings");
  e = entry("bad", "as-printed");
  e["audit"].erase("checks");
  fails(e, "checks");
  e = entry("bad", "as-printed");
  e["verdict"] = "verified";  // an unknown key: verdicts come from the checks, never from a scope file
  fails(e, "verdict");
  // the file itself
  CHECK_THROWS_WITH(ex::parse_claim_scope_file("{", "F.json"), Catch::Contains("F.json: not valid JSON"));
  CHECK_THROWS_WITH(ex::parse_claim_scope_file(scope_file("XHN", "theorie", {entry("a", "extension")}).dump(), "F.json"),
                    Catch::Contains("\"layer\" must be theory, sims or experiments"));
  CHECK_THROWS_WITH(ex::parse_claim_scope_file(scope_file("XHN", "theory", {}).dump(), "F.json"),
                    Catch::Contains("non-empty list"));
  // the positive control: the same entry unchanged is read
  CHECK(ex::parse_claim_scope_file(scope_file("XHN", "theory", {entry("ok-1", "extension")}).dump(), "F.json").size() == 1);
}

// A scope text that types a run's result goes stale at the next run; the reader refuses it.
TEST_CASE("claim scopes: a run's result typed into a scope text is refused, naming the row, the key and the text",
          "[report][scopes]") {
  // what counts as a typed result, and what does not (the negative controls: configured numbers, a sentence without)
  CHECK(ex::hand_typed_result("47.5 +- 2.3 vs 65.2 +- 1.4, p = 2.8e-6", false) == "5 +- 2");  // the first
  CHECK(ex::hand_typed_result("vs 65.2, p = 2.8e-6", false) == "p = 2");
  CHECK(ex::hand_typed_result("the squared arm beats random by +6.9 (p 0.0004)", false) == "p 0");
  CHECK(ex::hand_typed_result("R@1 47.5 +- 2.3", false) == "5 +- 2");
  CHECK(ex::hand_typed_result("90% CI is [-15.3, -10.0]", false) == "[-15.3, -10.0]");
  CHECK(ex::hand_typed_result("63.6% obey in epoch 1", false) == "63.6%");
  CHECK(ex::hand_typed_result("EPS minus base by Welch over 5 seeds", false) == "Welch");
  CHECK(ex::hand_typed_result("Holm-adjusted", false) == "Holm");
  CHECK(ex::hand_typed_result("an exact binomial test of the share", false) == "binomial test");
  CHECK(ex::hand_typed_result("the corrected form matches, hence 'erratum'", true) == "erratum");
  CHECK(ex::hand_typed_result("verdict stays refuted for any delta", true) == "refuted");
  CHECK(ex::hand_typed_result("verdict stays refuted for any delta", false).empty());  // the action cell's log
  CHECK(ex::hand_typed_result("margin 0.2, lr 1e-3, tolerance 1e-12 on 1188 samples, 8 seeds, 100% = one point",
                              true)
            .empty());
  CHECK(ex::hand_typed_result("noise p in {0.55, 0.7, 0.9}; the paper's 62.3 -> 80.9", true).empty());
  CHECK(ex::hand_typed_result("the top-left share (unverifiable)", true).empty());  // a word, not a verdict
  // a result of a one-off computation that no command of the bench repeats, named by where it came from
  CHECK(ex::hand_typed_result("audit runs at SGD 1e-4 and 1e-2 also moved mostly top-right", false) == "audit runs");
  CHECK(ex::hand_typed_result("bottom-right led in the audit's run", false) == "audit's run");
  CHECK(ex::hand_typed_result("Own recomputation of the bench's weights: M exists at every rank", false) ==
        "Own recomputation");
  CHECK(ex::hand_typed_result("numpy recomputation: robust for every gamma", false) == "numpy recomputation");
  CHECK(ex::hand_typed_result("recomputed with numpy from the same closed forms", false) == "recomputed with numpy");
  CHECK(ex::hand_typed_result("Rerun for this audit with single linkage: one root", false) == "for this audit");
  CHECK(ex::hand_typed_result("separates the gap with 3 seeds (an audit computation, not a run)", false) ==
        "audit computation");
  CHECK(ex::hand_typed_result("misses autodiff by a wide gap (a python check)", false) == "python check");
  CHECK(ex::hand_typed_result("the proof's candidate stays the minimizer (sim phase)", false) == "(sim phase)");
  CHECK(ex::hand_typed_result("sim phase (distinct, 2 starts): collapsed", false) == "sim phase (");
  // the negative control: the audit's cells, a command of the bench and a configured rate are no results
  CHECK(ex::hand_typed_result("the audit's checks cell; `dmlbench sim phase --loss margin`; the lr arms at SGD 1e-4",
                              true)
            .empty());
  // the reader: each cell, one error naming the file, the row, the key and what it typed
  const auto fails = [](json e, const std::string& key, const std::string& hit) {
    const json f = scope_file("XHN", "experiments", {entry("ok-1", "as-printed"), std::move(e)});
    CHECK_THROWS_WITH(ex::parse_claim_scope_file(f.dump(), "F.json"),
                      Catch::Contains("F.json: row bad: " + key + " types a run's result by hand ('" + hit + "')"));
  };
  json e = entry("bad", "as-printed");
  e["audit"]["checks"] = "Welch test of R@1: 47.5 +- 2.3 vs 65.2 +- 1.4, p = 2.8e-6, refuted.";
  fails(e, "audit \"checks\"", "Welch");
  e = entry("bad", "as-printed");
  e["audit"]["free"] = "holds with the bound; so the row is verified";
  fails(e, "audit \"free\"", "verified");
  e = entry("bad", "as-printed");
  e["assumptions"] = {"R@1 on the test letters, Welch's t-test over 5 seeds at p < 0.05"};
  fails(e, "\"assumptions\"", "Welch");
  e = entry("bad", "as-printed");
  e["deviations"] = {"seeds: 5 per arm, two-sided Welch test at 0.05"};
  fails(e, "\"deviations\"", "Welch");
  e = entry("bad", "as-printed");
  e["audit"]["action"] = "done. Was: the verdict was refuted";  // the reader lets the action cell name a past verdict;
  // the committed files are held to more: no verdict and no history in any audit cell (the test case below)
  CHECK_NOTHROW(ex::parse_claim_scope_file(scope_file("XHN", "experiments", {e}).dump(), "F.json"));
}

namespace {

const std::string kScopeDoc = "docs/extend/scope.md";
const std::string kRulesMark =
    "<!-- scope-text rules: each row is checked by tests/experiments/report/test_claim_scopes.cpp -->";

std::string source_text(const std::string& rel) {
  std::ifstream f(std::string(DMLBENCH_SOURCE_DIR) + "/" + rel, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + rel);
  std::ostringstream o;
  o << f.rdbuf();
  return o.str();
}

// Each row of the page's rules table ("| `text` | in | refuses `hit` |" or "... | accepts |") that the reader does
// not answer as the row says, one line each; a page without the table, or a table with no row, is one line too.
std::vector<std::string> scope_rule_mismatches(const std::string& page) {
  const auto at = page.find(kRulesMark);
  if (at == std::string::npos) return {kScopeDoc + " has no rules table after " + kRulesMark};
  std::istringstream in(page.substr(at + kRulesMark.size()));
  const std::regex row(R"(^\| `([^`]+)` \| (any text|checks, differs, free) \| (refuses `([^`]+)`|accepts) \|$)");
  std::vector<std::string> bad;
  std::string line;
  int rows = 0;
  std::getline(in, line);  // the rest of the marker's line
  while (std::getline(in, line) && !line.empty()) {
    if (line.rfind("| text", 0) == 0 || line.rfind("|---", 0) == 0) continue;
    std::smatch m;
    if (!std::regex_match(line, m, row)) {
      bad.push_back("a row the check cannot read: " + line);
      continue;
    }
    ++rows;
    const bool outcome_words = m[2] == "checks, differs, free";
    const std::string want = m[3] == "accepts" ? "" : m[4].str();
    const std::string got = ex::hand_typed_result(m[1], outcome_words);
    if (got != want)
      bad.push_back("`" + m[1].str() + "` in " + m[2].str() + ": the page says " +
                    (want.empty() ? "accepts" : "refuses `" + want + "`") + ", the reader " +
                    (got.empty() ? "accepts" : "refuses `" + got + "`"));
  }
  if (rows == 0) bad.push_back(kScopeDoc + "'s rules table has no row");
  return bad;
}

}  // namespace

TEST_CASE("claim scopes: docs/extend/scope.md's rules are the reader's, row by row", "[report][scopes][docs]") {
  const std::string page = source_text(kScopeDoc);
  const auto bad = scope_rule_mismatches(page);
  std::string said;
  for (const auto& b : bad) said += "\n  " + b;
  INFO(kScopeDoc << " against hand_typed_result:" << said);
  CHECK(bad.empty());
  // negative controls: a row that says "accepts" of a refused text, and one that names another hit, are named
  std::string doctored = page;
  const std::string refused = "| `Holm-adjusted` | any text | refuses `Holm` |";
  REQUIRE(doctored.find(refused) != std::string::npos);
  doctored.replace(doctored.find(refused), refused.size(), "| `Holm-adjusted` | any text | accepts |");
  CHECK(scope_rule_mismatches(doctored) ==
        std::vector<std::string>{"`Holm-adjusted` in any text: the page says accepts, the reader refuses `Holm`"});
  doctored = page;
  const std::string word = "| `verdict stays refuted for any delta` | checks, differs, free | refuses `refuted` |";
  REQUIRE(doctored.find(word) != std::string::npos);
  doctored.replace(doctored.find(word), word.size(),
                   "| `verdict stays refuted for any delta` | checks, differs, free | refuses `verified` |");
  CHECK(scope_rule_mismatches(doctored).size() == 1);
  CHECK(scope_rule_mismatches("no table") ==
        std::vector<std::string>{kScopeDoc + " has no rules table after " + kRulesMark});
}

TEST_CASE("claim scopes: docs/extend/scope.md's example entry is read, and a copy that types a result is refused",
          "[report][scopes][docs]") {
  const std::string file = "tests/extend/example_scope.json";
  const auto read = ex::parse_claim_scope_file(source_text(file), file);
  REQUIRE(read.size() == 1);
  CHECK(read[0].id == "example-unit-distance");
  CHECK(read[0].scope == "as-printed");
  CHECK(read[0].paper == "EXAMPLE");
  CHECK(read[0].layer == "theory");
  // negative control: the same entry with a p-value typed into its checks cell is refused, naming the row and key
  auto typed = json::parse(source_text(file));
  typed["rows"][0]["audit"]["checks"] = "the identity holds, p = 0.01";
  CHECK_THROWS_WITH(ex::parse_claim_scope_file(typed.dump(), file),
                    Catch::Contains(file + ": row example-unit-distance: audit \"checks\" types a run's result by hand "
                                           "('p = 0')"));
}

namespace {

// One text of a scope entry: its file, its row and its field ("quote", "assumptions", "audit.free", ...).
struct ScopeText {
  std::string file, id, field, text;
};

// Every text of every entry of one scope file, read as JSON rather than through the reader, so that the fields the
// reader does not check (the quote, rebuilt_from) and any field added later are listed too; "id" and "scope" are
// names, not texts.
std::vector<ScopeText> scope_texts(const json& f, const std::string& file) {
  std::vector<ScopeText> out;
  for (const auto& row : f.at("rows")) {
    const std::string id = row.at("id").get<std::string>();
    for (const auto& item : row.items()) {
      const std::string& key = item.key();
      const json& v = item.value();
      if (key == "id" || key == "scope") continue;
      if (v.is_string()) {
        out.push_back({file, id, key, v.get<std::string>()});
      } else if (v.is_array()) {
        for (const auto& s : v) out.push_back({file, id, key, s.get<std::string>()});
      } else if (v.is_object()) {  // the audit's cells; a premise's text and a sentence's statement (their rows, sides,
                                   // bounds, rules and places are no prose)
        for (const auto& cell : v.items())
          if ((key != "premise" || cell.key() == "text") && (key != "judged_by" || cell.key() == "statement"))
            out.push_back({file, id, key + "." + cell.key(), cell.value().get<std::string>()});
      }
    }
  }
  return out;
}

// A quote's own words: its text outside the double-quoted passages, which are the paper's (a number, spread or
// p-value the paper prints is the paper's, not a run's).
std::string outside_double_quotes(const std::string& text) {
  std::string out;
  bool inside = false;
  for (const char c : text) {
    if (c == '"') inside = !inside;
    out += inside || c == '"' ? ' ' : c;
  }
  return out;
}

// Words that tell a change's history. An audit cell says how the row is now (what it checks, where it differs, what
// it fixes, what is still to do), never what was done to it: a history goes stale at the next change.
const std::vector<std::string> kHistoryWords = {"done:",    "done in part",      "was:",         "was changed",
                                                "previously", "issue ",          "stop ",        "stop's",
                                                "re-scoped", "verdict unchanged", "verdict kept", "regenerated after",
                                                "added by",   "added as",        "added (",      " now "};

// The first history word in `text` (compared in lower case), "" if none.
std::string history_word(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& w : kHistoryWords)
    if (lower.find(w) != std::string::npos) return w;
  return "";
}

// What the rules refuse in one text of a scope entry, "" if nothing. Every text is checked with hand_typed_result, and
// with its verdict words everywhere but in two fields:
// - "assumptions": an assumption may state the decision rule that maps a direction to a verdict ("in the paper's
//   direction: verified; against it: refuted"), a setting of the bench, not an outcome;
// - "quote": its double-quoted passages are the paper's words and are not checked at all; the quote's own words
//   outside them (a place, a figure's settings, "extraction cleaned") are, verdict words included.
// rebuilt_from, the deviations and the four audit cells state no outcome: the report prints every verdict. The audit
// cells may not tell a history either.
std::string scope_text_fault(const std::string& field, const std::string& text) {
  const std::string checked = field == "quote" ? outside_double_quotes(text) : text;
  if (const std::string hit = ex::hand_typed_result(checked, field != "assumptions"); !hit.empty())
    return "types a run's result or a verdict by hand ('" + hit + "')";
  if (field.rfind("audit.", 0) == 0)
    if (const std::string word = history_word(text); !word.empty()) return "tells a history ('" + word + "')";
  return "";
}

// One line per text the rules refuse: "FILE: row ID: FIELD why".
std::string scope_text_faults(const std::vector<ScopeText>& texts) {
  std::string out;
  for (const auto& t : texts)
    if (const std::string why = scope_text_fault(t.field, t.text); !why.empty())
      out += t.file + ": row " + t.id + ": " + t.field + " " + why + "\n";
  return out;
}

// The texts of every committed scope file, {theory,sims,experiments}/scopes/*.json.
std::vector<ScopeText> committed_scope_texts() {
  std::vector<ScopeText> out;
  for (const char* layer : {"theory", "sims", "experiments"}) {
    std::vector<std::string> files;
    for (const auto& f : fs::directory_iterator(fs::path(DMLBENCH_SOURCE_DIR) / layer / "scopes"))
      if (f.path().extension() == ".json")
        files.push_back(std::string(layer) + "/scopes/" + f.path().filename().string());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      const auto texts = scope_texts(json::parse(source_text(file), nullptr, true, true), file);
      out.insert(out.end(), texts.begin(), texts.end());
    }
  }
  return out;
}

}  // namespace

// The reader refuses typed results in some fields; the committed files are held to more: every text field, verdict
// words wherever a field states no outcome, and no history in the audit's cells. Each rule with a text it must refuse.
TEST_CASE("claim scopes: no committed scope text types a result, states a verdict where it may state none, or tells "
          "a history", "[report][scopes]") {
  const auto texts = committed_scope_texts();
  REQUIRE(texts.size() > 1000);
  const std::string faults = scope_text_faults(texts);
  INFO("scope texts the rules refuse:\n" << faults);
  CHECK(faults.empty());
  // every text field is read, the quote and rebuilt_from included (a field added later shows here)
  std::set<std::string> fields;
  for (const auto& t : texts) fields.insert(t.field);
  CHECK(fields == std::set<std::string>{"quote", "rebuilt_from", "assumptions", "deviations", "audit.checks",
                                        "audit.differs", "audit.free", "audit.action", "premise.text",
                                        "judged_by.statement"});
  // negative controls: each a text the rules must refuse, with the rule that refuses it
  const std::string typed = "types a run's result or a verdict by hand ";
  CHECK(scope_text_fault("audit.free", "audit runs gave 0.43 at lr 1e-4") == typed + "('audit runs')");
  CHECK(scope_text_fault("deviations", "that sum is lcc-thm1-all-triples (refuted)") == typed + "('refuted')");
  CHECK(scope_text_fault("rebuilt_from", "Schroff's loss, whose identity is verified") == typed + "('verified')");
  CHECK(scope_text_fault("audit.action", "inconclusive at 4 seeds; run more") == typed + "('inconclusive')");
  CHECK(scope_text_fault("quote", "[X] Sec 1: \"no top-left movement\" (Fig 2, p = 0.4)") == typed + "('p = 0')");
  CHECK(scope_text_fault("quote", "[X] Sec 1: \"no top-left movement\" (erratum)") == typed + "('erratum')");
  CHECK(scope_text_fault("audit.action", "done: the statement says so. Verdict unchanged.") ==
        "tells a history ('done:')");
  CHECK(scope_text_fault("audit.checks", "Counts the points; the check now builds the tree") ==
        "tells a history (' now ')");
  CHECK(scope_text_fault("audit.differs", "Re-scoped variant: it judges the bench's loss") ==
        "tells a history ('re-scoped')");
  // and what they let pass: the paper's words in a quote, a decision rule in an assumption, an audit cell in the
  // present tense with what is still to do, configured numbers
  CHECK(scope_text_fault("quote", "[X] Table 2: \"R@1 47.5 +- 2.3, p = 0.01, as verified in [9]\"").empty());
  CHECK(scope_text_fault("assumptions", "in the paper's direction: verified; against it: refuted").empty());
  CHECK(scope_text_fault("audit.action", "extension: the row judges the bench's comparison; to do: a row on the "
                                         "magnitude")
            .empty());
  CHECK(scope_text_fault("deviations", "margin 0.2, lr 1e-3, 8 seeds, 28 px").empty());
  CHECK(scope_text_fault("audit.free", "").empty());
  // a committed file doctored: one typed result and one history, each named with its file, row and field
  const std::string file = "theory/scopes/WU.json";
  const json wu = json::parse(source_text(file), nullptr, true, true);
  CHECK(scope_text_faults(scope_texts(wu, file)).empty());
  json doctored = wu;
  doctored["rows"][0]["deviations"].push_back("own recomputation: the KS distance stays small");
  doctored["rows"][0]["audit"]["action"] = "added as the sixth paper";
  CHECK(scope_text_faults(scope_texts(doctored, file)) ==
        file + ": row wu-sec4-distance-density: deviations " + typed + "('own recomputation')\n" + file +
            ": row wu-sec4-distance-density: audit.action tells a history ('added as')\n");
}

TEST_CASE("claim scopes: the files of every layer by id, an id given twice or a file in the wrong layer refused",
          "[report][scopes]") {
  Tree t;
  t.write("theory/scopes/XHN.json", scope_file("XHN", "theory", {entry("t-1", "as-printed")}));
  t.write("sims/scopes/LCC.json", scope_file("LCC", "sims", {entry("s-1", "as-printed")}));
  t.write("experiments/scopes/LCC.json", scope_file("LCC", "experiments", {entry("e-1", "extension")}));
  t.write("experiments/scopes/notes.txt", json("not read"));
  auto all = ex::read_claim_scopes(t.dir.string());
  REQUIRE(all.size() == 3);
  CHECK(all.at("e-1").file == "experiments/scopes/LCC.json");
  CHECK(all.at("s-1").layer == "sims");
  t.write("experiments/scopes/XHN.json", scope_file("XHN", "experiments", {entry("t-1", "extension")}));
  CHECK_THROWS_WITH(ex::read_claim_scopes(t.dir.string()),
                    Catch::Contains("claim t-1 has a scope in") && Catch::Contains("theory/scopes/XHN.json") &&
                        Catch::Contains("experiments/scopes/XHN.json"));
  fs::remove(t.dir / "experiments/scopes/XHN.json");
  t.write("sims/scopes/XGS.json", scope_file("XGS", "theory", {entry("g-1", "as-printed")}));
  CHECK_THROWS_WITH(ex::read_claim_scopes(t.dir.string()), Catch::Contains("but the file is under sims/"));
}

TEST_CASE("claim scopes: rows get their entries, rows without one are named with the file they belong in",
          "[report][scopes]") {
  std::map<std::string, ex::ClaimScope> scopes;
  for (const auto& s : ex::parse_claim_scope_file(
           scope_file("XHN", "theory", {entry("a", "as-printed"), entry("b", "extension")}).dump(), "F"))
    scopes[s.id] = s;
  std::vector<ex::ClaimRow> rows = {row("a", "XHN", "verified"), row("b", "XHN", "refuted"),
                                    row("c", "LCC", "verified", "experiments",
                                        "R@1 40.0 +- 1.0 vs 50.0 +- 1.0 (3 seeds); Welch p = 0.01"),
                                    row("d", "LCC", "verified", "sims")};
  const auto missing = ex::attach_claim_scopes(rows, scopes);
  CHECK(missing == std::vector<std::string>{"c (experiments/scopes/LCC.json)", "d (sims/scopes/LCC.json)"});
  CHECK(rows[0].scope.quote == "QUOTE-a");
  CHECK(rows[1].scope.scope == "extension");
  CHECK(rows[2].scope.scope == "unstated");
  // an entry of another paper's row is refused
  std::vector<ex::ClaimRow> wrong = {row("a", "XGS", "verified")};
  CHECK_THROWS_WITH(ex::attach_claim_scopes(wrong, scopes), Catch::Contains("claim a is [XGS]"));
}

TEST_CASE("claim scopes: extensions are counted apart from the papers' own statements, claims.json and AUDIT.md "
          "carry every field", "[report][scopes]") {
  std::map<std::string, ex::ClaimScope> scopes;
  for (const auto& s : ex::parse_claim_scope_file(
           scope_file("XHN", "theory", {entry("a", "as-printed"), entry("b", "extension"), entry("c", "reconstructed")})
               .dump(), "F"))
    scopes[s.id] = s;
  std::vector<ex::ClaimRow> rows = {row("a", "XHN", "verified"), row("b", "XHN", "refuted"),
                                    row("c", "XHN", "refuted")};
  const std::string before = ex::verdict_counts_text(rows);
  CHECK(before == "3 claims: 2 refuted; 1 verified;");  // no scopes attached: the counts as they were
  REQUIRE(ex::attach_claim_scopes(rows, scopes).empty());
  CHECK(ex::verdict_counts_text(rows) ==
        "2 claims on the papers' own statements (as printed or reconstructed): 1 refuted; 1 verified; apart from "
        "them, 1 extensions and variants (the bench's own comparisons, stronger forms and versions of a printed "
        "method, counted for or against no paper): 1 refuted; (3 rows in all).");
  // negative control: the extension made as-printed moves its refutation into the papers' count
  auto as_printed = rows;
  as_printed[1].scope.scope = "as-printed";
  CHECK_THAT(ex::verdict_counts_text(as_printed),
             Catch::StartsWith("3 claims on the papers' own statements (as printed or reconstructed): 2 refuted; 1 "
                               "verified; apart from them, 0 extensions"));
  // a variant (the bench's version of a printed method) is counted apart too, and tagged in the lists
  auto variant = rows;
  variant[0].scope.scope = "variant";
  CHECK_THAT(ex::verdict_counts_text(variant), Catch::StartsWith("1 claims on the papers' own statements (as printed "
                                                                 "or reconstructed): 1 refuted; apart from them, 2 "
                                                                 "extensions and variants"));
  CHECK_THAT(ex::paper_tally_markdown(variant), Catch::Contains("| [XHN] | 2 | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 |"));
  // one table a paper, the extensions in their own
  std::vector<ex::ClaimRow> two = rows;
  two.push_back(row("d", "LCC", "not-reproduced", "experiments"));
  two.back().scope.scope = "as-printed";
  two.push_back(row("e", "LCC", "erratum"));
  two.back().scope.scope = "reconstructed";
  const std::string tally = ex::paper_tally_markdown(two);
  CHECK_THAT(tally, Catch::Contains("| paper | rows | verified | direction only | refuted | contested | premise not "
                                    "reached | erratum | not reproduced | inconclusive | other |"));
  CHECK_THAT(tally, Catch::Contains("| [LCC] | 2 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 | 0 |"));
  CHECK_THAT(tally, Catch::Contains("| [XHN] | 2 | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |"));
  const auto ext = tally.find("The extensions and variants");
  REQUIRE(ext != std::string::npos);
  CHECK(tally.find("| [XHN] | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 0 |", ext) != std::string::npos);  // b, apart
  CHECK(ex::paper_tally_markdown(as_printed).find("None.") != std::string::npos);  // the control: no extension left
  CHECK(ex::paper_tally_markdown({row("z", "XHN", "verified")}).empty());        // no scopes attached
  CHECK_THAT(ex::refutations_markdown(rows), Catch::Contains("`b` (extension: the bench's own comparison"));
  CHECK_THAT(ex::refutations_markdown(rows), !Catch::Contains("`c` (extension"));

  const json j = ex::claims_json(rows);
  CHECK(j[0]["scope"] == "as-printed");
  CHECK(j[0]["quote"] == "QUOTE-a");
  CHECK(j[0]["assumptions"] == json({"A1-a", "A2-a"}));
  CHECK(j[0]["deviations"] == json::array());
  CHECK_FALSE(j[0].contains("rebuilt_from"));
  CHECK(j[2]["rebuilt_from"] == "REBUILT-c");

  const std::string audit = ex::audit_markdown(rows);
  CHECK_THAT(audit, Catch::Contains("| `a` | as-printed | verified | QUOTE-a | CHECKS-a | none | A1-a; A2-a | none | - | "
                                    "none |"));
  CHECK_THAT(audit, Catch::Contains("| `c` | reconstructed | refuted | QUOTE-c (rebuilt from: REBUILT-c) |"));
}

TEST_CASE("report provenance: the committed reports/ only from a clean tree, unless asked", "[report][scopes]") {
  CHECK(ex::revision_is_unreproducible("14b73509666c-dirty"));
  CHECK(ex::revision_is_unreproducible("unknown"));
  CHECK_FALSE(ex::revision_is_unreproducible("14b73509666c"));
  CHECK_FALSE(ex::revision_is_unreproducible("dirty-14b73509666c"));
  ex::ReportConfig cfg;
  cfg.source_dir = "/src/repo";
  cfg.out = "/src/repo/reports";
  CHECK(ex::writes_committed_report(cfg));
  CHECK_THROWS_WITH(ex::check_report_provenance(cfg, "abc-dirty"),
                    Catch::Contains("only from a clean tree") && Catch::Contains("git abc-dirty") &&
                        Catch::Contains("--allow-dirty"));
  CHECK_NOTHROW(ex::check_report_provenance(cfg, "abc"));
  cfg.allow_dirty = true;
  CHECK_NOTHROW(ex::check_report_provenance(cfg, "abc-dirty"));
  cfg.allow_dirty = false;
  cfg.out = "/src/repo/out/quick-report";
  CHECK_FALSE(ex::writes_committed_report(cfg));
  CHECK_NOTHROW(ex::check_report_provenance(cfg, "abc-dirty"));
  CHECK(ex::provenance_warning_markdown("abc").empty());
  CHECK_THAT(ex::provenance_warning_markdown("abc-dirty"), Catch::Contains("Not reproducible exactly") &&
                                                              Catch::Contains("git abc-dirty"));
  // the revision of this test's own source tree: a hash, possibly -dirty; "unknown" outside a repository
  CHECK(ex::tree_revision("/nonexistent-dmlbench-dir") == "unknown");
}

// The report writes its stage store while it runs, so a change there must not make the tree "dirty"; a change
// anywhere else must. Negative controls: nothing unwatched, an unwatched folder outside the tree, a change beside it.
TEST_CASE("report provenance: only the stage store passed as unwatched is left out of -dirty", "[report][scopes]") {
  const fs::path repo = fs::temp_directory_path() / ("dmlbench-revision-" + std::to_string(::getpid()));
  fs::remove_all(repo);
  fs::create_directories(repo / "reports/stages");
  const auto write = [&](const std::string& rel, const std::string& text) { std::ofstream(repo / rel) << text; };
  write("code.txt", "a\n");
  write("reports/stages/record.json", "{}\n");
  const std::string git = "git -C '" + repo.string() + "' -c user.name=t -c user.email=t@t ";
  REQUIRE(std::system((git + "init -q && " + git + "add -A && " + git + "commit -qm init").c_str()) == 0);
  const std::string store = (repo / "reports/stages").string();
  const std::string clean = ex::tree_revision(repo.string(), store);
  REQUIRE(clean.size() == 12);  // the abbreviated commit, nothing after it
  write("reports/stages/record.json", "{\"stage\": 1}\n");
  CHECK(ex::tree_revision(repo.string(), store) == clean);
  CHECK(ex::tree_revision(repo.string()) == clean + "-dirty");
  CHECK(ex::tree_revision(repo.string(), fs::temp_directory_path().string()) == clean + "-dirty");
  CHECK(ex::tree_revision(repo.string(), (repo / "reports").string() + "/../reports/stages") == clean);
  write("code.txt", "b\n");
  CHECK(ex::tree_revision(repo.string(), store) == clean + "-dirty");
  fs::remove_all(repo);
}

namespace {

// AUDIT.md's rows against claims.json, both of one report: each AUDIT row's id, scope and verdict
// equal its claims.json row's, and every claims.json row has its AUDIT row. One line per mismatch.
std::string audit_mismatches(const std::string& audit_md, const json& claims) {
  std::map<std::string, std::pair<std::string, std::string>> want;  // id -> (scope, verdict)
  for (const auto& c : claims.at("claims")) want[c.at("id")] = {c.value("scope", ""), c.at("verdict")};
  std::string out;
  std::set<std::string> seen;
  std::istringstream in(audit_md);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;  // a row: | `id` | scope | verdict | ...
    std::vector<std::string> cells;
    for (std::size_t a = 1, b; (b = line.find(" | ", a)) != std::string::npos && cells.size() < 3; a = b + 3)
      cells.push_back(line.substr(a, b - a));
    const std::string id = cells.at(0).substr(2, cells.at(0).size() - 3);  // "` id`" without the backticks
    seen.insert(id);
    const auto it = want.find(id);
    if (it == want.end()) out += id + ": in AUDIT.md, not in claims.json\n";
    else if (it->second != std::make_pair(cells.at(1), cells.at(2)))
      out += id + ": AUDIT.md says " + cells.at(1) + " / " + cells.at(2) + ", claims.json " + it->second.first +
             " / " + it->second.second + "\n";
  }
  for (const auto& [id, sv] : want)
    if (!seen.count(id)) out += id + ": in claims.json, not in AUDIT.md\n";
  return out;
}

std::string read_source_file(const std::string& rel) {
  std::ifstream f(std::string(DMLBENCH_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the committed AUDIT.md and claims.json agree row by row: id, scope and verdict", "[report][scopes]") {
  const std::string audit = read_source_file("reports/AUDIT.md");
  const json claims = json::parse(read_source_file("reports/claims.json"));
  REQUIRE(claims.at("claims").size() > 100);
  INFO(audit_mismatches(audit, claims));
  CHECK(audit_mismatches(audit, claims).empty());
  // negative controls: one verdict changed by hand in AUDIT.md, one row dropped from it
  const std::string row = "| `xhn-eq19` | as-printed | verified |";
  REQUIRE(audit.find(row) != std::string::npos);
  std::string edited = audit;
  edited.replace(edited.find(row), row.size(), "| `xhn-eq19` | as-printed | refuted |");
  CHECK_THAT(audit_mismatches(edited, claims),
             Catch::Equals("xhn-eq19: AUDIT.md says as-printed / refuted, claims.json as-printed / verified\n"));
  std::string dropped = audit;
  const auto at = dropped.find(row);
  dropped.erase(at, dropped.find('\n', at) + 1 - at);
  CHECK_THAT(audit_mismatches(dropped, claims), Catch::Equals("xhn-eq19: in claims.json, not in AUDIT.md\n"));
}
