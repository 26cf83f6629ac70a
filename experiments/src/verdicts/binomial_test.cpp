// The exact two-sided binomial test (scipy.stats.binomtest's rule) and the Clopper-Pearson interval (1934) of a count.
#include "dmlbench/experiments/binomial_test.hpp"

#include "statistics_checks.hpp"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

namespace {

void check_count(std::uint64_t k, std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("a binomial count needs n >= 1 trials, got 0");
  if (k > n)
    throw std::invalid_argument("a binomial count k must not exceed n, got k = " + std::to_string(k) +
                                " of n = " + std::to_string(n));
}

void check_share(double p0) {
  if (!(p0 >= 0 && p0 <= 1))
    throw std::invalid_argument("the share p0 of a binomial test must lie in [0, 1], got " +
                                statistics_checks::number_text(p0));
}

}  // namespace

// Two-sided p: P(X = k) plus the probability of the other tail's outcomes no more likely than k (pmf <= pmf(k) with
// scipy's relative slack 1 + 1e-7), as scipy.stats.binomtest(k, n, p0, alternative="two-sided").
double binomial_test_p(std::uint64_t k, std::uint64_t n, double p0) {
  check_count(k, n);
  check_share(p0);
  const boost::math::binomial_distribution<double> dist(double(n), p0);
  const double kk = double(k), nn = double(n), expected = p0 * nn;
  if (kk == expected) return 1;
  const double d = boost::math::pdf(dist, kk) * (1 + 1e-7);
  double p = 0;
  if (kk < expected) {  // the upper tail from the first outcome above the mean as unlikely as k
    double i = std::ceil(expected);
    while (i <= nn && boost::math::pdf(dist, i) > d) ++i;
    p = boost::math::cdf(dist, kk) + (i <= nn ? boost::math::cdf(boost::math::complement(dist, i - 1)) : 0.0);
  } else {  // the lower tail up to the last outcome below the mean as unlikely as k
    double j = std::floor(expected);
    while (j >= 0 && boost::math::pdf(dist, j) > d) --j;
    p = (j >= 0 ? boost::math::cdf(dist, j) : 0.0) + boost::math::cdf(boost::math::complement(dist, kk - 1));
  }
  return std::min(1.0, p);
}

double binomial_test_greater_p(std::uint64_t k, std::uint64_t n, double p0) {
  check_count(k, n);
  check_share(p0);
  if (k == 0) return 1;
  const boost::math::binomial_distribution<double> dist(double(n), p0);
  return boost::math::cdf(boost::math::complement(dist, double(k) - 1));
}

double binomial_test_less_p(std::uint64_t k, std::uint64_t n, double p0) {
  check_count(k, n);
  check_share(p0);
  if (k == n) return 1;
  return boost::math::cdf(boost::math::binomial_distribution<double>(double(n), p0), double(k));
}

ProportionInterval clopper_pearson_interval(std::uint64_t k, std::uint64_t n, double alpha) {
  check_count(k, n);
  statistics_checks::check_alpha(alpha);
  const double kk = double(k), nn = double(n);
  ProportionInterval ci;
  if (k > 0) ci.low = boost::math::quantile(boost::math::beta_distribution<double>(kk, nn - kk + 1), alpha / 2);
  if (k < n)
    ci.high = boost::math::quantile(boost::math::complement(boost::math::beta_distribution<double>(kk + 1, nn - kk),
                                                            alpha / 2));
  return ci;
}

}  // namespace dmlbench::experiments
