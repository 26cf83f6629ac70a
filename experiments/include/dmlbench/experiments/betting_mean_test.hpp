// The anytime-valid test of the mean of a bounded per-seed value by betting (Waudby-Smith and Ramdas 2024, "Estimating
// means of bounded random variables by betting", JRSS-B 86(1): the hedged capital process, Thm 3, with the predictable
// plug-in bets of their eq (26)). It assumes only that each value lies in a known range [lo, hi]: no normality, so it
// holds for shares that pile up at 0, skewed values and values with a few levels, where a t statistic does not.
//
// Model: x_1, x_2, ... in [lo, hi] with conditional mean mu given the past (iid seeds are a special case); y = (x - lo)
// / (hi - lo) in [0, 1], m = (mu0 - lo) / (hi - lo). For a candidate mean m the two capitals
//     K+_n(m) = prod_i (1 + l+_i(m) (y_i - m)),   K-_n(m) = prod_i (1 - l-_i(m) (y_i - m)),
// with bets l+_i(m) = min(l_i, c / m) and l-_i(m) = min(l_i, c / (1 - m)), c = 1/2, and l_i the predictable plug-in
//     l_i = sqrt(2 log(2 / alpha) / (s2_{i-1} i log(1 + i))),
//     s2_t = (1/4 + sum_{j <= t} (y_j - mhat_j)^2) / (t + 1),   mhat_t = (1/2 + sum_{j <= t} y_j) / (t + 1),
// are nonnegative martingales under mu = mu0 (each factor has conditional mean 1 and is at least 1 - c > 0), and so is
// theta K+ + (1 - theta) K-. The hedged capital K_n(m) = max(theta K+_n(m), (1 - theta) K-_n(m)), theta = 1/2, is at
// most that martingale: by Ville's inequality P(K_n(mu0) >= 1/alpha for some n) <= alpha, whatever rule adds seeds or
// stops. The confidence sequence is {mu0 : K_n(mu0) < 1/alpha}, an interval (K+ falls and K- rises in m, WSR Prop 4),
// and every decision read from it at any look is wrong with probability at most alpha, all of them together.
//
// What the range costs: the test knows nothing but [lo, hi], so ten seeds at exactly 0 of a share bounded by 100 do not
// show a mean under 1 (a share of 100 on 1.1% of seeds has mean 1.1 and gives ten zeros with probability 0.9): such a
// claim is undecidable at any test's level, and the interval says so.
#pragma once

#include <cstddef>
#include <vector>

namespace dmlbench::experiments {

// The confidence sequence's interval of the mean at the current look, in the values' units; [lo, hi] before any
// value. The interval's ends are found to 1e-12 of the range.
struct BettingInterval {
  double mean = 0;  // the values' mean (NaN before any value)
  std::size_t n = 0;
  double low = 0, high = 0;
  double alpha = 0.05;
  double lo = 0, hi = 1;  // the range the values were assumed to lie in
};

// log K_n(mu0) of values in [lo, hi] (0 before any value). Throws std::invalid_argument for lo >= hi or either
// non-finite, a value outside [lo, hi] or NaN (naming it), mu0 outside (lo, hi), alpha outside (0, 1).
double betting_log_capital(const std::vector<double>& values, double mu0, double lo, double hi, double alpha = 0.05);

// The interval {mu0 : K_n(mu0) < 1/alpha}, closed at lo or hi where the capital stays below 1/alpha up to the end.
// Same errors as betting_log_capital.
BettingInterval betting_interval(const std::vector<double>& values, double lo, double hi, double alpha = 0.05);
// The same with the bets of eq (26) tuned at bets_alpha (any predictable bets keep the capital a martingale): a claim
// read at a family's level alpha R / m bets as its e-value against 0 does (at the claim's alpha), so that the interval
// excludes 0 exactly when that e-value reaches 1 / level. Also throws for bets_alpha outside (0, 1).
BettingInterval betting_interval(const std::vector<double>& values, double lo, double hi, double alpha,
                                 double bets_alpha);

}  // namespace dmlbench::experiments
