// The seeds a reproduction stage of the report spends: the planned family, the fewest seeds that can
// decide at its level, the look at a stage's claims (decided, waiting, beyond the cap's reach), and the profile keys
// that set it, with their bad inputs.
#include "dmlbench/experiments/anytime_prior_variance.hpp"
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_design.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

// A claim row of a summary: the per-seed values against 0 (one sample), delta 1.
json claim_row_of(const std::string& id, std::vector<double> values) {
  ex::ClaimSides s;
  s.treatment = std::move(values);
  s.bound = 0;
  s.delta = 1;
  s.delta_reason = "a test";
  return {{"claim", id}, {"statistics", ex::claim_statistics(s)}};
}

// The same with per-seed differences m + spread z_k.
json claim_row(const std::string& id, double m, double spread, std::size_t seeds) {
  static const std::vector<double> z = {0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.1, 0.25, -0.25, 0.15, -0.15};
  std::vector<double> values;
  for (std::size_t k = 0; k < seeds; ++k) values.push_back(m + spread * z[k % z.size()] * (1 + 0.01 * double(k)));
  return claim_row_of(id, std::move(values));
}

json summary_of(const std::vector<json>& rows) { return {{"variants", json::array({json{{"rows", rows}}})}}; }

}  // namespace

TEST_CASE("seed spending: the fewest seeds that can decide at a level, as the interval's multiplier says",
          "[report][seeds]") {
  // the anytime_t_test.hpp header (g = 7.33): 3 at 0.05, 4 at the report's looks (0.05 x 0.6), 5 at 0.005; at
  // Bonferroni's 0.05 / 75, 6 (with g = 1 they were 5, 5, 7 and 8)
  CHECK(ex::first_decidable_seeds(0.05) == 3);
  CHECK(ex::first_decidable_seeds(0.05 * 0.6) == 4);
  CHECK(ex::first_decidable_seeds(0.005) == 5);
  CHECK(ex::first_decidable_seeds(0.05 / 75) == 6);
  for (const double level : {0.05, 0.01, 0.05 / 75, 1e-6}) {
    const std::size_t n = ex::first_decidable_seeds(level);
    CHECK(std::isfinite(ex::anytime_radius_multiplier(n, level)));
    CHECK(std::isinf(ex::anytime_radius_multiplier(n - 1, level)));  // the control: one fewer cannot
  }
  CHECK(ex::first_decidable_seeds(1e-300, ex::default_anytime_g, 20) == 0);  // none up to the limit
  CHECK_THROWS_WITH(ex::first_decidable_seeds(0), Catch::Contains("(0, 1)"));
}

