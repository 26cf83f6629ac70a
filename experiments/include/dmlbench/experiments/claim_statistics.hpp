// A training claim's statistics as JSON: summary.json's "statistics" of a claim metric. The seed is the unit: the
// claim is decided on its per-seed differences (treatment - baseline paired by seed, or value - bound) by the test of
// its estimand (claim_test.hpp: the anytime t-test of a mean, the betting test of a bounded mean, the sign e-process
// of a typical seed), every number of the decision read at level alpha / family size (or e-BH's alpha R / m). The
// reproduction decides each claim alone (family 1); the report reads each claim at its own stop (claim_statistics_at)
// and decides it again over its family (claim_statistics_decided). One object holds the test's inputs (the per-seed
// differences, so that the report needs no runs and a later run can add seeds) and its results.
#pragma once

#include "dmlbench/experiments/claim_test.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct ClaimSides {
  std::vector<double> treatment;
  std::optional<std::vector<double>> baseline;  // two arms: treatment - baseline
  std::optional<double> bound;                  // or one arm against a number; exactly one of the two
  // The seeds of the values (treatment_seeds[k] is treatment[k]'s seed, likewise baseline_seeds): two arms are paired
  // by seed, a seed missing from one arm drops out of the differences. Empty: the seeds 0, 1, ... in order.
  std::vector<std::uint64_t> treatment_seeds, baseline_seeds;
  int paper_sign = +1;                          // +1: the paper says treatment above, -1 below
  double alpha = 0.05;
  double delta = 0;                             // the smallest effect of interest, >= 0
  std::string delta_reason;
  std::optional<double> paper_difference;       // the paper's printed treatment - baseline (or - bound)
  ClaimEstimand estimand = ClaimEstimand::mean;  // what the claim judges (claim_test.hpp)
  std::optional<std::pair<double, double>> range;  // every per-seed value's range (a bounded mean needs it)
  std::string estimand_reason;                     // why this estimand (required for all but the mean)
  // "superiority" (the paper's side of 0) or "non-inferiority": a claim of likeness ("comparable", "on par") judged
  // against the margin delta: verified when the treatment is not worse than the baseline by delta or more, refuted
  // when it is worse by more (no direction-only or not-reproduced reading). Not for a typical seed.
  std::string reading = "superiority";
};

// The power at which the planning command (`dmlbench power`) gives seeds needed.
constexpr double claim_power = 0.8;
// The most seeds the seeds-needed search considers.
constexpr std::size_t claim_seeds_cap = 100;

// {"test": "two arms" | "against a bound", "unit": "seed", "alpha", "paper_sign", "estimand": {"kind", "range"
//  (the differences' range, null but for a bounded mean), "reason"}, "treatment": {mean, sd, n}, "baseline": {...} |
//  "bound", "smallest_effect", "smallest_effect_reason", "paper_difference" (null: none), "per_seed": {"pairing": "by
//  seed" | "against the bound", "seeds", "differences", "mean", "sd", "n"}, and the decision
//  (claim_statistics_decided): "decision": {"rule", "estimand", "g", "family_size", "family_rule", "selected", "level",
//  "multiplier", "t", "paper_side", "other_side", "e_value", "log_e_value"}, "difference" (the mean), "ci_low",
//  "ci_high" (the interval that decides; null for a typical seed), "paper_position", "outcome", "outcome_reason"}.
//  Numbers without a value are null. Fewer than two paired seeds (the quick profile): no test, outcome inconclusive,
//  reason "1 seed ..." (or "no values ..." where a side has none). Throws std::invalid_argument for bad inputs (a
//  value outside the stated range among them).
nlohmann::ordered_json claim_statistics(const ClaimSides& sides);

// The family a claim is decided in: its size m, and for e-BH the number R it selects. The level is alpha / m
// (Bonferroni on e-values: family-wise error, valid under any dependence and any number of looks) or alpha R / m
// (e-BH, Wang and Ramdas 2022: false discovery rate; the selected claims' intervals at that level, as e-BY).
struct ClaimFamily {
  std::size_t size = 1;
  std::size_t selected = 0;  // e-BH's R; 0: Bonferroni
  // the level each claim is read at: alpha R / m, or alpha / m (Bonferroni)
  double level(double alpha) const {
    return selected > 0 ? alpha * double(selected) / double(size) : alpha / double(size);
  }
};
// The same object decided at its family's level: "decision" and every result above recomputed. An object without
// per-seed differences (fewer than 2, or a summary that predates them) is returned as it is. Throws
// std::invalid_argument for a family of size 0 or selected > size.
// A decided claim read at a stop before its arms' last seed gets "holdout": the seeds after its stop, which its
// decision never saw, {"n", "seeds", "mean", "on_decided_side", "of_side"} (a fresh look at the decided direction,
// never the verdict).
// with_design_power: an inconclusive mean read at a stop gets "design_power" (claim_design_power.hpp, a simulation of
// a few thousand designs: off where many reports are simulated).
nlohmann::ordered_json claim_statistics_decided(const nlohmann::ordered_json& statistics, const ClaimFamily& family,
                                                bool with_design_power = true);

// The decision alone (outcome, deciding interval, level, e-value) at the family's level, without what
// claim_statistics_decided adds to it: for the looks of the report's seed spending. Throws std::invalid_argument for
// an object that is not testable and the family's errors.
ClaimDecision claim_decision(const nlohmann::ordered_json& statistics, const ClaimFamily& family);

// The test's input of a testable object read at `level` (claim_test.hpp). Throws std::invalid_argument for an object
// that is not testable.
ClaimTestInput claim_test_input(const nlohmann::ordered_json& statistics, double level);

// The e-value against "no difference" of a testable object (NaN where no test applies), for e-BH's ranking.
double claim_e_value(const nlohmann::ordered_json& statistics);

// The object read at its first `seeds` per-seed differences (in seed order), its stop in the report's design:
// "per_seed" holds those, "stop" records {"seeds", "of" (all the seeds it has), "first", "cap", "look_level"}, and
// "later_seeds" keeps every per-seed difference (a labelled re-read, never the verdict). Throws std::invalid_argument
// for seeds below 2 or above the object's, or an object that is not testable.
struct ClaimDesign {
  std::size_t first = 2, cap = 10;
  double look_level = 0.05;
  double g = default_anytime_g;  // the t-test's prior variance of the looks, recorded as the object's "g"
};
nlohmann::ordered_json claim_statistics_at(const nlohmann::ordered_json& statistics, std::size_t seeds,
                                           const ClaimDesign& design);

// Whether the object is a member of a decision family: per-seed differences of at least 2 seeds.
bool claim_statistics_testable(const nlohmann::ordered_json& statistics);

// "the anytime interval at level 0.05 / 75 = 0.00067" style text of the decision's level.
std::string claim_level_text(const nlohmann::ordered_json& statistics);

// The decision rule of a decided object as one assumption of its row (generated from the object, so
// that no scope entry types a test, level or seed count that a later run makes stale): "decided by the bench, not the
// paper: the 8 per-seed differences (treatment - baseline, paired by seed) in the anytime-valid interval at level
// ...". "" for an object without a decision.
std::string claim_rule_text(const nlohmann::ordered_json& statistics);

}  // namespace dmlbench::experiments
