// The four outcomes of a training claim, a pure function of the seeds' summaries, the claim's p
// adjusted over its family (multiplicity.hpp), the smallest effect of interest and the paper's printed difference:
//   verified        the adjusted p < alpha and the difference has the paper's sign;
//   refuted         the adjusted p < alpha and the difference has the other sign;
//   not-reproduced  not significant, and TOST at alpha (equivalence_test.hpp) shows |difference| < delta;
//   inconclusive    neither; the result carries the minimum detectable effect at `power` and the seeds per arm that
//                   would detect the effect to detect (the paper's difference, else delta) at `power`.
// The zero-spread rule (welch_comparison.hpp): no t-test is possible, so the outcome is inconclusive with reason
// "no spread", whatever the means.
#pragma once

#include "dmlbench/experiments/equivalence_test.hpp"
#include "dmlbench/experiments/t_test_power.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace dmlbench::experiments {

// direction_only: the interval excludes 0 on the paper's side but lies inside (-delta, +delta): the direction holds and
// the effect is smaller than the smallest of interest ("direction verified, smaller than delta"), counted apart from
// verified.
enum class TrainingOutcome { verified, refuted, not_reproduced, inconclusive, direction_only };
// "verified", "refuted", "not-reproduced", "inconclusive", "direction-only"
std::string training_outcome_name(TrainingOutcome o);

// The reading of one deciding interval [low, high] of a difference whose paper side is paper_sign (+1: above 0):
//   verified        the interval excludes 0 on the paper's side and reaches delta or beyond;
//   direction_only  it excludes 0 on the paper's side and lies inside (-delta, +delta) (delta > 0);
//   refuted         it excludes 0 on the other side;
//   not_reproduced  it holds 0 and lies inside (-delta, +delta) (delta > 0);
//   inconclusive    otherwise.
TrainingOutcome interval_outcome(double low, double high, int paper_sign, double delta);
// One line: why interval_outcome read `interval` (its text, "the anytime interval [a, b] at level L after n seeds"),
// whose lower end is `low`, as it did.
std::string interval_outcome_reason(TrainingOutcome o, const std::string& interval, double low, double delta);

// Where the paper's printed difference lies relative to our (1 - alpha) interval; none: no printed difference, or no
// interval (zero spread).
enum class PaperPosition { none, inside, above, below };
std::string paper_position_name(PaperPosition p);  // "none", "inside", "above", "below"

struct OutcomeInput {
  SampleSummary treatment;
  std::optional<SampleSummary> baseline;  // two samples: treatment - baseline (Welch)
  std::optional<double> bound;            // or one sample: treatment - bound; exactly one of the two
  int paper_sign = +1;                    // the paper's direction: +1 treatment above, -1 below
  double p_adjusted = 1;                  // this claim's p adjusted over the family; unused without spread
  double delta = 0;                       // the smallest effect of interest, >= 0
  double alpha = 0.05;
  std::optional<double> paper_difference;  // the paper's printed treatment - baseline (or - bound)
  std::optional<double> effect_to_detect;  // for seeds_needed; default: |paper_difference|, else delta
  double power = 0.8;
  std::size_t seeds_cap = 100;
};
struct OutcomeResult {
  TrainingOutcome outcome = TrainingOutcome::inconclusive;
  std::string reason;  // one line: why this outcome
  TComparison comparison;
  EquivalenceResult equivalence;
  double minimum_detectable_effect = 0;  // at `power` with the observed spreads and seeds (NaN without spread)
  SeedsNeeded seeds_needed;              // per arm, for effect_to_detect at `power`
  PaperPosition paper_position = PaperPosition::none;
};
// Throws std::invalid_argument for neither or both of baseline and bound, paper_sign other than +-1, alpha or power
// outside (0, 1), delta < 0, fewer than 2 seeds on a side, or an adjusted p outside [0, 1] for a testable comparison.
OutcomeResult training_outcome(const OutcomeInput& in);

}  // namespace dmlbench::experiments
