// Equivalence by two one-sided t-tests (Schuirmann 1987, TOST) of |effect| < delta at level alpha.
#include "dmlbench/experiments/equivalence_test.hpp"

#include "statistics_checks.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

namespace dmlbench::experiments {

EquivalenceResult equivalence_test(const TComparison& c, double delta) {
  statistics_checks::check_delta(delta);
  EquivalenceResult e;
  if (!c.testable()) {  // the zero-spread rule
    e.t_lower = e.p_lower = e.t_upper = e.p_upper = e.df = e.p_tost = NAN;
    return e;
  }
  const boost::math::students_t dist(c.df);
  e.df = c.df;
  e.t_lower = (c.difference + delta) / c.se;
  e.p_lower = boost::math::cdf(boost::math::complement(dist, e.t_lower));
  e.t_upper = (c.difference - delta) / c.se;
  e.p_upper = boost::math::cdf(dist, e.t_upper);
  e.p_tost = std::max(e.p_lower, e.p_upper);
  e.equivalent = e.p_tost < c.alpha;
  return e;
}

EquivalenceResult tost_welch(const SampleSummary& a, const SampleSummary& b, double delta, double alpha) {
  statistics_checks::check_delta(delta);
  return equivalence_test(welch_difference(a, b, alpha), delta);
}

EquivalenceResult tost_one_sample(const SampleSummary& a, double bound, double delta, double alpha) {
  statistics_checks::check_delta(delta);
  return equivalence_test(one_sample_difference(a, bound, alpha), delta);
}

}  // namespace dmlbench::experiments
