// Equivalence by two one-sided tests (Schuirmann 1987, TOST): is |effect| < delta, the smallest effect
// of interest, at level alpha? With Welch's df for two samples (statsmodels ttost_ind, usevar="unequal") and n - 1 for
// one sample against a bound (statsmodels DescrStatsW.ttost_mean).
#pragma once

#include "dmlbench/experiments/welch_comparison.hpp"

namespace dmlbench::experiments {

struct EquivalenceResult {
  double t_lower = 0, p_lower = 0;  // H0: effect <= -delta, rejected for large t_lower = (d + delta) / se
  double t_upper = 0, p_upper = 0;  // H0: effect >= +delta, rejected for small t_upper = (d - delta) / se
  double df = 0;
  double p_tost = 0;                // max(p_lower, p_upper)
  bool equivalent = false;          // p_tost < alpha: the effect lies within (-delta, +delta)
};

// From a comparison (welch_difference or one_sample_difference) at its alpha. The zero-spread rule
// (welch_comparison.hpp): no test, every number NaN, not equivalent. delta = 0 is never equivalent. Throws
// std::invalid_argument for delta < 0 or non-finite.
EquivalenceResult equivalence_test(const TComparison& c, double delta);
EquivalenceResult tost_welch(const SampleSummary& a, const SampleSummary& b, double delta, double alpha = 0.05);
EquivalenceResult tost_one_sample(const SampleSummary& a, double bound, double delta, double alpha = 0.05);

}  // namespace dmlbench::experiments