TEST_CASE("seed spending: a stage's look counts its decided claims and names those more seeds could decide",
          "[report][seeds]") {
  const json summary = summary_of({claim_row("c-decided", 5, 1, 8), claim_row("c-near", 0.9, 4, 8),
                                   claim_row("c-far", 0.05, 40, 8), claim_row("c-one", 1, 1, 1),
                                   claim_row("c-flat", 2, 0, 8), json{{"claim", "no-statistics"}}});
  // first look at 8: every claim read at its present seeds
  const ex::SeedLook look = ex::look_at_stage(summary, ex::ClaimFamily{1, 0}, 8, 20);
  CHECK(look.claims == 5);  // the row without statistics is no claim of the family
  CHECK(look.seeds == 8);
  CHECK(look.decided == 1);
  // c-near: |t| = 2.9 at 8 seeds carried to 20 (x sqrt(20 / 8)) passes c_20; c-far's |t| = 0.01 could not; c-one has
  // fewer than two seeds and waits; c-flat's seeds are all equal: the t-test cannot judge them, and waiting for the
  // seed that breaks the tie would select it, so it stops (beyond reach), never waits
  CHECK(look.waiting == std::vector<std::string>{"c-near", "c-one"});
  CHECK(look.hopeless == 2);
  CHECK(look.more());
  CHECK_THAT(ex::seed_look_text(look, 0.05),
             Catch::Equals("4 of 5 claims undecided at level 0.05 after 8 seeds (2 beyond the cap's reach): c-near, "
                           "c-one"));
  // the cap decides what is in reach, by the claim's own t alone: with a cap of 9, c-near's t carried to 9 seeds
  // (3.1) stays below c_9, so it stops too
  CHECK(ex::look_at_stage(summary, ex::ClaimFamily{1, 0}, 8, 9).hopeless == 3);
  // at the family's level fewer decide: a claim that 5 seeds decide alone (c_5 = 5.35) is undecided over 75 claims,
  // where no 5 seeds can decide (c_5 is infinite at 0.05 / 75)
  const json five = summary_of({claim_row("c-five", 1.5, 1, 5)});
  CHECK(ex::look_at_stage(five, ex::ClaimFamily{1, 0}, 5, 20).decided == 1);
  CHECK(ex::look_at_stage(five, ex::ClaimFamily{75, 0}, 5, 20).decided == 0);
  // a stage whose claims are all decided (or out of reach) asks for no more seeds
  CHECK_FALSE(ex::look_at_stage(summary_of({claim_row("c-decided", 5, 1, 8), claim_row("c-far", 0.05, 40, 8)}),
                                ex::ClaimFamily{1, 0}, 8, 20)
                  .more());
  CHECK_THROWS_WITH(ex::look_at_stage(json::object(), ex::ClaimFamily{1, 0}, 8, 20), Catch::Contains("no \"variants\""));
  // the looks read with the design's g: at g = 0.5 no 5 seeds can decide at 0.05 (c_5 is infinite), at the default
  // they can (the control above)
  CHECK(std::isinf(ex::anytime_radius_multiplier(5, 0.05, 0.5)));
  CHECK(ex::look_at_stage(five, ex::ClaimFamily{1, 0}, 5, 20, 0.5).decided == 0);
  // a claim read at its stop keeps the design's g, which its test then uses
  const json at = ex::claim_statistics_at(five["variants"][0]["rows"][0]["statistics"], 5,
                                          ex::ClaimDesign{4, 10, 0.05, 0.5});
  CHECK(at["g"] == 0.5);
  CHECK(ex::claim_test_input(at, 0.05).g == 0.5);
  CHECK(ex::claim_test_input(five["variants"][0]["rows"][0]["statistics"], 0.05).g == ex::default_anytime_g);
}

TEST_CASE("seed spending: a claim stopped at an earlier look stays stopped when a shared arm brings it more seeds",
          "[report][seeds]") {
  // decided at its first look of 4 seeds (1.0, 1.1, 0.9, 1.05: |t| = 23 > c_4 = 8.25 at 0.03), then four seeds
  // another claim asked for pull its mean below 0: read at all 8 nothing is decided; read at its own stop it is
  // decided
  const json row = claim_row_of("c-early", {1.0, 1.1, 0.9, 1.05, -1.5, -1.2, -1.6, -1.4});
  const json at_eight = summary_of({row});
  CHECK(ex::look_at_stage(at_eight, ex::ClaimFamily{1, 0}, 4, 10).decided == 1);
  CHECK_FALSE(ex::look_at_stage(at_eight, ex::ClaimFamily{1, 0}, 4, 10).more());
  // the control: a first look at 8 reads all eight, where nothing is decided
  const ex::SeedLook late = ex::look_at_stage(at_eight, ex::ClaimFamily{1, 0}, 8, 10);
  CHECK(late.decided == 0);
}

