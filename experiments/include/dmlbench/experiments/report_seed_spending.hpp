// The seeds a reproduction stage of the report spends: after each look its claims are decided at
// the family's level by their tests (claim_test.hpp), and one more seed is added while a claim is undecided and the
// stage's cap could still decide it. Looking after every seed is allowed: each test's error holds at any stopping time
// of its own statistic, and stopping for futility never raises it. The report reads each claim at its own stop
// (report_claim_stops.hpp), never at seeds another claim asked for; the design as a whole is checked by simulation
// (tests/experiments/verdicts/test_report_design.cpp).
#pragma once

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The family the report's stopping decisions are made in: one claim per metric with a claim and a direction, over
// the reproductions (the default stages' family, or the tuned stages' own).
std::size_t planned_family_size(const std::vector<Reproduction>& reproductions);

// The fewest seeds whose anytime interval can decide anything at `level` (its multiplier finite); 0 if none up to
// `limit`. Throws std::invalid_argument for a level outside (0, 1).
std::size_t first_decidable_seeds(double level, double g = default_anytime_g, std::size_t limit = 1000);

struct SeedLook {
  std::size_t seeds = 0;  // the look: the most per-seed differences of any claim of the stage
  std::size_t claims = 0, decided = 0;
  std::size_t hopeless = 0;          // undecided claims that the cap could not decide at their present estimate
  std::vector<std::string> waiting;  // the undecided claims that more seeds could decide
  bool more() const { return !waiting.empty(); }
};

// The stage's summary.json read at the family's level, each claim at its own stop (claim_stop from the first look's
// seeds; a claim stopped before the present seeds stays stopped): each claim decided by its test (claim_test.hpp), or hopeless
// when the cap could not decide it (claim_could_decide_by: read from the claim's own statistic alone, so that a stop is
// a stopping time of the claim's own e-process; a mean whose seeds all give the same difference stops there, since the
// t-test cannot judge such data), or waiting; a claim with fewer than 2 seeds waits. Throws std::runtime_error for a
// summary without "variants".
SeedLook look_at_stage(const nlohmann::ordered_json& summary, const ClaimFamily& family, std::size_t first,
                       std::size_t cap, double g = default_anytime_g);

// The share of the family that e-BH's looks plan to select where a profile names no design file (a profile that sets
// its own seeds and cap): a look under `--multiplicity bh` decides at alpha x share (R = share m), where the Bonferroni
// looks decide at alpha / m. The report's reproductions take theirs from experiments/report_design.json
// (report_design.hpp). The report's verdicts are e-BH's at the R it finds at the end, whatever the looks planned: each
// claim is read at its own stop (claim_stop), a stopping time of its own e-process, where the stopped e-process is an
// e-value (optional stopping), so the plan sets how many seeds are spent and how many claims stopped at the looks'
// level e-BH can still select, never the error.
constexpr double kPlannedSelectedShare = 0.6;

// A stage's seed spending (report_plan.hpp's Stage::spending): its first look's seeds, its cap, the planned family's
// size, alpha, and for e-BH the number of claims its looks plan to select (0: Bonferroni). With claim_arms (seeds
// by arm), a look gives the next seed only to the arms of the claims still waiting; without, to every arm.
struct SeedSpending {
  int first = 0, cap = 0;
  std::size_t family = 1;
  double alpha = 0.05;
  std::size_t planned_selected = 0;
  std::map<std::string, std::vector<std::string>> claim_arms;  // claim -> the arms its per-seed values come from
  double g = default_anytime_g;  // the t-test's prior variance of these looks (the design file's)
  ClaimFamily looked_in() const { return {family, planned_selected}; }
  // the looks' level: alpha / m (Bonferroni), or alpha R / m with e-BH's planned R
  double level() const { return looked_in().level(alpha); }
};

// The arms each claim of the reproduction reads: its treatment arm, and its baseline arm unless it is tested against a
// bound (the metric's own "compare" sides, else the reproduction's comparison).
std::map<std::string, std::vector<std::string>> claim_arms(const Reproduction& r);

// The seeds of a stage's next run: `seeds` for every arm but those in `arms` (reproduce --seeds, --arm-seeds).
struct SeedPlan {
  int seeds = 0;
  std::map<std::string, int> arms;
  std::vector<std::string> arguments() const;  // {"--seeds", "5", "--arm-seeds", "a=6", ...}
  int of(const std::string& arm) const { return arms.count(arm) ? arms.at(arm) : seeds; }
};

// After a look: the next run's seeds, or nothing when no waiting claim can have one more (all at the cap). Without
// claim_arms every arm gets one more seed; with them, each waiting claim's arms are raised to one above the claim's
// present seeds (the fewest of its arms'), so that a claim decided early takes no more seeds.
std::optional<SeedPlan> next_seed_plan(const SeedSpending& spending, const SeedPlan& now, const SeedLook& look);

// e-BH's planned R of a family of m: round(share m), at least 1; 0 (Bonferroni) for "holm".
std::size_t planned_selected(const std::string& multiplicity, std::size_t family, double share = kPlannedSelectedShare);

// The loop: look at the stage's summary (read_summary), and while next_seed_plan gives more seeds, run the stage
// again with them (run_with_seeds) and look again. on_look sees every look. Returns the looks in order.
std::vector<SeedLook> spend_seeds(const SeedSpending& spending,
                                  const std::function<nlohmann::ordered_json()>& read_summary,
                                  const std::function<void(const SeedPlan&)>& run_with_seeds,
                                  const std::function<void(const SeedLook&)>& on_look = {});

// "3 of 11 claims undecided at level 0.00067 after 8 seeds: c-a, c-b, c-c" (the report's log line).
std::string seed_look_text(const SeedLook& look, double level);

}  // namespace dmlbench::experiments
