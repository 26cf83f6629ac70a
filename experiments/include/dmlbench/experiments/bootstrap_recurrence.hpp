// How often a decided training claim recurs when its seeds are resampled: the seeds drawn with
// replacement (the bootstrap over the unit of the test, Efron 1979), each resample decided by the same anytime
// interval at the same level (anytime_t_test.hpp), and the shares of resamples that give the same outcome, no
// decision, or the opposite direction (verified <-> refuted) counted. A crude measure at 5-10 seeds (a resample
// holds few distinct seeds), stated as such: it asks whether the verdict rests on one or two seeds.
#pragma once

#include "dmlbench/experiments/anytime_t_test.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct Recurrence {
  std::size_t resamples = 0;
  std::uint64_t seed = 0;
  double same = 0, undecided = 0, flipped = 0;  // shares of the resamples; they sum to 1 (other outcomes: undecided)
};

// `claim` gives the level, direction and delta (its differences are replaced by each resample's); `outcome` is the
// claim's own. Deterministic for a given seed. Throws std::invalid_argument for fewer than 2 differences, a
// non-finite one, resamples 0, and anytime_claim_outcome's errors.
Recurrence bootstrap_recurrence(const std::vector<double>& differences, AnytimeClaimInput claim,
                                TrainingOutcome outcome, std::size_t resamples = 2000, std::uint64_t seed = 49);

}  // namespace dmlbench::experiments
