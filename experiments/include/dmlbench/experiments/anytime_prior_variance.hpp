// The prior variance g of the anytime t-test's mixture chosen from the design of looks alone:
// the g whose confidence sequence is nearest the narrowest one at its worst look from the first look to the cap.
//
// A mixture's spread sets where its boundary is tightest: Howard, Ramdas, McAuliffe and Sekhon (2021, "Time-uniform,
// nonparametric, nonasymptotic confidence sequences") tune a normal mixture for one target sample size. A stage of the
// report looks at every seed count from its first look to its cap, so the rule takes the worst ratio over that range:
//     regret(g) = max over n = first..cap of c_n(level, g) / min over g' of c_n(level, g'),
// c_n the radius multiplier of anytime_t_test.hpp, and g* = argmin regret. It reads no run: only the level the looks
// decide at and the seed range. With g = 1 (the unit-information prior) c_4 is infinite
// at level 0.03 (no data can decide at 4 seeds) and c_5 = 25.2 against the narrowest 6.17, so no claim is decided
// before the sixth seed and no seeds can be taken from claims decided early.
#pragma once

#include <cstddef>

namespace dmlbench::experiments {

// min over g of c_n(level, g): the narrowest radius multiplier any prior variance gives at n seeds (a golden-section
// search over log g in [1e-3, 1e6], to a relative 1e-9 in g). Throws std::invalid_argument for n < 2 or a level
// outside (0, 1).
double narrowest_anytime_radius(std::size_t n, double level);

// max over n = first..cap of c_n(level, g) / narrowest_anytime_radius(n, level): 1 at best; +infinity when c_first is
// infinite (g too small for any data to decide at the first look). Throws for first < 2, cap < first, a bad level or g.
double anytime_g_regret(double g, double level, std::size_t first, std::size_t cap);

// argmin over g of anytime_g_regret: a log grid of 2001 points over [1e-2, 1e4] refined by golden section between
// the best point's neighbours. Same errors as anytime_g_regret.
double minimax_anytime_g(double level, std::size_t first, std::size_t cap);

}  // namespace dmlbench::experiments