TEST_CASE("seed spending: a profile's seeds_cap plans it, one error for a cap that cannot decide or a rule not "
          "checked",
          "[report][seeds]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench-test-seed-spending";
  fs::remove_all(dir);
  fs::create_directories(dir / "repro");
  std::ifstream in(kSource + "/experiments/reproductions/lcc_table1.json");
  const json base = json::parse(in);
  auto plan_with = [&](const json& profile, const std::string& multiplicity = "holm") {
    json r = base;
    r["profiles"]["default"] = profile;
    std::ofstream(dir / "repro/lcc_table1.json") << r.dump(2);
    ex::ReportConfig cfg;
    cfg.profile = "default";
    cfg.multiplicity = multiplicity;
    cfg.work = (dir / "work").string();
    cfg.reproductions = (dir / "repro").string();
    cfg.notebooks = kSource + "/notebooks";
    cfg.self = "/opt/fake/dmlbench";
    cfg.source_dir = kSource;
    return ex::plan_report_stages(cfg);
  };
  auto stage = [](const std::vector<ex::Stage>& stages) {
    for (const auto& s : stages)
      if (s.name == "mnist-evenodd") return s;
    FAIL("no stage mnist-evenodd");
    return ex::Stage{};
  };
  // the file's six claims are the planned family: 0.05 / 6 first decides at 4 seeds ((1 + 4 g)^1.5 = 167 >= 120)
  const auto spent = stage(plan_with({{"seeds", 5}, {"seeds_cap", 12}, {"estimate_seconds", 200}, {"jobs", 2}}));
  REQUIRE(spent.spending);
  CHECK(spent.spending->first == 5);
  CHECK(spent.spending->cap == 12);
  CHECK(spent.spending->family == 6);
  CHECK(spent.nominal_seconds == 200.0 * 12 / 5);
  CHECK(spent.spending->planned_selected == 0);  // Bonferroni: looks at alpha / m
  CHECK(spent.spending->level() == Approx(0.05 / 6).epsilon(1e-15));
  // e-BH (the report's default): its looks plan to select R = round(0.6 x 6) = 4 of the 6, at 0.05 x 4 / 6
  const auto ebh = stage(plan_with({{"seeds", 5}, {"seeds_cap", 12}, {"estimate_seconds", 200}, {"jobs", 2}}, "bh"));
  REQUIRE(ebh.spending);
  CHECK(ebh.spending->planned_selected == 4);
  CHECK(ebh.spending->looked_in().selected == 4);
  CHECK(ebh.spending->level() == Approx(0.05 * 4 / 6).epsilon(1e-15));
  CHECK(ex::planned_selected("bh", 75) == 45);
  CHECK(ex::planned_selected("bh", 1) == 1);
  CHECK(ex::planned_selected("holm", 75) == 0);
  // a cap that decides at e-BH's planned level: 4 seeds first decide at 0.05 x 4 / 6 too
  CHECK(ex::first_decidable_seeds(0.05 * 4 / 6) == 4);
  CHECK_NOTHROW(plan_with({{"seeds", 3}, {"seeds_cap", 5}}, "bh"));
  // the control: without seeds_cap the stage runs its seeds once, as before
  CHECK_FALSE(stage(plan_with({{"seeds", 5}, {"estimate_seconds", 200}, {"jobs", 2}})).spending);
  // a cap no interval can decide at: refused, naming the file, the cap and the fewest seeds that can
  CHECK_THROWS_WITH(plan_with({{"seeds", 2}, {"seeds_cap", 3}}),
                    Catch::Contains("lcc_table1.json: profile seeds_cap 3 is below 4") &&
                        Catch::Contains("0.05") && Catch::Contains("/ 6 (the report's family)"));
  // a cap below the first look's seeds; a stopping rule the bench has not checked
  CHECK_THROWS_WITH(plan_with({{"seeds", 5}, {"seeds_cap", 4}}),
                    Catch::Contains("lcc_table1.json") && Catch::Contains("profile default: seeds_cap 4 is below its seeds 5"));
  CHECK_THROWS_WITH(plan_with({{"seeds", 5}, {"seeds_cap", 12}, {"stopping", "pocock"}}),
                    Catch::Contains("lcc_table1.json") && Catch::Contains("stopping \"pocock\" is no rule the bench has "
                                                                          "checked"));
  CHECK_NOTHROW(plan_with({{"seeds", 5}, {"seeds_cap", 12}, {"stopping", "anytime"}}));
  fs::remove_all(dir);
}

