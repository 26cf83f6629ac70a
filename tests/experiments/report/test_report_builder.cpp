// The report builder (`dmlbench report`) on small fixture runs (tests/fixtures/report): every fixture claim gets a
// row with its verdict, the [LCC] Table 1 verdicts follow direction and significance, a failing notebook fails the
// command with its error shown and leaves the previous report as it was, an unchanged stage is not rerun.
#include "report_builder.hpp"

#include "claims_table_row.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using dmlbench::report::json;
namespace rp = dmlbench::report;

namespace {

const std::string kFixtures = std::string(DMLBENCH_SOURCE_DIR) + "/tests/fixtures/report";

json fixture_json(const std::string& rel) { return json::parse(slurp(kFixtures + "/" + rel)); }

struct Result {
  int status;
  std::string output;  // stdout and stderr together
};

Result run(const std::string& args) {
  const std::string cmd = std::string(DMLBENCH_EXE) + " " + args + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), int(buf.size()), pipe.get())) out += buf.data();
  const int ws = pclose(pipe.release());
  return {WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, out};
}

// A fresh copy of the fixture work folder in a per-test temporary folder.
fs::path fresh_copy(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dmlbench-report-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kFixtures + "/work", dir / "work", fs::copy_options::recursive);
  return dir;
}

}  // namespace

TEST_CASE("claims rows carry each fixture claim's verdict, corrected form and witness", "[report]") {
  const auto rows = rp::claim_rows_from_claims_json(fixture_json("work/theory-claims/claims.json"));
  REQUIRE(rows.size() == 3);
  const std::string table = rp::claims_table_markdown(rows);
  CHECK_THAT(claims_table_row(table, "fx-verified"), Catch::Contains("**verified**"));
  CHECK_THAT(claims_table_row(table, "fx-erratum"), Catch::Contains("**erratum**"));
  CHECK_THAT(claims_table_row(table, "fx-refuted"), Catch::Contains("**refuted**"));
  CHECK_THAT(claims_table_row(table, "fx-verified"), Catch::Contains("error 2.2e-16 (tol 1.0e-12"));
  const std::string errata = rp::errata_markdown(rows);
  CHECK_THAT(errata, Catch::Contains("FIXTURE-CORRECTED-FORM") && Catch::Contains("FIXTURE-WITNESS-1"));
  CHECK_THAT(errata, !Catch::Contains("fx-refuted") && !Catch::Contains("fx-verified"));
  CHECK_THAT(rp::refutations_markdown(rows), Catch::Contains("FIXTURE-WITNESS-2") && !Catch::Contains("fx-erratum"));
}

TEST_CASE("a claims file with a claim lacking its verdict is rejected, not reported", "[report]") {
  json j = fixture_json("work/theory-claims/claims.json");
  j["claims"][1].erase("verdict");
  CHECK_THROWS_WITH(rp::claim_rows_from_claims_json(j), Catch::Contains("verdict"));
  CHECK_THROWS_WITH(rp::claim_rows_from_claims_json(json::object()), Catch::Contains("claims"));
}

