// Welch's unequal-variance t comparison (Welch 1947, Satterthwaite's df): the difference of two means,
// or one mean against a bound, with its (1 - alpha) confidence interval, t, df and two-sided p.
#pragma once

#include <cstddef>
#include <vector>

namespace dmlbench::experiments {

// One side of a comparison: mean, standard deviation (n - 1 in the denominator) and number of values (seeds).
struct SampleSummary {
  double mean = 0, sd = 0;
  std::size_t n = 0;
};
// sd is exactly 0 when every value is the same. Throws std::invalid_argument for no values or a non-finite one.
SampleSummary summarize(const std::vector<double>& values);

// The zero-spread rule, the same everywhere in verdicts/: a comparison whose standard error is 0 (every value the same
// on both sides, or every value equal in a one-sample comparison) admits no t-test, whatever the means: t, df, p and
// the interval are NaN, testable() is false, and equivalence, power and the training outcome follow (not equivalent,
// power NaN, outcome inconclusive with reason "no spread"). No significance is read from a sign alone. Shares that
// pile up at one value belong to a count test (binomial_test.hpp) instead.
struct TComparison {
  double difference = 0;  // mean(a) - mean(b), or mean(a) - bound
  double se = 0;          // its standard error
  double t = 0, df = 0, p = 0;  // two-sided p from Student's t with df (Boost.Math)
  double ci_low = 0, ci_high = 0;  // difference -+ t_{1 - alpha/2, df} se
  double alpha = 0.05;
  bool testable() const { return se > 0; }
};

// Welch's two-sample comparison of mean(a) - mean(b), as scipy.stats.ttest_ind(a, b, equal_var=False). Throws
// std::invalid_argument for fewer than 2 values on a side or alpha outside (0, 1).
TComparison welch_difference(const SampleSummary& a, const SampleSummary& b, double alpha = 0.05);
// The one-sample comparison of mean(a) - bound (df n - 1), as scipy.stats.ttest_1samp(a, bound). Same errors.
TComparison one_sample_difference(const SampleSummary& a, double bound, double alpha = 0.05);

}  // namespace dmlbench::experiments
