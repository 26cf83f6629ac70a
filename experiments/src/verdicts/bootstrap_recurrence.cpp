// How often a decided claim recurs when its seeds are resampled with replacement.
#include "dmlbench/experiments/bootstrap_recurrence.hpp"

#include "statistics_checks.hpp"

#include <random>
#include <stdexcept>

namespace dmlbench::experiments {

namespace {

bool opposite(TrainingOutcome a, TrainingOutcome b) {
  return (a == TrainingOutcome::verified && b == TrainingOutcome::refuted) ||
         (a == TrainingOutcome::refuted && b == TrainingOutcome::verified);
}

}  // namespace

Recurrence bootstrap_recurrence(const std::vector<double>& differences, AnytimeClaimInput claim,
                                TrainingOutcome outcome, std::size_t resamples, std::uint64_t seed) {
  statistics_checks::check_seeds(differences.size(), "a bootstrap over seeds");
  for (const double d : differences) statistics_checks::check_finite(d, "every per-seed difference");
  if (resamples == 0) throw std::invalid_argument("a bootstrap needs at least 1 resample, got 0");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, differences.size() - 1);
  std::vector<double> x(differences.size());
  Recurrence r;
  r.resamples = resamples;
  r.seed = seed;
  std::size_t same = 0, flipped = 0;
  for (std::size_t b = 0; b < resamples; ++b) {
    for (auto& v : x) v = differences[pick(rng)];
    claim.differences = summarize(x);
    const TrainingOutcome o = anytime_claim_outcome(claim).outcome;
    same += o == outcome;
    flipped += opposite(o, outcome);
  }
  r.same = double(same) / double(resamples);
  r.flipped = double(flipped) / double(resamples);
  r.undecided = 1 - r.same - r.flipped;
  return r;
}

}  // namespace dmlbench::experiments