// The verdicts themselves come from the reproduction's test (reproduction.hpp, tested in test_run_config.cpp); the
// report carries each to its claim row with the paper's numbers and what was measured.
TEST_CASE("reproduction summary rows carry their verdicts, the paper's numbers and the measured means [LCC Table 1]",
          "[report]") {
  const auto rows = rp::claim_rows_from_reproduction_summary(fixture_json("work/mnist-evenodd/summary.json"), "LCC",
                                                             "Table 1");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].id == "lcc-table1-r1-train-digits");
  CHECK(rows[0].verdict == "verified");
  CHECK(rows[1].verdict == "not-reproducible");
  CHECK_THAT(rows[1].note, Catch::Contains("not significant"));
  CHECK(rows[2].verdict == "refuted");
  CHECK_THAT(rows[2].witness, Catch::Contains("eps minus random = -5.0 over 3 seeds"));
  CHECK(rows[0].paper_value == "42.0 -> 65.8");
  CHECK_THAT(rows[0].measured, Catch::EndsWith("triplet 40.0 +- 1.0, triplet + EPS 60.0 +- 1.0 (3 seeds)"));

  // One seed: the row says 1 seed, never +- 0.0 or nan.
  json one = fixture_json("work/mnist-evenodd/summary.json");
  for (auto& r : one["variants"][0]["rows"]) {
    r["p_value"] = nullptr;
    r["seeds_per_arm"] = 1;
    for (const char* a : {"random", "eps"}) r["arms"][a]["std"] = nullptr;
  }
  const auto single = rp::claim_rows_from_reproduction_summary(one, "LCC", "Table 1");
  CHECK_THAT(single[0].measured, Catch::Contains("triplet 40.0 (1 seed)") && Catch::EndsWith("(1 seed)"));
  CHECK_THAT(single[0].measured, !Catch::Contains("nan") && !Catch::Contains("+- 0.0"));
  CHECK_THROWS(rp::claim_rows_from_reproduction_summary(json{{"rows", json::array()}}, "LCC", "Table 1"));

  // A claim against a bound ([XHN] Fig 3's bars): the arm at its path against the fixed number, no spread for it
  json bound = fixture_json("work/mnist-evenodd/summary.json");
  auto& b = bound["variants"][0]["rows"][2];
  b["treatment"] = {{"arm", "eps"}, {"label", "triplet + EPS"}, {"path", "s.up_left"}, {"mean", 0.6}, {"std", 0.7}};
  b["baseline"] = {{"arm", "bound"}, {"label", "the bound 1"}, {"path", ""}, {"mean", 1.0}, {"std", 0.0}};
  const auto rb = rp::claim_rows_from_reproduction_summary(bound, "XHN", "Fig 3");
  CHECK_THAT(rb[2].measured, Catch::StartsWith("triplet + EPS (s.up_left) 0.6 +- 0.7 vs the bound 1 ("));
  CHECK_THAT(rb[2].witness, Catch::Contains("eps minus the bound 1 = "));
}

TEST_CASE("the stage hash changes with any byte of its config", "[report]") {
  CHECK(rp::fnv1a_hex("") == "cbf29ce484222325");  // FNV-1a 64 offset basis
  CHECK(rp::fnv1a_hex("a") == "af63dc4c8601ec8c");  // published FNV-1a 64 test vector
  CHECK(rp::fnv1a_hex("{\"seeds\":5}") != rp::fnv1a_hex("{\"seeds\":1}"));
}

