// Counts (the [XHN] Fig 3 movement shares pooled over seeds): the exact two-sided binomial test of k
// successes in n against a share p0 (scipy.stats.binomtest's rule: the outcomes no more likely than k, with a relative
// slack of 1e-7) and the Clopper-Pearson interval (1934; statsmodels proportion_confint method="beta"), both from
// Boost.Math's binomial and beta distributions.
#pragma once

#include <cstdint>

namespace dmlbench::experiments {

// Throws std::invalid_argument for n = 0, k > n or p0 outside [0, 1].
double binomial_test_p(std::uint64_t k, std::uint64_t n, double p0);
// The one-sided exact p-values: P(X >= k) (scipy's alternative="greater", H0: share <= p0) and P(X <= k)
// (alternative="less", H0: share >= p0), X ~ Binomial(n, p0). The same errors.
double binomial_test_greater_p(std::uint64_t k, std::uint64_t n, double p0);
double binomial_test_less_p(std::uint64_t k, std::uint64_t n, double p0);

struct ProportionInterval {
  double low = 0, high = 1;
};
// The (1 - alpha) exact interval of the share k / n: [0, .] for k = 0, [., 1] for k = n. Throws for n = 0, k > n or
// alpha outside (0, 1).
ProportionInterval clopper_pearson_interval(std::uint64_t k, std::uint64_t n, double alpha = 0.05);

}  // namespace dmlbench::experiments
