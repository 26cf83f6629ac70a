// The power of a two-sided t-test from the non-central t (Welch's test, or one sample against a bound), the minimum
// detectable effect at a power and the seeds per arm needed to detect an effect.
#include "dmlbench/experiments/t_test_power.hpp"

#include "statistics_checks.hpp"

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

TDesign welch_design(double sd_a, double sd_b, std::size_t n_a, std::size_t n_b) {
  sc::check_sd(sd_a, "sd_a");
  sc::check_sd(sd_b, "sd_b");
  sc::check_seeds(n_a, "Welch's test: arm a");
  sc::check_seeds(n_b, "Welch's test: arm b");
  const double va = sd_a * sd_a / double(n_a), vb = sd_b * sd_b / double(n_b);
  TDesign d;
  d.se = std::sqrt(va + vb);
  d.df = d.se > 0 ? (va + vb) * (va + vb) / (va * va / double(n_a - 1) + vb * vb / double(n_b - 1)) : NAN;
  return d;
}

TDesign one_sample_design(double sd, std::size_t n) {
  sc::check_sd(sd, "sd");
  sc::check_seeds(n, "the one-sample t-test");
  return {sd / std::sqrt(double(n)), double(n - 1)};
}

double t_test_power(double effect, const TDesign& d, double alpha) {
  sc::check_alpha(alpha);
  sc::check_finite(effect, "the effect");
  if (!(d.se > 0)) return NAN;  // the zero-spread rule: no test, no power
  const double critical = boost::math::quantile(boost::math::complement(boost::math::students_t(d.df), alpha / 2));
  const boost::math::non_central_t t(d.df, effect / d.se);
  return boost::math::cdf(boost::math::complement(t, critical)) + boost::math::cdf(t, -critical);
}

double welch_power(double effect, double sd_a, double sd_b, std::size_t n_a, std::size_t n_b, double alpha) {
  return t_test_power(effect, welch_design(sd_a, sd_b, n_a, n_b), alpha);
}

double effect_reaching(const std::function<double(double)>& shortfall, double shortfall_at_zero, double start,
                       const std::string& none_message) {
  double high = start;
  for (int i = 0; shortfall(high) < 0; ++i) {
    if (i == 64) throw std::runtime_error(none_message);
    high *= 2;
  }
  std::uintmax_t iterations = 200;
  const auto [low_end, high_end] = boost::math::tools::toms748_solve(
      shortfall, 0.0, high, shortfall_at_zero, shortfall(high), boost::math::tools::eps_tolerance<double>(45),
      iterations);
  return (low_end + high_end) / 2;
}

double minimum_detectable_effect(const TDesign& d, double alpha, double power) {
  sc::check_alpha(alpha);
  sc::check_open_unit(power, "power");
  if (!(d.se > 0)) return NAN;
  if (power <= alpha) return 0;  // the test at level alpha already rejects that often with no effect
  return effect_reaching([&](double e) { return t_test_power(e, d, alpha) - power; }, -(power - alpha), d.se,
                         "minimum_detectable_effect: no effect up to 2^64 se reaches the power");
}

SeedsNeeded seeds_reaching(double effect, bool spread, const std::function<double(std::size_t)>& power_at,
                           double power, std::size_t cap) {
  sc::check_open_unit(power, "power");
  sc::check_finite(effect, "the effect to detect");
  if (cap < 2) throw std::invalid_argument("the cap on seeds must be at least 2, got " + std::to_string(cap));
  SeedsNeeded s;
  if (!spread) {
    s.status = SeedsNeeded::no_spread;
    return s;
  }
  if (effect == 0) {
    s.status = SeedsNeeded::no_effect;
    return s;
  }
  for (std::size_t n = 2; n <= cap; ++n) {
    s.n = n;
    s.power_at_n = power_at(n);
    if (s.power_at_n >= power) return s;
  }
  s.status = SeedsNeeded::beyond_cap;
  return s;
}

namespace {

SeedsNeeded seeds_needed(double effect, bool spread, const std::function<TDesign(std::size_t)>& design, double alpha,
                         double power, std::size_t cap) {
  sc::check_alpha(alpha);
  return seeds_reaching(
      effect, spread, [&](std::size_t n) { return t_test_power(effect, design(n), alpha); }, power, cap);
}

}  // namespace

SeedsNeeded welch_seeds_needed(double effect, double sd_a, double sd_b, double alpha, double power, std::size_t cap) {
  sc::check_sd(sd_a, "sd_a");
  sc::check_sd(sd_b, "sd_b");
  return seeds_needed(
      effect, sd_a > 0 || sd_b > 0, [&](std::size_t n) { return welch_design(sd_a, sd_b, n, n); }, alpha, power, cap);
}

SeedsNeeded one_sample_seeds_needed(double effect, double sd, double alpha, double power, std::size_t cap) {
  sc::check_sd(sd, "sd");
  return seeds_needed(effect, sd > 0, [&](std::size_t n) { return one_sample_design(sd, n); }, alpha, power, cap);
}

}  // namespace dmlbench::experiments