TEST_CASE("the code hash of a stage follows the content of its sources, not their timestamps", "[report]") {
  const fs::path dir = fs::temp_directory_path() / ("dmlbench-tree-hash-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "layer/sub");
  { std::ofstream(dir / "layer/a.cpp") << "int a = 1;\n"; }
  { std::ofstream(dir / "layer/sub/b.hpp") << "int b();\n"; }
  { std::ofstream(dir / "layer/report_x.cpp") << "skipped\n"; }
  const std::string h0 = rp::tree_hash(dir.string(), {"layer"}, {"report_"});
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_"}) == h0);  // stable
  { std::ofstream(dir / "layer/a.cpp") << "int a = 1;\n"; }              // rewritten, same content
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_"}) == h0);
  { std::ofstream(dir / "layer/report_x.cpp") << "edited\n"; }          // a skipped file
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_"}) == h0);
  fs::create_directories(dir / "layer/scopes");
  { std::ofstream(dir / "layer/scopes/X.json") << "{}\n"; }                 // a file in a skipped folder
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_", "scopes/"}) == h0);
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_"}) != h0);           // negative control: not skipped
  fs::remove_all(dir / "layer/scopes");
  // a path prefix (a paper's theory checks) leaves out that path only, not a file of the same name elsewhere
  { std::ofstream(dir / "layer/sub/claims_p.cpp") << "a paper's checks\n"; }
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_", "layer/sub/claims_"}) == h0);
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_", "layer/claims_"}) != h0);  // negative control
  fs::remove(dir / "layer/sub/claims_p.cpp");
  { std::ofstream(dir / "layer/sub/b.hpp") << "int b(int);\n"; }         // one byte of code
  CHECK(rp::tree_hash(dir.string(), {"layer"}, {"report_"}) != h0);
  fs::remove_all(dir);
}

TEST_CASE("report on fixture runs: a row per fixture claim with its verdict, the figure with its caption", "[report]") {
  const fs::path dir = fresh_copy("ok");
  const auto r = run("report --stages figures --store-from 0 --work " + (dir / "work").string() + " --out " +
                     (dir / "reports").string() + " --notebooks " + kFixtures + "/notebooks_ok");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string md = slurp(dir / "reports/REPORT.md");
  const std::pair<const char*, const char*> expected[] = {
      {"fx-verified", "verified"}, {"fx-erratum", "erratum"}, {"fx-refuted", "refuted"},
      {"fx-sims-not-reproducible", "not-reproducible"}, {"lcc-table1-r1-train-digits", "verified"},
      {"lcc-table1-r1-test-digits", "not-reproducible"}, {"lcc-table1-r10-test-digits", "refuted"}};
  for (const auto& [id, verdict] : expected) {
    INFO(id);
    CHECK_THAT(claims_table_row(md, id), Catch::EndsWith(std::string("| **") + verdict + "** |"));
  }
  CHECK_THAT(md, Catch::Contains("3 claims on the papers' own statements") && Catch::Contains("(7 rows in all)."));
  // the fixture's paper, counted alone: verified, direction only, refuted, contested, premise not reached, erratum,
  // not reproduced, inconclusive, other
  CHECK_THAT(md, Catch::Contains("| [LCC] | 3 | 1 | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 0 |"));
  CHECK_THAT(md, Catch::Contains("FIXTURE-CORRECTED-FORM") && Catch::Contains("FIXTURE-WHY"));
  CHECK_THAT(md, Catch::Contains("![[XHN] Fig 0](figures/fixture_line.png)") && Catch::Contains("FIXTURE-CAPTION"));
  CHECK(fs::file_size(dir / "reports/figures/fixture_line.png") > 100);
  // each reproduction side by side with the paper, from its file; the probe's variants one row each, after the
  // reproduction it names (compare_with)
  CHECK_THAT(md, Catch::Contains("## [LCC] Table 1 and Fig 2") && Catch::Contains("## [LCC] Table 1: the EPS gap"));
  CHECK_THAT(md, Catch::Contains("| R@10 test digits | 95.0 +- 0.5 | 90.0 +- 0.5 | 93.3 | 93.6 | -5.0 | refuted |"));
  CHECK_THAT(md, !Catch::Contains("(p = ") && !Catch::Contains("Welch"));  // one rule printed: no Welch p
  CHECK_THAT(claims_table_row(md, "normalize"), Catch::Contains("| FIXTURE-NORMALIZE-CHANGE | 30.0 +- 2.0 | 70.0 +- 2.0 | "
                                                      "40.0 | 33.0 +- 1.0 | 44.0 +- 1.0 | 11.0 | "
                                                      "90.0 +- 1.0 | 60.0 +- 2.0 |"));
  CHECK_THAT(claims_table_row(md, "mnist-evenodd"), Catch::Contains("| 40.0 +- 1.0 | 60.0 +- 1.0 | 20.0 |"));
  CHECK(fs::exists(dir / "reports/experiments/mnist-evenodd-probe_summary.json"));
  // the reproductions this profile does not run and that say what they need: claims and command, no numbers
  const auto not_run = md.substr(md.find("## Not run here"), md.find("## Figures") - md.find("## Not run here"));
  CHECK_THAT(not_run, Catch::Contains("`xhn-table1-cub-l2nd-vs-l1st`") && Catch::Contains("a CUDA GPU") &&
                          Catch::Contains("dmlbench reproduce --file experiments/reproductions/xhn_table1_cub.json "
                                          "--profile full --out <dir>"));
  CHECK_THAT(not_run, !Catch::Contains("65.2") && !Catch::Contains("+-"));  // the paper's R@1: never shown as ours
  const json merged = json::parse(slurp(dir / "reports/claims.json"));
  CHECK(merged["claims"].size() == 7);
  // no machine's path: the fixture summary's resolved config holds data_dir
  // "/nonexistent-machine/...": REPORT.md shows the config file and the overrides instead, the copied summary drops it
  CHECK_THAT(md, Catch::Contains("Run config `experiments/configs/lcc-mnist-evenodd.json`, with the overrides: ") &&
                     Catch::Contains("arm random `miner.name=trip-sh`"));
  CHECK_THAT(md, !Catch::Contains("/nonexistent-machine") && !Catch::Contains("resolved:"));
  CHECK_THAT(slurp(dir / "reports/experiments/mnist-evenodd_summary.json"), !Catch::Contains("/nonexistent-machine"));
  CHECK_THAT(slurp(dir / "work/mnist-evenodd/summary.json"), Catch::Contains("/nonexistent-machine"));  // the control

  // the committed lcc_table1 study's tuned stage (its fixture summary: r1 test digits verified where the default is
  // not-reproducible): default and tuned side by side, robust where they agree, fragile where not
  const auto tuned = md.substr(md.find("## Default and tuned verdicts"));
  CHECK_THAT(tuned, Catch::Contains("| lcc-table1-r1-train-digits | verified | verified | robust |"));
  CHECK_THAT(tuned, Catch::Contains("| lcc-table1-r1-test-digits | not-reproducible | verified | fragile |"));
  CHECK_THAT(tuned, Catch::Contains("| random | optimizer.lr "));
  CHECK(merged["tuned"]["claims"].size() == 3);
  CHECK(fs::exists(dir / "reports/experiments/mnist-evenodd-tuned_summary.json"));
  // The same run again: the figures stage's config hash is unchanged, so it is not rerun.
  const auto again = run("report --stages figures --work " + (dir / "work").string() + " --out " +
                         (dir / "reports").string() + " --notebooks " + kFixtures + "/notebooks_ok");
  INFO(again.output);
  CHECK(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains("figures: unchanged (config hash"));
  // the stage it ran is kept in the report folder, without this machine's folders ...
  const json stored = json::parse(slurp(dir / "reports/stages/figures/stage.json"));
  CHECK(stored["config_hash"] == json::parse(slurp(dir / "work/figures/stage.json"))["config_hash"]);
  CHECK(fs::exists(dir / "reports/stages/figures/fixture_line.png"));
  CHECK_THAT(slurp(dir / "reports/stages/figures/stage.json"), !Catch::Contains(dir.string()));
  // ... and a new work folder (another session or machine) restores it instead of rerunning the notebooks
  fs::copy(kFixtures + "/work", dir / "work-b", fs::copy_options::recursive);
  fs::remove_all(dir / "work-b/figures");
  const auto restored = run("report --stages figures --work " + (dir / "work-b").string() + " --out " +
                            (dir / "reports").string() + " --notebooks " + kFixtures + "/notebooks_ok");
  INFO(restored.output);
  CHECK(restored.status == 0);
  CHECK_THAT(restored.output, Catch::Contains("figures: restored from") && !Catch::Contains("notebook "));
  CHECK(slurp(dir / "work-b/figures/fixture_line.png") == slurp(dir / "work/figures/fixture_line.png"));
  CHECK_THAT(slurp(dir / "reports/REPORT.md"), Catch::Contains("| figures | `" + stored["config_hash"].get<std::string>()) &&
                                                  Catch::Contains("| restored |"));
  CHECK(fs::exists(dir / "reports/stages/figures/stage.json"));  // carried into the new report folder
  CHECK_THAT(slurp(dir / "reports/REPORT.md"), Catch::Contains(" cores, "));  // the machine the stage ran on
  // the control: a stage quicker than --store-from (a minute by default) is rerun, not carried
  const auto quick = run("report --stages figures --force --work " + (dir / "work").string() + " --out " +
                         (dir / "reports-b").string() + " --notebooks " + kFixtures + "/notebooks_ok");
  INFO(quick.output);
  CHECK(quick.status == 0);
  CHECK_FALSE(fs::exists(dir / "reports-b/stages/figures"));
  fs::remove_all(dir);
}

// The training verdicts end to end: the fixture's [LCC] Table 1 rows given eight seeds a side and their statistics
// (from their seeds, as `reproduce` writes them) are decided by the anytime interval at 0.05 / 3, Bonferroni over the
// report's three training claims: the large rise verified, the large fall refuted, the +1.0 with per-seed sd 4.7 (the
// paper's +7.1, delta 3.55) neither: inconclusive, with the detectable effect and seeds at that level. A previous
// claims.json saying not-reproducible for it: the moved-verdicts section lists the change.
TEST_CASE("report: training claims decided by the anytime interval at the family's level, counted, and listed where "
          "they moved [LCC Table 1]",
          "[report]") {
  const fs::path dir = fresh_copy("adjusted");
  const fs::path summary = dir / "work/mnist-evenodd/summary.json";
  json sm = json::parse(slurp(summary));
  const std::vector<double> base = {40, 41, 39, 40.5, 39.5, 40.2, 39.8, 40.0},
                            small = {0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.1},
                            wide = {-6, 4, -2.5, 7.5, -4.5, 1.5, 3, -3};  // mean 0, sd 4.7
  const double centre[3] = {20, 1, -5};
  std::size_t k = 0;
  for (auto& row : sm["variants"][0]["rows"]) {
    std::vector<double> random = base, eps = base;
    for (std::size_t i = 0; i < base.size(); ++i) eps[i] += centre[k] + (k == 1 ? wide[i] : small[i]);
    ++k;
    row["arms"]["eps"]["seeds"] = eps;
    row["arms"]["random"]["seeds"] = random;
    dmlbench::experiments::ClaimSides sides;
    sides.treatment = eps;
    sides.baseline = random;
    const double paper = row["arms"]["eps"]["paper"].get<double>() - row["arms"]["random"]["paper"].get<double>();
    sides.paper_difference = paper;
    sides.delta = 0.5 * std::abs(paper);
    sides.delta_reason = "0.5 x |the paper's difference|";
    row["statistics"] = dmlbench::experiments::claim_statistics(sides);
  }
  std::ofstream(summary) << sm.dump(1);
  // the reproduction as committed but for its design: looks from 4 seeds to a cap of 10 (a fixture design file), so
  // that a claim can stop before its arms' last seed
  fs::create_directories(dir / "reproductions");
  json repro = json::parse(slurp(fs::path(DMLBENCH_SOURCE_DIR) / "experiments/reproductions/lcc_table1.json"));
  repro["profiles"]["default"]["design"] = "tests/fixtures/report/design_first_look_4.json";
  std::ofstream(dir / "reproductions/lcc_table1.json") << repro.dump(1);
  fs::create_directories(dir / "reports");
  std::ofstream(dir / "reports/claims.json")
      << json{{"claims", json::array({json{{"id", "lcc-table1-r1-test-digits"}, {"verdict", "not-reproducible"}},
                                      json{{"id", "lcc-table1-r1-train-digits"}, {"verdict", "verified"}}})}}.dump();
  const auto r = run("report --stages figures --multiplicity holm --work " + (dir / "work").string() + " --out " +
                     (dir / "reports").string() + " --reproductions " + (dir / "reproductions").string() +
                     " --notebooks " + kFixtures + "/notebooks_ok");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string md = slurp(dir / "reports/REPORT.md");
  CHECK_THAT(claims_table_row(md, "lcc-table1-r1-train-digits"), Catch::EndsWith("| **verified** |"));
  CHECK_THAT(claims_table_row(md, "lcc-table1-r10-test-digits"), Catch::EndsWith("| **refuted** |"));
  const std::string ns = claims_table_row(md, "lcc-table1-r1-test-digits");
  CHECK_THAT(ns, Catch::EndsWith("| **inconclusive** |"));
  // the wide claim is read at its own stop: the fixture's profile looks from 4 seeds to a cap of 10, and at 4 its
  // t carried to 10 seeds cannot reach c_10, so it stops there; its arms' 8 seeds are a labelled re-read
  CHECK_THAT(ns, Catch::Contains("difference +1.8 [") && Catch::Contains("over 4 seeds by seed") &&
                     Catch::Contains("level 0.05 / 3 (Bonferroni)") &&
                     Catch::Contains("read at its own stop, 4 of its arms' 8 seeds; all 8 re-read") &&
                     Catch::Contains("not the verdict): +1.0 [") && Catch::Contains("the paper's +7.1 lies inside") &&
                     Catch::Contains("the design (looks from 4 to 10 seeds) decides an effect of 7.1 at sd 6.1 with "
                                     "probability "));
  CHECK_THAT(md, Catch::Contains("3 training claims, each decided on its per-seed differences by the test of its "
                                 "estimand at its own stop, at the level of Bonferroni on e-values (family-wise error) "
                                 "within its family") &&
                     Catch::Contains("the papers' own statements: 3 rows, a family of the 3 with at least two seeds") &&
                     Catch::Contains("1 verified; 0 direction-only; 1 refuted; 0 not-reproduced; 1 inconclusive;"));
  CHECK_THAT(md, Catch::Contains("## Verdicts that moved") &&
                     Catch::Contains("| `lcc-table1-r1-test-digits` | not-reproducible | **inconclusive** |"));
  CHECK_THAT(md, !Catch::Contains("| `lcc-table1-r1-train-digits` | verified |"));  // unchanged: not listed
  const json claims = json::parse(slurp(dir / "reports/claims.json"));
  CHECK(claims["config"]["multiplicity"] == "holm");
  for (const auto& c : claims["claims"])
    if (c["id"] == "lcc-table1-r10-test-digits") {
      CHECK(c["verdict"] == "refuted");
      CHECK(c["statistics"]["decision"]["family_size"] == 3);
      CHECK(c["statistics"]["ci_high"].get<double>() < 0);  // the deciding interval, below 0
    }
  fs::remove_all(dir);
}

TEST_CASE("a notebook that fails fails the command, shows its error and keeps the previous report", "[report]") {
  const fs::path dir = fresh_copy("failing");
  fs::create_directories(dir / "reports");
  { std::ofstream(dir / "reports/REPORT.md") << "PREVIOUS-REPORT\n"; }
  const auto r = run("report --stages figures --work " + (dir / "work").string() + " --out " +
                     (dir / "reports").string() + " --notebooks " + kFixtures + "/notebooks_failing");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("FIXTURE-NOTEBOOK-FAILS-ON-PURPOSE"));  // the notebook's own error
  CHECK_THAT(r.output, Catch::Contains("notebook fail.ipynb failed to execute"));
  CHECK_THAT(r.output, Catch::Contains("previous report") && Catch::Contains("left as it was"));
  CHECK(slurp(dir / "reports/REPORT.md") == "PREVIOUS-REPORT\n");
  CHECK_FALSE(fs::exists(dir / "reports.new"));
  fs::remove_all(dir);
}

TEST_CASE("report rejects an unknown stage name and a missing notebooks manifest", "[report]") {
  const fs::path dir = fresh_copy("bad");
  auto r = run("report --stages figurez --work " + (dir / "work").string() + " --out " + (dir / "reports").string() +
               " --notebooks " + kFixtures + "/notebooks_ok");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::StartsWith("dmlbench: error: --stages: no stage named 'figurez'"));
  r = run("report --work " + (dir / "work").string() + " --out " + (dir / "reports").string() + " --notebooks " +
          dir.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("figures.json"));
  CHECK_FALSE(fs::exists(dir / "reports"));
  fs::remove_all(dir);
}
