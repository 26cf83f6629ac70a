// The report's claims rendering (experiments/report_claims_table.hpp, report_markdown.hpp) on a small hand-made
// claims.json: each row's text, the verdict counts, the errata and refutations, and the claims gathered from a work
// folder. The expected texts are written out by hand from the table's format and the inputs below.
#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_claims_table.hpp"
#include "dmlbench/experiments/report_markdown.hpp"

#include "claims_table_row.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

json hand_made_claims() {
  return json::parse(R"({"git_revision": "abc123", "claims": [
    {"id": "a-eq1", "paper": "XHN", "equation": "eq 1", "statement": "S | T", "verdict": "verified",
     "max_error": 2.5e-16, "tolerance": 1e-12, "samples": 40},
    {"id": "b-eq2", "paper": "XGS", "equation": "eq 2", "statement": "printed\nform", "verdict": "erratum",
     "max_error": 0.5, "tolerance": 1e-12, "samples": 40, "corrected_error": 3e-15, "corrected_form": "CF",
     "witness": "W1"},
    {"id": "c-thm1", "paper": "LCC", "equation": "Thm 1", "statement": "collapse", "verdict": "refuted",
     "max_error": "inf", "tolerance": 1e-6, "samples": 3, "witness": "W2", "note": "N2"},
    {"id": "d-sec4", "paper": "LCC", "equation": "Sec 4", "statement": "x", "verdict": "verified", "samples": 1}
  ]})");
}


}  // namespace

TEST_CASE("claims table: one row per claim with its measured error, escaped cells and bold verdict", "[report]") {
  const auto rows = ex::claim_rows_from_claims_json(hand_made_claims());
  REQUIRE(rows.size() == 4);
  const std::string md = ex::claims_table_markdown(rows);
  CHECK_THAT(md, Catch::StartsWith("| id | paper | where | scope | claim | measured | paper's number | verdict |\n"
                                   "|---|---|---|---|---|---|---|---|\n"));
  // a pipe in a cell is escaped, no paper number is "-", errors in scientific notation with one decimal
  CHECK(claims_table_row(md, "a-eq1") == "| `a-eq1` | XHN | eq 1 | - | S \\| T | error 2.5e-16 (tol 1.0e-12, 40 samples) | - | "
                               "**verified** |");
  // a newline in a cell is a space; the corrected form's error follows
  CHECK(claims_table_row(md, "b-eq2") == "| `b-eq2` | XGS | eq 2 | - | printed form | error 5.0e-01 (tol 1.0e-12, 40 samples); "
                               "corrected form 3.0e-15 | - | **erratum** |");
  CHECK(claims_table_row(md, "c-thm1") == "| `c-thm1` | LCC | Thm 1 | - | collapse | error inf (tol 1.0e-06, 3 samples) | - | "
                                "**refuted** |");
  CHECK(claims_table_row(md, "d-sec4") == "| `d-sec4` | LCC | Sec 4 | - | x | error n/a (tol n/a, 1 samples) | - | **verified** |");
  // rows in the file's order
  CHECK(md.find("`a-eq1`") < md.find("`b-eq2`"));
  CHECK(md.find("`c-thm1`") < md.find("`d-sec4`"));

  // negative control: a tampered input changes its row and only its row
  json tampered = hand_made_claims();
  tampered["claims"][0]["max_error"] = 2.5e-10;
  tampered["claims"][0]["verdict"] = "refuted";
  const std::string md2 = ex::claims_table_markdown(ex::claim_rows_from_claims_json(tampered));
  CHECK(claims_table_row(md2, "a-eq1") != claims_table_row(md, "a-eq1"));
  CHECK_THAT(claims_table_row(md2, "a-eq1"), Catch::Contains("error 2.5e-10") && Catch::EndsWith("| **refuted** |"));
  CHECK(claims_table_row(md2, "b-eq2") == claims_table_row(md, "b-eq2"));
}