// The loop with a stage whose claims sharpen as seeds come: it asks for seeds 6, 7, ... one at a time and stops at
// the first look where nothing waits; the control stops at the cap; a stage decided at its first look asks for none.
TEST_CASE("seed spending: one seed at a time until no claim waits, or the cap", "[report][seeds]") {
  // a claim with per-seed differences m + z_k: n seeds of it at the look
  int seeds = 5;
  const auto summary = [&](double m) {
    return [&, m] { return summary_of({claim_row("c-done", 8, 1, std::size_t(seeds)), claim_row("c-grows", m, 2, std::size_t(seeds))}); };
  };
  std::vector<int> asked;
  const auto run_with = [&](const ex::SeedPlan& p) {
    REQUIRE(p.arms.empty());  // no claim arms: the stage-wide rule
    asked.push_back(p.seeds);
    seeds = p.seeds;
  };
  // c-grows: mean 1.2 with sd ~0.5: undecided at 5 seeds at 0.05, decided within a few more
  REQUIRE(ex::look_at_stage(summary(1.2)(), ex::ClaimFamily{1, 0}, 5, 20).more());
  const auto looks = ex::spend_seeds(ex::SeedSpending{5, 20, 1, 0.05, 0, {}}, summary(1.2), run_with);
  REQUIRE(!asked.empty());
  CHECK(asked.front() == 6);
  for (std::size_t k = 1; k < asked.size(); ++k) CHECK(asked[k] == asked[k - 1] + 1);  // one seed at a time
  CHECK(looks.size() == asked.size() + 1);
  CHECK_FALSE(looks.back().more());
  CHECK(looks.back().decided == 2);
  CHECK(asked.back() < 20);
  // the control: a claim that always waits (one seed of it, e.g. a metric most runs lack) is stopped by the cap
  asked.clear();
  seeds = 5;
  const auto waits = [&] { return summary_of({claim_row("c-done", 8, 1, std::size_t(seeds)), claim_row("c-one", 1, 1, 1)}); };
  const auto capped = ex::spend_seeds(ex::SeedSpending{5, 7, 1, 0.05, 0, {}}, waits, run_with);
  CHECK(asked == std::vector<int>{6, 7});
  CHECK(capped.size() == 3);
  CHECK(capped.back().more());  // still waiting, at the cap
  CHECK(capped.back().seeds == 7);
  // decided at the first look: no seed added
  asked.clear();
  seeds = 8;
  ex::spend_seeds(ex::SeedSpending{8, 20, 1, 0.05, 0, {}}, summary(8), run_with);
  CHECK(asked.empty());
}

// A mean claim without spread (every seed's difference the same, as shares pinned at 0% or 100% of the dots) stops at
// once: the t-test cannot judge such data, and waiting for the one seed that breaks the tie would select exactly the
// seed that makes |t| huge (with n - 1 values at the atom). Such data need a test of their kind (claim_test.hpp). The
// control: the same claim read as a typical seed waits for seeds while the cap can still decide it.
TEST_CASE("seed spending: a mean claim without spread stops, it does not wait for the seed that breaks the tie",
          "[report][seeds]") {
  int seeds = 4;
  std::vector<int> asked;
  const auto run_with = [&](const ex::SeedPlan& p) {
    asked.push_back(p.seeds);
    seeds = p.seeds;
  };
  // every seed 2 until seed `spread_at`, then 2 - 0.1 (k - spread_at + 1)
  const auto pinned = [&](int spread_at, bool typical) {
    return [&, spread_at, typical] {
      std::vector<double> values;
      for (int k = 1; k <= seeds; ++k) values.push_back(k < spread_at ? 2.0 : 2.0 - 0.1 * (k - spread_at + 1));
      ex::ClaimSides c;
      c.treatment = std::move(values);
      c.bound = 0;
      c.delta = 1;
      c.delta_reason = "a test";
      if (typical) {
        c.estimand = ex::ClaimEstimand::typical_seed;
        c.estimand_reason = "a test";
      }
      return summary_of({json{{"claim", "c-pinned"}, {"statistics", ex::claim_statistics(c)}}});
    };
  };
  REQUIRE(ex::claim_statistics_testable(pinned(99, false)()["variants"][0]["rows"][0]["statistics"]));
  REQUIRE(pinned(99, false)()["variants"][0]["rows"][0]["statistics"]["outcome"] == "inconclusive");  // no spread
  const auto looks = ex::spend_seeds(ex::SeedSpending{4, 10, 1, 0.05, 0, {}}, pinned(6, false), run_with);
  CHECK(asked.empty());  // stopped at its first look, never asking for the seed 6 that would give it spread
  CHECK(looks.size() == 1);
  CHECK(looks.front().hopeless == 1);
  // the control: as a typical seed every seed lies on the paper's side, and the mean of the two sides' e-values,
  // (2^(n+1) - 1) / (n + 1) / 2 + 1 / (2 (n + 1)) = 2^n / (n + 1), is 3.2 at 4 seeds, 16 at 7 and 28.4 at 8 >= 1 / 0.05:
  // it waits for seeds and is decided at 8
  asked.clear();
  seeds = 4;
  const auto typical = ex::spend_seeds(ex::SeedSpending{4, 10, 1, 0.05, 0, {}}, pinned(99, true), run_with);
  CHECK(asked == std::vector<int>{5, 6, 7, 8});
  CHECK(typical.back().decided == 1);
}

