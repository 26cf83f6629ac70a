// The verdicts under other kernels (bench/kernel_recurrence.py's record) beside each training row of
// the report: shown only while the record is this report's (its stage hashes and baseline verdicts), a flip of
// direction and a move to or from undecided told apart, and a record that is not one refused with its path.
#include "dmlbench/experiments/report_claims_table.hpp"
#include "dmlbench/experiments/report_kernel_recurrence.hpp"

#include "../../support/scratch_dir.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

std::vector<ex::Stage> stages() {
  ex::Stage a, b;
  a.name = "stage-a";
  a.hash = "aaaa";
  b.name = "stage-b";
  b.hash = "bbbb";
  return {a, b};
}

// Baseline: c-same verified, c-fall verified, c-flip refuted, c-other verified (stage-b), c-undecided inconclusive;
// X=1 trains stage-a again (c-fall inconclusive, c-flip verified there), Y=2 both stages (all as the baseline).
json record() {
  const json base = {{"c-same", "verified"}, {"c-fall", "verified"}, {"c-flip", "refuted"}, {"c-other", "verified"},
                     {"c-undecided", "inconclusive"}};
  json x = base;
  x["c-fall"] = "inconclusive";
  x["c-flip"] = "verified";
  return {{"config", {{"command", "bench/kernel_recurrence.py"}}},
          {"baseline", {{"machine", "a test machine"}, {"stage_hashes", {{"stage-a", "aaaa"}, {"stage-b", "bbbb"}}},
                        {"verdicts", base}}},
          {"settings",
           {{"X=1", {{"stages", {"stage-a"}}, {"claims", {"c-same", "c-fall", "c-flip", "c-undecided"}}, {"verdicts", x},
                     {"seconds", {{"stage-a", 60.4}}}}},
            {"Y=2", {{"stages", {"stage-a", "stage-b"}},
                     {"claims", {"c-same", "c-fall", "c-flip", "c-undecided", "c-other"}},
                     {"verdicts", base}}}}}};
}

ex::ClaimRow row(const std::string& id, const std::string& verdict, bool decided = true) {
  ex::ClaimRow r;
  r.id = id;
  r.paper = "LCC";
  r.verdict = verdict;
  r.measured = "m";
  r.statistics = decided ? json{{"decision", {{"e_value", 1.0}}}} : json{{"outcome_reason", "1 seed"}};
  return r;
}

std::vector<ex::ClaimRow> rows() {
  return {row("c-same", "verified"), row("c-fall", "verified"), row("c-flip", "refuted"), row("c-other", "verified"),
          row("c-undecided", "inconclusive"), row("c-one-seed", "inconclusive", false)};
}

std::string written(const ScratchDir& d, const json& j) {
  const std::string p = d.path("kernels.json");
  std::ofstream(p) << j.dump(1);
  return p;
}

}  // namespace

TEST_CASE("kernel recurrence: each decided row says what it became under each setting",
          "[report][kernels]") {
  ScratchDir d("kernels-attach");
  auto k = ex::read_kernel_recurrence(written(d, record()), "bench/results/kernel_recurrence.json", stages());
  REQUIRE(k.current());
  auto rs = rows();
  const auto sensitive = ex::attach_kernel_recurrence(rs, k);
  CHECK(sensitive == std::vector<std::string>{"c-fall", "c-flip"});
  const json& same = rs[0].statistics["recurrence"]["kernels"];
  CHECK(same["rerun_under"] == json::array({"X=1", "Y=2"}));
  CHECK(same["machine_sensitive"] == false);
  CHECK(rs[0].measured == "m; under other kernels: the same under `X=1` (its stage rerun) and `Y=2` (its stage rerun)");
  CHECK(rs[1].statistics["recurrence"]["kernels"]["machine_sensitive"] == true);
  CHECK(rs[1].statistics["recurrence"]["kernels"]["flipped"] == false);
  CHECK(rs[1].measured == "m; under other kernels: inconclusive under `X=1` (its stage rerun); the same under `Y=2` (its "
                         "stage rerun) (machine-sensitive)");
  CHECK(rs[2].statistics["recurrence"]["kernels"]["flipped"] == true);
  CHECK_THAT(rs[2].measured, Catch::EndsWith("(its stage rerun) (flipped direction)"));
  CHECK(rs[3].statistics["recurrence"]["kernels"]["rerun_under"] == json::array({"Y=2"}));
  CHECK_THAT(rs[3].measured, Catch::Contains("the same under `X=1` (the family decided again) and `Y=2` (its stage rerun)"));
  CHECK(rs[4].statistics["recurrence"]["kernels"]["machine_sensitive"] == false);  // undecided both times
  CHECK_FALSE(rs[5].statistics.contains("recurrence"));                          // no decision: nothing to recur
  // the claims table marks the moved rows (and only those) beside the verdict, claims.json too
  const std::string table = ex::claims_table_markdown(rs);
  CHECK_THAT(table, Catch::Contains("| **verified** (machine-sensitive) |"));
  CHECK_THAT(table, Catch::Contains("| **refuted** (machine-sensitive) |"));
  CHECK_THAT(table, !Catch::Contains("| **inconclusive** (machine-sensitive) |"));
  const json cj = ex::claims_json(rs);
  CHECK(cj[1].value("machine_sensitive", false));
  CHECK_FALSE(cj[0].contains("machine_sensitive"));
  const std::string md = ex::kernel_recurrence_markdown(k, rs);
  CHECK_THAT(md, Catch::Contains("## Verdicts on other kernels"));
  CHECK_THAT(md, Catch::Contains("5 training rows of the family compared, 5 of them from a stage trained again under some "
                                 "setting; 2 moved"));
  CHECK_THAT(md, Catch::Contains("| `X=1` | `stage-a` | 60 |"));
  CHECK_THAT(md, Catch::Contains("| `Y=2` | `stage-a` and `stage-b` | 0 |"));
  CHECK_THAT(md, Catch::Contains("| `c-fall` | verified | inconclusive | verified |"));
  CHECK_THAT(md, Catch::Contains("on a test machine"));
}