TEST_CASE("claims table: the verdict counts line counts each verdict, in alphabetical order", "[report]") {
  const auto rows = ex::claim_rows_from_claims_json(hand_made_claims());
  CHECK(ex::verdict_counts_text(rows) == "4 claims: 1 erratum; 1 refuted; 2 verified;");
  json tampered = hand_made_claims();
  tampered["claims"][3]["verdict"] = "not-reproducible";
  CHECK(ex::verdict_counts_text(ex::claim_rows_from_claims_json(tampered)) ==
        "4 claims: 1 erratum; 1 not-reproducible; 1 refuted; 1 verified;");
  CHECK(ex::verdict_counts_text({}) == "0 claims:");
}

TEST_CASE("claims table: errata list only errata, refutations only refuted and not-reproducible", "[report]") {
  const auto rows = ex::claim_rows_from_claims_json(hand_made_claims());
  CHECK(ex::errata_markdown(rows) == "- **[XGS eq 2]** `b-eq2`: printed: printed\nform\n  - corrected form: CF\n"
                                     "  - witness: W1\n");
  CHECK(ex::refutations_markdown(rows) == "- **refuted** [LCC Thm 1] `c-thm1`: collapse\n  - witness: W2\n  - N2\n");
  const std::vector<ex::ClaimRow> verified = {rows[0], rows[3]};
  CHECK(ex::errata_markdown(verified) == "No erratum.\n");
  CHECK(ex::refutations_markdown(verified) == "None.\n");
  const json j = ex::claims_json(rows);
  REQUIRE(j.size() == 4);
  CHECK(j[1]["corrected_form"] == "CF");
  CHECK_FALSE(j[0].contains("witness"));  // empty fields are left out
}

TEST_CASE("report header: the summary line counts the rows of the claims table it introduces", "[report]") {
  const auto rows = ex::claim_rows_from_claims_json(hand_made_claims());
  ex::ReportConfig cfg;
  cfg.profile = "quick";
  const std::string md = ex::report_header_markdown(cfg, "REV", "2026-01-01T00:00:00Z", rows);
  CHECK_THAT(md, Catch::StartsWith("# dmlbench report\n\nGenerated by `dmlbench report --profile quick` (git REV) on "
                                   "2026-01-01T00:00:00Z. Do not edit: rerun `bash scripts/run_main.sh --quick`.\n"));
  CHECK_THAT(md, Catch::Contains("**Quick profile:**"));
  CHECK_THAT(md, Catch::Contains("## Summary\n\n4 claims: 1 erratum; 1 refuted; 2 verified; Every row below"));
  CHECK_THAT(md, Catch::Contains("## Claims\n\n" + ex::claims_table_markdown(rows) + "\n## Errata\n"));
  cfg.profile = "default";
  const std::string deflt = ex::report_header_markdown(cfg, "REV", "T", rows);
  CHECK_THAT(deflt, !Catch::Contains("Quick profile") && !Catch::Contains("--quick"));
}

TEST_CASE("report claims: gathered from the work folder's claims files, malformed ones rejected", "[report]") {
  const fs::path work = fs::temp_directory_path() / ("dmlbench-report-claims-" + std::to_string(::getpid()));
  fs::remove_all(work);
  CHECK_THROWS_WITH(ex::gather_claims(work.string(), {}), Catch::Contains("no claims to report"));
  fs::create_directories(work / "sims-claims");
  std::ofstream(work / "sims-claims/claims.json") << hand_made_claims().dump();
  const auto c = ex::gather_claims(work.string(), {});
  CHECK(c.rows.size() == 4);
  CHECK(c.sources["sims-claims"]["claims"] == 4);
  CHECK(c.sources["sims-claims"]["git_revision"] == "abc123");
  CHECK_FALSE(c.sources.contains("theory-claims"));
  json bad = hand_made_claims();
  bad["claims"][2].erase("verdict");
  std::ofstream(work / "sims-claims/claims.json", std::ios::trunc) << bad.dump();
  CHECK_THROWS_WITH(ex::gather_claims(work.string(), {}), Catch::Contains("sims-claims/claims.json: claim without a "
                                                                          "string \"verdict\""));
  fs::remove_all(work);
}
