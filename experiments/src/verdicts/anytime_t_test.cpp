// The anytime-valid one-sample t-test (Perez-Ortiz, Lardy, de Heide, Grunwald 2022; Gonen et al. 2005's Bayes factor
// with a fixed g): its e-value, the radius of its confidence sequence (closed form) and one claim's outcome from it.
#include "dmlbench/experiments/anytime_t_test.hpp"

#include "statistics_checks.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

namespace {

void check_g(double g) {
  if (!(g > 0) || !std::isfinite(g))
    throw std::invalid_argument("the prior variance g of the standardized effect must be a finite number > 0, got " +
                                sc::number_text(g));
}

void check_summary(const SampleSummary& d) {
  sc::check_seeds(d.n, "the anytime t-test");
  sc::check_finite(d.mean, "the anytime t-test's mean");
  sc::check_sd(d.sd, "the anytime t-test's sd");
}

// log((1 + a) / (1 + a / k)) with a = t^2 / nu: each log1p is accurate to rounding for every finite a (for a small the
// difference is ~a (1 - 1/k), no cancellation of leading terms; for a near the largest double the two logs are ~690
// and their difference ~log k, an absolute error of ~1e-13); t^2 overflowing to infinity takes the limit, log k.
double log_ratio(double t, double nu, double k) {
  const double r = t / std::sqrt(nu), a = r * r;
  if (std::isinf(a)) return std::log(k);
  return std::log1p(a) - std::log1p(a / k);
}

std::string text(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

}  // namespace

double anytime_t_log_e_value(double t, std::size_t n, double g) {
  sc::check_seeds(n, "the anytime t-test");
  check_g(g);
  if (std::isnan(t)) throw std::invalid_argument("the anytime t-test's t statistic must not be NaN");
  const double nd = double(n);
  return -0.5 * std::log1p(nd * g) + 0.5 * nd * log_ratio(t, nd - 1, 1 + nd * g);
}

double anytime_t_e_value(double t, std::size_t n, double g) { return std::exp(anytime_t_log_e_value(t, n, g)); }

double anytime_t_log_e_value(const SampleSummary& d, double mu0, double g) {
  check_summary(d);
  sc::check_finite(mu0, "the anytime t-test's mu0");
  check_g(g);
  if (!(d.sd > 0)) return NAN;  // the zero-spread rule
  return anytime_t_log_e_value((d.mean - mu0) / (d.sd / std::sqrt(double(d.n))), d.n, g);
}

double anytime_t_e_value(const SampleSummary& d, double mu0, double g) {
  return std::exp(anytime_t_log_e_value(d, mu0, g));
}

double anytime_radius_multiplier(std::size_t n, double alpha, double g) {
  sc::check_seeds(n, "the anytime t-test");
  sc::check_alpha(alpha);
  check_g(g);
  // E_n = 1/alpha <=> (1 + a) / (1 + a/k) = R = (sqrt(k) / alpha)^(2/n) <=> a = (R - 1) / (1 - R/k), a = t^2 / nu
  const double nd = double(n), log_k = std::log1p(nd * g);
  const double log_r = (2 / nd) * (0.5 * log_k - std::log(alpha));
  if (!(log_r < log_k)) return std::numeric_limits<double>::infinity();  // E_n's bound k^(nu/2) stays below 1/alpha
  const double a = std::expm1(log_r) / -std::expm1(log_r - log_k);
  return std::sqrt((nd - 1) * a);
}

AnytimeInterval anytime_interval(const SampleSummary& d, double alpha, double g) {
  check_summary(d);
  AnytimeInterval r;
  r.multiplier = anytime_radius_multiplier(d.n, alpha, g);
  r.mean = d.mean;
  r.n = d.n;
  r.alpha = alpha;
  r.g = g;
  r.se = d.sd / std::sqrt(double(d.n));
  if (!r.testable()) {  // the zero-spread rule
    r.low = r.high = NAN;
    return r;
  }
  if (std::isinf(r.multiplier)) {
    r.low = -std::numeric_limits<double>::infinity();
    r.high = std::numeric_limits<double>::infinity();
    return r;
  }
  r.low = d.mean - r.multiplier * r.se;
  r.high = d.mean + r.multiplier * r.se;
  return r;
}

AnytimeInterval anytime_interval(const std::vector<double>& d, double alpha, double g) {
  return anytime_interval(summarize(d), alpha, g);
}

std::vector<double> paired_differences(const std::vector<double>& treatment, const std::vector<double>& baseline) {
  if (treatment.size() != baseline.size())
    throw std::invalid_argument("paired differences need one baseline seed per treatment seed, got " +
                                std::to_string(treatment.size()) + " and " + std::to_string(baseline.size()));
  std::vector<double> d(treatment.size());
  for (std::size_t k = 0; k < d.size(); ++k) {
    sc::check_finite(treatment[k], "every treatment value");
    sc::check_finite(baseline[k], "every baseline value");
    d[k] = treatment[k] - baseline[k];
  }
  return d;
}

AnytimeDecision anytime_claim_outcome(const AnytimeClaimInput& in) {
  if (in.paper_sign != 1 && in.paper_sign != -1)
    throw std::invalid_argument("the paper's direction must be +1 or -1, got " + std::to_string(in.paper_sign));
  sc::check_alpha(in.alpha);
  if (in.family_size == 0) throw std::invalid_argument("a claim's family must hold at least 1 claim, got 0");
  sc::check_delta(in.delta);
  check_g(in.g);
  check_summary(in.differences);
  AnytimeDecision r;
  r.level = in.alpha / double(in.family_size);
  r.interval = anytime_interval(in.differences, r.level, in.g);
  if (!r.interval.testable()) {
    r.t = r.log_e_value = r.e_value = NAN;
    r.outcome = TrainingOutcome::inconclusive;
    r.reason = "no spread: every seed's difference is the same, which admits no t-test";
    return r;
  }
  r.t = r.interval.mean / r.interval.se;
  r.log_e_value = anytime_t_log_e_value(r.t, r.interval.n, in.g);
  r.e_value = std::exp(r.log_e_value);
  const AnytimeInterval& i = r.interval;
  const std::string interval = "the anytime interval [" + text(i.low) + ", " + text(i.high) + "] at level " +
                               text(r.level) + " after " + std::to_string(i.n) + " seeds";
  r.outcome = interval_outcome(i.low, i.high, in.paper_sign, in.delta);
  r.reason = r.outcome == TrainingOutcome::inconclusive && std::isinf(i.multiplier)
                 ? "too few seeds: at level " + text(r.level) + " with g " + text(in.g) + " no " +
                       std::to_string(i.n) + " seeds can decide (the e-value is at most (1 + n g)^((n - 1)/2) < 1/level)"
                 : interval_outcome_reason(r.outcome, interval, i.low, in.delta);
  return r;
}

}  // namespace dmlbench::experiments