TEST_CASE("kernel recurrence: a record of other evidence is shown as stale, never beside a row",
          "[report][kernels]") {
  ScratchDir d("kernels-stale");
  SECTION("a stage's config hash differs") {
    json r = record();
    r["baseline"]["stage_hashes"]["stage-a"] = "0000";
    auto k = ex::read_kernel_recurrence(written(d, r), "k.json", stages());
    CHECK_FALSE(k.current());
    CHECK_THAT(k.stale.front(), Catch::Contains("stage stage-a: config hash 0000, here aaaa"));
    auto rs = rows();
    CHECK(ex::attach_kernel_recurrence(rs, k).empty());
    CHECK_FALSE(rs[0].statistics.contains("recurrence"));
    CHECK_THAT(ex::kernel_recurrence_markdown(k, rs), Catch::Contains("made from other evidence than this report's"));
  }
  SECTION("a stage that is not the report's") {
    json r = record();
    r["baseline"]["stage_hashes"]["stage-z"] = "zzzz";
    CHECK_THAT(ex::read_kernel_recurrence(written(d, r), "k.json", stages()).stale.front(),
               Catch::Contains("stage stage-z is not one of this report's"));
  }
  SECTION("a row decided otherwise than the record's baseline (the control: the same record, one verdict changed)") {
    auto k = ex::read_kernel_recurrence(written(d, record()), "k.json", stages());
    auto rs = rows();
    rs[3].verdict = "refuted";
    CHECK(ex::attach_kernel_recurrence(rs, k).empty());
    CHECK_THAT(k.stale.front(), Catch::Contains("claim c-other: baseline verified, here refuted"));
    for (const auto& r : rs) CHECK_FALSE(r.statistics.contains("recurrence"));
  }
}

TEST_CASE("kernel recurrence: a file that is not a record is refused with its path",
          "[report][kernels]") {
  ScratchDir d("kernels-bad");
  json no_base = record();
  no_base.erase("baseline");
  CHECK_THROWS_WITH(ex::read_kernel_recurrence(written(d, no_base), "k", stages()),
                    Catch::Contains("kernels.json: not a kernel recurrence record"));
  json bad_word = record();
  bad_word["settings"]["X=1"]["verdicts"]["c-same"] = "maybe";
  CHECK_THROWS_WITH(ex::read_kernel_recurrence(written(d, bad_word), "k", stages()),
                    Catch::Contains("settings.X=1.verdicts.c-same is not a verdict"));
  json bad_setting = record();
  bad_setting["settings"]["noequals"] = {{"verdicts", json::object()}};
  CHECK_THROWS_WITH(ex::read_kernel_recurrence(written(d, bad_setting), "k", stages()),
                    Catch::Contains("setting \"noequals\" is not KEY=VALUE"));
  json no_stages = record();
  no_stages["settings"]["Y=2"].erase("stages");
  CHECK_THROWS_WITH(ex::read_kernel_recurrence(written(d, no_stages), "k", stages()),
                    Catch::Contains("setting Y=2 names no \"stages\""));
}
