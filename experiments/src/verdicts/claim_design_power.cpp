// The power of a mean claim in the report's design of looks, by simulating the design (claim_design_power.hpp).
#include "dmlbench/experiments/claim_design_power.hpp"

#include "dmlbench/experiments/claim_test.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace dmlbench::experiments {

double claim_design_power(const DesignPowerInput& in) {
  if (!(in.sd > 0) || !std::isfinite(in.sd) || !std::isfinite(in.effect))
    throw std::invalid_argument("design power needs a finite effect and a positive sd");
  if (in.first < 2 || in.cap < in.first) throw std::invalid_argument("design power needs 2 <= first <= cap");
  if (!(in.look_level > 0 && in.look_level < 1 && in.level > 0 && in.level < 1))
    throw std::invalid_argument("design power needs levels in (0, 1)");
  if (in.reps == 0) throw std::invalid_argument("design power needs at least 1 replication");
  std::mt19937_64 rng(in.seed);
  std::normal_distribution<double> noise(in.effect, in.sd);
  ClaimTestInput claim;
  claim.level = in.look_level;
  claim.g = in.g;
  std::size_t verified = 0;
  for (std::size_t r = 0; r < in.reps; ++r) {
    claim.differences.resize(in.cap);
    for (double& x : claim.differences) x = noise(rng);
    const std::size_t stop = claim_stop(claim, in.first, in.cap);
    ClaimTestInput read = claim;
    read.differences.resize(stop);
    read.level = in.level;
    verified += decide_claim(read).outcome == TrainingOutcome::verified;
  }
  return double(verified) / double(in.reps);
}

}  // namespace dmlbench::experiments
