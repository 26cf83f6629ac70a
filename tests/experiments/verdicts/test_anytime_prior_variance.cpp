// The anytime t-test's prior variance g from the design of looks
// (experiments/src/verdicts/anytime_prior_variance.cpp): the narrowest radius any g gives at n seeds, the worst ratio
// to it over a seed range, and the g that makes that worst ratio least; the bench's default g against that rule.
//
// Tolerances: the golden sections stop at a width of 1e-9 in log g; the radius is flat at its least (d c / d log g = 0
// there), so the least radius is exact to ~1e-16 relative and the brute-force grid of 20,001 points (a step of 8e-4
// in log g, a second-order error of ~1e-7 relative in c) must not beat it by more than rounding: 1e-12 relative. The
// minimax g: the regret is not flat at its least (a kink where two looks' ratios cross), so the grid's best point is
// within one grid step of it: 1e-3 relative in g, and no grid point's regret below the rule's by more than 1e-12.
#include "dmlbench/experiments/anytime_prior_variance.hpp"
#include "dmlbench/experiments/anytime_t_test.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinRel;

namespace {

double grid_min_radius(std::size_t n, double level) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= 20000; ++i) best = std::min(best, anytime_radius_multiplier(n, level, std::exp(-7.0 + i * 0.0008)));
  return best;
}

}  // namespace

TEST_CASE("anytime prior variance: the narrowest radius at n seeds is the least over g, and g = 1 is far from it at "
          "the report's first looks", "[prior]") {
  for (double level : {0.05, 0.03, 0.05 / 75})
    for (std::size_t n : {3, 4, 5, 6, 8, 10, 20}) {
      INFO("level " << level << ", n " << n);
      const double best = narrowest_anytime_radius(n, level);
      REQUIRE(std::isfinite(best));
      CHECK(best <= grid_min_radius(n, level) * (1 + 1e-12));
      CHECK(best >= 2.0);  // wider than any fixed-n t quantile could ask at these levels
    }
  // the unit-information prior at e-BH's planned level 0.03 (report_seed_spending.hpp): no 4 seeds decide, and 5
  // seeds need a t of 25.2, four times the narrowest radius
  CHECK(std::isinf(anytime_radius_multiplier(4, 0.03, 1.0)));
  CHECK_THAT(anytime_radius_multiplier(5, 0.03, 1.0) / narrowest_anytime_radius(5, 0.03), WithinRel(4.085, 1e-3));
  CHECK_THROWS_AS(narrowest_anytime_radius(1, 0.03), std::invalid_argument);
  CHECK_THROWS_AS(narrowest_anytime_radius(5, 1.5), std::invalid_argument);
}

TEST_CASE("anytime prior variance: the minimax g of a design of looks makes the worst look's radius least, and the "
          "default g is the report's", "[prior]") {
  for (auto [first, cap] : {std::pair<std::size_t, std::size_t>{4, 10}, {5, 10}, {4, 8}, {3, 12}}) {
    INFO("seeds " << first << " to " << cap);
    const double g = minimax_anytime_g(0.03, first, cap);
    const double at = anytime_g_regret(g, 0.03, first, cap);
    CHECK(at >= 1.0);
    double grid_best = std::numeric_limits<double>::infinity(), grid_g = 0;
    for (int i = 0; i <= 4000; ++i) {
      const double x = std::exp(std::log(1e-2) + i * std::log(1e6) / 4000);
      if (const double r = anytime_g_regret(x, 0.03, first, cap); r < grid_best) grid_best = r, grid_g = x;
    }
    CHECK(at <= grid_best * (1 + 1e-12));
    CHECK_THAT(g, WithinRel(grid_g, 5e-3));
    // a g 2% off either side is worse at its worst look
    CHECK(anytime_g_regret(g * 1.02, 0.03, first, cap) > at);
    CHECK(anytime_g_regret(g / 1.02, 0.03, first, cap) > at);
  }
  // the report's design: first look 4, cap 10, at 0.03; the default g is that rule's to 3 significant digits, within
  // 5% of the narrowest radius at every look, where g = 1 cannot decide at the first look at all (negative control)
  const double report_g = minimax_anytime_g(0.05 * 0.6, 4, 10);
  CHECK_THAT(default_anytime_g, WithinRel(report_g, 5e-3));
  CHECK(anytime_g_regret(default_anytime_g, 0.03, 4, 10) < 1.051);
  CHECK(std::isinf(anytime_g_regret(1.0, 0.03, 4, 10)));
  CHECK_THAT(minimax_anytime_g(0.03, 5, 10), !WithinRel(default_anytime_g, 0.1));  // another first look, another g
  CHECK_THROWS_AS(anytime_g_regret(1.0, 0.03, 1, 10), std::invalid_argument);
  CHECK_THROWS_AS(minimax_anytime_g(0.03, 6, 5), std::invalid_argument);
  CHECK_THROWS_AS(anytime_g_regret(-1.0, 0.03, 4, 10), std::invalid_argument);
}
