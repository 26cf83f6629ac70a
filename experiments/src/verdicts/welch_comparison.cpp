// Welch's unequal-variance t comparison and the one-sample t against a bound (Welch 1947): difference, CI, t, df, p.
#include "dmlbench/experiments/welch_comparison.hpp"

#include "statistics_checks.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

SampleSummary summarize(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("summarize: no values");
  SampleSummary s;
  s.n = values.size();
  double sum = 0;
  for (double v : values) {
    sc::check_finite(v, "every value of a sample");
    sum += v;
  }
  // every value the same: exactly no spread (the zero-spread rule), not the rounding of (3 x 0.2) / 3 - 0.2
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; })) {
    s.mean = values[0];
    return s;
  }
  s.mean = sum / double(s.n);
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = s.n > 1 ? std::sqrt(ss / double(s.n - 1)) : 0.0;
  return s;
}

namespace {

void check_summary(const SampleSummary& s, const std::string& what) {
  sc::check_seeds(s.n, what);
  sc::check_finite(s.mean, what + "'s mean");
  sc::check_sd(s.sd, what + "'s sd");
}

// t, p and the interval of `difference` with standard error se and df; the zero-spread rule where se = 0
TComparison t_comparison(double difference, double se, double df, double alpha) {
  TComparison c;
  c.difference = difference;
  c.se = se;
  c.alpha = alpha;
  if (!(se > 0)) {
    c.t = c.df = c.p = c.ci_low = c.ci_high = NAN;
    return c;
  }
  const boost::math::students_t dist(df);
  c.df = df;
  c.t = difference / se;
  c.p = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::abs(c.t))));
  const double half = boost::math::quantile(boost::math::complement(dist, alpha / 2)) * se;
  c.ci_low = difference - half;
  c.ci_high = difference + half;
  return c;
}

}  // namespace

TComparison welch_difference(const SampleSummary& a, const SampleSummary& b, double alpha) {
  sc::check_alpha(alpha);
  check_summary(a, "Welch's test: sample a");
  check_summary(b, "Welch's test: sample b");
  const double va = a.sd * a.sd / double(a.n), vb = b.sd * b.sd / double(b.n);
  const double df = (va + vb) * (va + vb) / (va * va / double(a.n - 1) + vb * vb / double(b.n - 1));
  return t_comparison(a.mean - b.mean, std::sqrt(va + vb), df, alpha);
}

TComparison one_sample_difference(const SampleSummary& a, double bound, double alpha) {
  sc::check_alpha(alpha);
  check_summary(a, "the one-sample t-test's sample");
  sc::check_finite(bound, "the bound of a one-sample t-test");
  return t_comparison(a.mean - bound, a.sd / std::sqrt(double(a.n)), double(a.n - 1), alpha);
}

}  // namespace dmlbench::experiments
