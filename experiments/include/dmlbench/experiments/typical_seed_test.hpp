// "A typical seed lies below the bound": the anytime-valid test of p = P(value < bound) > 1/2 from per-seed
// indicators, by the mixture of binomial likelihood ratios over p uniform on [1/2, 1] (Robbins 1970, "Statistical
// methods related to the law of the iterated logarithm": mixtures of likelihood ratios are test martingales; Ramdas,
// Gruenwald, Vovk and Shafer 2023, "Game-theoretic statistics and safe anytime-valid inference", Sec 4). It assumes
// nothing of the values but independent seeds: a share that is 0 on most seeds and large on a few is judged by how many
// seeds lie below the bound, not by their mean.
//
// With s of n seeds below the bound, for the null p <= 1/2:
//     E_n = 2 int_{1/2}^{1} (2q)^s (2(1 - q))^(n - s) dq = 2^(n+1) B(s+1, n-s+1) (1 - I_{1/2}(s+1, n-s+1)),
// I the regularized incomplete beta (Boost.Math ibetac). Each q >= 1/2 gives a likelihood ratio whose one-seed factor
// has mean 2(p q + (1 - p)(1 - q)) = 1 - (2q - 1)(1 - 2p) <= 1 under any p <= 1/2, so E_n is a nonnegative
// supermartingale under the whole null, and P(E_n >= 1/alpha for some n) <= alpha (Ville) whatever rule stops.
// All n seeds below the bound give E_n = (2^(n+1) - 1) / (n + 1): 1/0.05 is passed at 7 seeds, 1/0.03 at 8.
// A seed exactly at the bound counts as not below (conservative).
#pragma once

#include <cstddef>
#include <vector>

namespace dmlbench::experiments {

// log E_n of "p > 1/2" for s successes of n (0 for n = 0). Throws std::invalid_argument for s > n.
double typical_seed_log_e_value(std::size_t successes, std::size_t n);

// The seeds below (`below` true) or above the bound, and log E_n that a typical seed lies there. Throws
// std::invalid_argument for a non-finite value or bound.
struct TypicalSeedEvidence {
  std::size_t n = 0, on_side = 0;
  double log_e_value = 0;
};
TypicalSeedEvidence typical_seed_evidence(const std::vector<double>& values, double bound, bool below);

}  // namespace dmlbench::experiments
