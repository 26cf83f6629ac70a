// The power of a mean claim in the report's design: the chance that its looks (one after every seed from the first to
// the cap, at the looks' level, each stopping at claim_stop) end with the claim verified at the level it is read at,
// for Gaussian per-seed differences of a given effect and sd, by simulation. Unlike the power of one look at n seeds
// (anytime_power.hpp), it is the chance of the rule the report runs, stops for futility included.
#pragma once

#include "dmlbench/experiments/anytime_t_test.hpp"

#include <cstddef>
#include <cstdint>

namespace dmlbench::experiments {

struct DesignPowerInput {
  double effect = 0, sd = 1;  // the mean and sd of the per-seed differences; the paper's side is +
  std::size_t first = 4, cap = 10;
  double look_level = 0.03, level = 0.03;  // the looks' level and the level of the final reading
  double g = default_anytime_g;
  std::size_t reps = 4000;  // replications: the power's standard error is at most 0.008
  std::uint64_t seed = 20261206;
};

// The share of the replications verified at the stop. Throws std::invalid_argument for sd <= 0, a non-finite effect,
// first < 2, cap < first, a level outside (0, 1), reps 0.
double claim_design_power(const DesignPowerInput& in);

}  // namespace dmlbench::experiments
