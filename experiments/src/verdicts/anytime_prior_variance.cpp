// The anytime t-test's prior variance g from the design of looks alone: the minimax of its radius over the looks'
// seed range (Howard et al. 2021 tune a mixture for a target sample size; this takes the range from first look to cap).
#include "dmlbench/experiments/anytime_prior_variance.hpp"

#include "dmlbench/experiments/anytime_t_test.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::experiments {

namespace {

// The least of f over [lo, hi] (f unimodal there, +infinity allowed on a side) by golden section, to a width of tol.
double golden_argmin(const std::function<double(double)>& f, double lo, double hi, double tol) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, x1 = b - r * (b - a), x2 = a + r * (b - a);
  double f1 = f(x1), f2 = f(x2);
  while (b - a > tol) {
    if (f1 < f2) {  // the least lies left of x2; a plateau of +infinity lies at small g, so ties move right
      b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = f(x1);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = f(x2);
    }
  }
  return (a + b) / 2;
}

void check_range(std::size_t first, std::size_t cap) {
  if (first < 2 || cap < first)
    throw std::invalid_argument("the looks' seed range must have 2 <= first <= cap, got first " +
                                std::to_string(first) + ", cap " + std::to_string(cap));
}

}  // namespace

double narrowest_anytime_radius(std::size_t n, double level) {
  anytime_radius_multiplier(n, level, 1.0);  // checks n and level
  const auto c = [&](double log_g) { return anytime_radius_multiplier(n, level, std::exp(log_g)); };
  return c(golden_argmin(c, std::log(1e-3), std::log(1e6), 1e-9));
}

double anytime_g_regret(double g, double level, std::size_t first, std::size_t cap) {
  check_range(first, cap);
  double worst = 0;
  for (std::size_t n = first; n <= cap; ++n)
    worst = std::max(worst, anytime_radius_multiplier(n, level, g) / narrowest_anytime_radius(n, level));
  return worst;
}

double minimax_anytime_g(double level, std::size_t first, std::size_t cap) {
  check_range(first, cap);
  std::vector<double> best(cap + 1, 0.0);
  for (std::size_t n = first; n <= cap; ++n) best[n] = narrowest_anytime_radius(n, level);
  const auto regret = [&](double log_g) {
    double worst = 0;
    for (std::size_t n = first; n <= cap; ++n)
      worst = std::max(worst, anytime_radius_multiplier(n, level, std::exp(log_g)) / best[n]);
    return worst;
  };
  constexpr int kPoints = 2001;
  const double lo = std::log(1e-2), step = (std::log(1e4) - lo) / (kPoints - 1);
  int at = 0;
  double least = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kPoints; ++i)
    if (const double v = regret(lo + i * step); v < least) least = v, at = i;
  const double a = lo + std::max(at - 1, 0) * step, b = lo + std::min(at + 1, kPoints - 1) * step;
  return std::exp(golden_argmin(regret, a, b, 1e-9));
}

}  // namespace dmlbench::experiments
