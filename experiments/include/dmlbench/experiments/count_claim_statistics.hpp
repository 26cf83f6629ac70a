// A training claim on a share of counts (the [XHN] Fig 3 movement shares): the seeds' counts pooled,
// an exact binomial test of the share against the claim's bound, its Clopper-Pearson interval and an exact TOST
// (statsmodels binom_tost) at the raw p. A description only: it takes every counted item (a triplet's
// dot) as an independent trial, while items of one seed share its weights, so a share claim is decided on its
// per-seed shares (claim_statistics.hpp) and this object stands beside it as "pooled".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace dmlbench::experiments {

struct CountSides {
  std::uint64_t successes = 0, trials = 0;  // pooled over the treatment arm's runs
  std::size_t runs = 0;                     // the runs (seeds) pooled
  double bound = 0;                         // the claim's bound in the metric's scaled units (share x scale)
  double scale = 1;                         // the metric's scale (100: percent)
  int paper_sign = +1;                      // +1: the paper says the share lies above the bound, -1 below
  double alpha = 0.05;
  double delta = 0;                         // the smallest effect of interest, scaled units, >= 0
  std::string delta_reason;
};

// {"test": "binomial", "alpha", "paper_sign", "successes", "trials", "runs", "share" (scaled), "bound", "scale",
//  "smallest_effect", "smallest_effect_reason", "paper_difference": null, "difference" (share - bound, scaled),
//  "ci_low", "ci_high" (the Clopper-Pearson (1 - alpha) interval of the share, minus the bound, scaled), "p" (exact
//  two-sided binomial test of the share = bound / scale), "p_tost" (exact, margin delta / scale around the bound),
//  "paper_position": "none", "p_decision", "outcome", "outcome_reason"}. No trials (nothing moved in any run): no test,
// outcome inconclusive. Throws std::invalid_argument for successes > trials, a bound / scale outside [0, 1], scale
// <= 0, paper_sign other than +-1, alpha outside (0, 1) or delta < 0.
nlohmann::ordered_json count_claim_statistics(const CountSides& sides);

// "3 of 4210 pooled over 5 runs": the counts of a count claim's statistics, as the reason, the report and the
// command line write them.
std::string pooled_counts_text(const nlohmann::ordered_json& statistics);


}  // namespace dmlbench::experiments