// Seeds by arm: a claim's arms come from its reproduction (its own sides, else the comparison; a
// bound has no baseline arm), and a look raises only the waiting claims' arms to one above the claim's seeds.
TEST_CASE("seed spending by arm: each waiting claim's arms get the next seed, a decided claim's arms none",
          "[report][seeds]") {
  ex::Reproduction r;
  r.baseline = "base";
  r.treatment = "eps";
  r.arms = {{"base", "", {}, ""}, {"eps", "", {}, ""}, {"n8", "", {}, ""}, {"n16", "", {}, ""}};
  ex::ReproductionMetric a, b, c, d;
  a.claim = "c-main";  // the comparison: eps - base
  b.claim = "c-own";   // its own sides: n16 - n8
  b.treatment_arm = "n16";
  b.baseline_arm = "n8";
  c.claim = "c-bound";  // n8 against a number
  c.treatment_arm = "n8";
  c.bound = 0.5;
  d.label = "a description";  // no claim: no arms
  r.metrics = {a, b, c, d};
  const auto arms = ex::claim_arms(r);
  CHECK(arms.size() == 3);
  CHECK(arms.at("c-main") == std::vector<std::string>{"base", "eps"});
  CHECK(arms.at("c-own") == std::vector<std::string>{"n16", "n8"});
  CHECK(arms.at("c-bound") == std::vector<std::string>{"n8"});

  ex::SeedSpending sp{5, 7, 1, 0.05, 0, arms};
  ex::SeedLook look;
  look.waiting = {"c-bound"};
  auto next = ex::next_seed_plan(sp, {5, {}}, look);
  REQUIRE(next);
  CHECK(next->arms == std::map<std::string, int>{{"n8", 6}});  // only the bound claim's arm
  CHECK(next->arguments() == std::vector<std::string>{"--seeds", "5", "--arm-seeds", "n8=6"});
  // c-own's arms stand at 6 (n8) and 5 (n16): its seeds are 5, so n16 is raised to 6 and n8 stays
  look.waiting = {"c-own"};
  next = ex::next_seed_plan(sp, *next, look);
  REQUIRE(next);
  CHECK(next->arms == std::map<std::string, int>{{"n8", 6}, {"n16", 6}});
  CHECK(next->of("base") == 5);  // c-main decided: its arms keep their 5
  // two waiting claims on one arm (c-bound on n8, c-own on n8 and n16): one seed more for each arm in one look, not
  // one per claim (the committed report's xhn-movement once raised one arm 5 -> 8 in a single look)
  look.waiting = {"c-own", "c-bound"};
  next = ex::next_seed_plan(sp, {5, {}}, look);
  REQUIRE(next);
  CHECK(next->arms == std::map<std::string, int>{{"n8", 6}, {"n16", 6}});
  look.waiting = {"c-own"};
  // at the cap a waiting claim gets nothing more, and the look stops
  next = ex::next_seed_plan(sp, {5, {{"n8", 7}, {"n16", 7}}}, look);
  CHECK_FALSE(next);
  // the control, the stage-wide rule (no claim arms): every arm one more seed
  ex::SeedSpending whole{5, 7, 1, 0.05, 0, {}};
  const auto all = ex::next_seed_plan(whole, {5, {}}, look);
  REQUIRE(all);
  CHECK(all->seeds == 6);
  CHECK(all->arms.empty());
  CHECK_FALSE(ex::next_seed_plan(whole, {7, {}}, look));
  // a waiting claim the spending does not know is an error, not a silent stop
  look.waiting = {"c-unknown"};
  CHECK_THROWS_WITH(ex::next_seed_plan(sp, {5, {}}, look), Catch::Contains("claim c-unknown names no arm"));
}

// The loop by arm: a claim decided at the first look keeps its arms' seeds while the undecided one's arms grow.
TEST_CASE("seed spending by arm: the loop trains only the undecided claim's arms", "[report][seeds]") {
  std::map<std::string, int> n = {{"a", 5}, {"b", 5}, {"c", 5}, {"d", 5}};
  const ex::SeedSpending sp{5, 20, 1, 0.05, 0, {{"c-done", {"a", "b"}}, {"c-grows", {"c", "d"}}}};
  const auto read = [&] {
    return summary_of({claim_row("c-done", 8, 1, std::size_t(std::min(n["a"], n["b"]))),
                       claim_row("c-grows", 1.2, 2, std::size_t(std::min(n["c"], n["d"])))});
  };
  std::vector<ex::SeedPlan> plans;
  const auto run = [&](const ex::SeedPlan& p) {
    plans.push_back(p);
    for (auto& [arm, k] : n) k = p.of(arm);
  };
  const auto looks = ex::spend_seeds(sp, read, run);
  REQUIRE_FALSE(plans.empty());
  CHECK(n["a"] == 5);  // decided at the first look: no seed more
  CHECK(n["b"] == 5);
  CHECK(n["c"] == n["d"]);
  CHECK(n["c"] == 5 + int(plans.size()));  // one seed a look
  CHECK(looks.size() == plans.size() + 1);
  CHECK_FALSE(looks.back().more());
  CHECK(looks.back().decided == 2);
}

