// A training claim's test by what it judges, its estimand (the per-seed values' kind decides which test is valid):
//   mean          the mean of the per-seed differences, by the anytime-valid t-test (anytime_t_test.hpp): for
//                 continuous metrics (NMI, recall, a loss), whose differences the design simulation
//                 (tests/experiments/verdicts/test_report_design.cpp) shows the t e-value valid for;
//   bounded mean  the mean of per-seed values in a known range, by the betting confidence sequence
//                 (betting_mean_test.hpp, [WSR24]): valid for any values in the range, shares piled up at 0 included;
//   typical seed  whether a typical seed lies on a side of 0 (more than half of the seeds; value - bound for a
//                 claim against a bound), by the mixture e-process of the per-seed signs (typical_seed_test.hpp):
//                 valid for any independent seeds.
// One e-value per claim against "no difference" (e-BH ranks them), one reading at a level, and one stopping rule that
// reads only the claim's own statistic (so that a claim stopped by it holds an e-value at its stop).
#pragma once

#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/training_outcome.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

enum class ClaimEstimand { mean, bounded_mean, typical_seed };
// "mean", "bounded mean", "typical seed"
std::string claim_estimand_name(ClaimEstimand e);
// The estimand of a name above. Throws std::invalid_argument naming the three for any other.
ClaimEstimand claim_estimand_named(const std::string& name);

struct ClaimTestInput {
  std::vector<double> differences;  // per seed, in seed order: treatment - baseline paired by seed, or value - bound
  ClaimEstimand estimand = ClaimEstimand::mean;
  double lo = NAN, hi = NAN;  // bounded mean: the range every difference lies in (lo < 0 < hi)
  int paper_sign = +1;        // +1: the paper's side is above 0
  double delta = 0;           // the smallest effect of interest (mean and bounded mean), >= 0
  double level = 0.05;        // the level the claim is read at
  double alpha = 0.05;        // the claim's own alpha: the betting test bets at it (its e-value does not move with
                              // the family's level)
  double g = default_anytime_g;
};

struct ClaimDecision {
  TrainingOutcome outcome = TrainingOutcome::inconclusive;
  std::string reason;  // one line: why
  std::size_t n = 0;
  double mean = NAN;
  double low = NAN, high = NAN;      // the deciding interval of the mean (NaN for a typical seed)
  double t = NAN, multiplier = NAN;  // the t-test's statistic and c_n (mean only)
  std::size_t paper_side = 0, other_side = 0;  // seeds strictly on either side of 0 (typical seed)
  double log_e_value = NAN;  // against "no difference" (NaN where no test applies: the t-test without spread)
  double level = 0.05;
};

// The claim read at in.level. Mean and bounded mean: interval_outcome of the confidence sequence's interval; typical
// seed: verified (refuted) when the e-value reaches 1/level and more seeds lie on the paper's (other) side, else
// inconclusive (it has no equivalence reading). Throws std::invalid_argument for fewer than 2 differences, a
// non-finite difference, level outside (0, 1), delta < 0, paper_sign other than +-1, and for a bounded mean without
// lo < 0 < hi or with a difference outside [lo, hi].
ClaimDecision decide_claim(const ClaimTestInput& in);

// log of the claim's e-value against "no difference": the t e-value (NaN without spread), the hedged betting capital
// at 0, or for a typical seed the mean of the two sides' mixture e-values (each an e-process under its side's null,
// so their mean is one under both). Same errors as decide_claim.
double claim_log_e_value(const ClaimTestInput& in);

// Whether `cap` seeds could still decide the claim at in.level, judged from its own statistic only (scale-invariant for
// the mean; the seeds' signs for a typical seed): mean: with spread, |t| sqrt(cap / n) reaches c_cap (the present t
// carried to the cap); without spread never (every seed equal: the t-test cannot judge such data, and waiting for the
// seed that breaks the tie would select it); typical seed: every seed to the cap on the leading side would reach
// 1/level; bounded mean: while n < cap.
bool claim_could_decide_by(const ClaimTestInput& in, std::size_t cap);

// The fewest seeds, all on one side of 0, whose typical-seed e-value (the mean of the two sides' mixture e-values)
// reaches 1 / level: the least a typical-seed claim needs at that level; 0 when no n up to `limit` does. Throws
// std::invalid_argument for a level outside (0, 1).
std::size_t typical_seed_fewest_deciding(double level, std::size_t limit = 1000);

// The claim's own stop in a design that looks after every seed from `first` to `cap`: the fewest seeds n >= max(first,
// 2) of in.differences at which the claim is decided at in.level or could not be decided by the cap, else all of them.
// A stopping time of the claim's own statistic: seeds added later for another claim are never part of its decision.
std::size_t claim_stop(const ClaimTestInput& in, std::size_t first, std::size_t cap);

}  // namespace dmlbench::experiments
