// The power of the anytime-valid t-test at a look, its minimum detectable effect and the seeds it needs.
#include "dmlbench/experiments/anytime_power.hpp"

#include "statistics_checks.hpp"

#include <boost/math/distributions/non_central_t.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

double anytime_power(double standardized_effect, std::size_t n, double level, double g) {
  sc::check_finite(standardized_effect, "the standardized effect");
  const double c = anytime_radius_multiplier(n, level, g);  // checks n, level and g
  if (std::isinf(c)) return 0;
  const double ncp = standardized_effect * std::sqrt(double(n));
  // Far past c the power is 1 to double precision, and Boost's series cannot represent the non-centrality (it throws
  // for ~1e30): with T = (Z + ncp) / sqrt(V / df), P(|T| < c) <= P(Z < -|ncp|/2) + P(V > df (|ncp| / (2c))^2), and
  // at |ncp| >= 80 c both terms are below 1e-300 for every df >= 1 (the chi-square tail at 1600 df is the smallest
  // with df = 1: 2 Phi(-40)).
  if (std::abs(ncp) >= 80 * c) return 1;
  const boost::math::non_central_t t(double(n - 1), ncp);
  return boost::math::cdf(boost::math::complement(t, c)) + boost::math::cdf(t, -c);
}

double anytime_minimum_detectable_effect(double sd, std::size_t n, double level, double power, double g) {
  sc::check_sd(sd, "the sd of the differences");
  sc::check_open_unit(power, "power");
  if (std::isinf(anytime_radius_multiplier(n, level, g))) return std::numeric_limits<double>::infinity();
  if (!(sd > 0)) return NAN;
  // in sd units; the power grows with the effect, from below `level` at 0 to 1
  const auto shortfall = [&](double e) { return anytime_power(e, n, level, g) - power; };
  return sd * effect_reaching(shortfall, shortfall(0.0), 1.0,
                              "anytime_minimum_detectable_effect: no effect up to 2^64 sd reaches the power");
}

SeedsNeeded anytime_seeds_needed(double effect, double sd, double level, double power, std::size_t cap, double g) {
  sc::check_sd(sd, "the sd of the differences");
  return seeds_reaching(
      effect, sd > 0, [&](std::size_t n) { return anytime_power(effect / sd, n, level, g); }, power, cap);
}

}  // namespace dmlbench::experiments
