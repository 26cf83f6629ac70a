// The power of the anytime-valid t-test's decision at a look (power and seeds needed at the deciding level):
// P(|T| >= c_n) for T the one-sample t of n seeds' differences, non-central with n - 1 degrees of freedom and
// non-centrality effect sqrt(n) / sd, and c_n the confidence sequence's multiplier at the claim's level
// (anytime_t_test.hpp). It is the power of one look at n seeds; the rule that looks after every seed up to n decides at
// least as often (a seed count that reaches the power at its single look is enough for the sequential rule too, so the
// seeds needed below are an upper bound on what the rule spends, never an under-statement).
#pragma once

#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/t_test_power.hpp"

#include <cstddef>

namespace dmlbench::experiments {

// P(|T| >= c_n) at the standardized effect (mu / sd of the differences, any sign); 0 while c_n is infinite (too few
// seeds for the level). Throws std::invalid_argument for n < 2, a level outside (0, 1), a bad g, a non-finite effect.
double anytime_power(double standardized_effect, std::size_t n, double level, double g = default_anytime_g);

// The smallest |difference| that n seeds with this sd of the differences decide with probability `power` at one look:
// sd times the standardized effect solving anytime_power = power. +infinity while c_n is infinite; NaN for sd 0 (the
// zero-spread rule). Throws for a negative or non-finite sd, a power outside (0, 1), and anytime_power's errors.
double anytime_minimum_detectable_effect(double sd, std::size_t n, double level, double power,
                                         double g = default_anytime_g);

// The fewest seeds (2..cap) whose single look decides `effect` (in the differences' units) with probability `power`
// for differences of this sd (t_test_power.hpp's statuses: no_spread for sd 0, no_effect for effect 0, beyond_cap).
// Throws for cap < 2 and the errors above.
SeedsNeeded anytime_seeds_needed(double effect, double sd, double level, double power, std::size_t cap = 100,
                                 double g = default_anytime_g);

}  // namespace dmlbench::experiments
