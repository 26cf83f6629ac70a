// A training claim's statistics as JSON (issue 27 items 1-2): summary.json's "statistics" of a claim metric, made from
// the seeds of its sides at the raw p, and decided again by the report with the p adjusted over its family. One
// object holds the test's inputs (so that the report needs no seeds) and its results (training_outcome.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct ClaimSides {
  std::vector<double> treatment;
  std::optional<std::vector<double>> baseline;  // Welch: treatment - baseline
  std::optional<double> bound;                  // or one sample: treatment - bound; exactly one of the two
  int paper_sign = +1;                          // +1: the paper says treatment above, -1 below
  double alpha = 0.05;
  double delta = 0;                             // the smallest effect of interest, >= 0
  std::string delta_reason;
  std::optional<double> paper_difference;       // the paper's printed treatment - baseline (or - bound)
};

// The power at which the minimum detectable effect and the seeds needed are given.
constexpr double claim_power = 0.8;

// {"test": "welch" | "one-sample", "alpha", "paper_sign", "treatment": {mean, sd, n}, "baseline": {...} | "bound",
//  "smallest_effect", "smallest_effect_reason", "paper_difference" (null: none), "difference", "ci_low", "ci_high",
//  "p", "p_tost", "power", "mde", "effect_to_detect", "seeds_needed" (null unless found), "seeds_needed_status"
//  (found | beyond_cap | no_spread | no_effect), "paper_position" (none | inside | above | below), "p_decision" (the p
//  the outcome was read at: here the raw p), "outcome", "outcome_reason"}. Numbers without a value (no spread) are
// null. Fewer than two seeds on a side (the quick profile): no test, outcome inconclusive, reason "1 seed ..." (or
// "no values ..." where a side has none). Throws std::invalid_argument for bad inputs (training_outcome's errors).
nlohmann::ordered_json claim_statistics(const ClaimSides& sides);

// The same object decided at `p_adjusted` (the claim's p adjusted over the report's family): "p_adjusted" and
// "p_decision" set, outcome and reason recomputed. A claim with no p (1 seed, no spread) is returned as it is.
nlohmann::ordered_json claim_statistics_adjusted(const nlohmann::ordered_json& statistics, double p_adjusted);

}  // namespace dmlbench::experiments