// The t-test's prior variance g of the report's looks is the design file's, the minimax g of its looks
// (anytime_prior_variance.hpp): every default profile that spends seeds names experiments/report_design.json, looks
// from its first look to its cap at alpha x its planned share, and that design's minimax g must be the profile's (to
// the file's 3 significant digits, 0.5%). A first look one seed earlier needs another g: the control.
TEST_CASE("seed spending: every spending profile takes its looks from the design file, whose g is the minimax g of "
          "those looks", "[report][seeds]") {
  const auto design = ex::read_report_design(kSource + "/experiments/report_design.json");
  std::size_t spending = 0;
  for (const auto& f : fs::directory_iterator(kSource + "/experiments/reproductions")) {
    const auto r = ex::read_reproduction(f.path().string(), kSource);
    if (!r.profiles.count("default")) continue;
    const auto& p = r.profiles.at("default");
    if (!p.has_looks()) continue;
    ++spending;
    INFO(f.path().filename().string() << ": seeds " << p.seeds << " to " << p.cap());
    CHECK(p.design == "experiments/report_design.json");
    CHECK(p.seeds == design.first_look);
    CHECK(p.cap() == design.cap);
    CHECK(p.planned_selected_share == design.planned_selected_share);
    CHECK(p.g == design.g);
    const double level = r.alpha * p.planned_selected_share;
    CHECK_THAT(ex::minimax_anytime_g(level, std::size_t(p.seeds), std::size_t(p.cap())),
               Catch::WithinRel(p.g, 5e-3));
    CHECK_THAT(ex::minimax_anytime_g(level, std::size_t(p.seeds) - 1, std::size_t(p.cap())),
               !Catch::WithinRel(p.g, 5e-3));  // the control: a first look one seed earlier
  }
  CHECK(spending == 9);
}

// The design file's checks: one source for the looks, and g derived from them.
TEST_CASE("seed spending: a design file whose g is not its looks' minimax g, or a profile that names a design and "
          "sets its seeds too, is refused with one line", "[report][seeds]") {
  const fs::path dir = fs::temp_directory_path() / "dmlbench_design_file_test";
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const json& j) {
    std::ofstream(dir / name) << j.dump(2);
    return (dir / name).string();
  };
  const json good = {{"alpha", 0.05}, {"first_look", 4}, {"cap", 10}, {"planned_selected_share", 0.6}, {"g", 7.33}};
  CHECK(ex::read_report_design(write("good.json", good)).first_look == 4);
  json bad_g = good;
  bad_g["g"] = 5.0;
  CHECK_THROWS_WITH(ex::read_report_design(write("bad_g.json", bad_g)),
                    Catch::Contains("bad_g.json") && Catch::Contains("not the minimax g of its looks"));
  json moved = good;
  moved["first_look"] = 5;  // the looks moved, g did not
  CHECK_THROWS_WITH(ex::read_report_design(write("moved.json", moved)), Catch::Contains("not the minimax g"));
  json no_cap = good;
  no_cap.erase("cap");
  CHECK_THROWS_WITH(ex::read_report_design(write("no_cap.json", no_cap)), Catch::Contains("\"cap\" is required"));
  json share = good;
  share["planned_selected_share"] = 1.5;
  CHECK_THROWS_WITH(ex::read_report_design(write("share.json", share)), Catch::Contains("planned_selected_share"));
  // a reproduction whose default profile names the design and sets seeds as well
  json r = json::parse(std::ifstream(kSource + "/experiments/reproductions/lcc_table1.json"));
  r["profiles"]["default"]["seeds"] = 5;
  const std::string file = write("both.json", r);
  CHECK_THROWS_WITH(ex::read_reproduction(file, kSource),
                    Catch::Contains("\"seeds\" and \"design\" both given"));
  fs::remove_all(dir);
}
