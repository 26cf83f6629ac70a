// The report's design constants chosen by simulation on synthetic effects, never on the runs they decide: each
// candidate design (first look, cap, e-BH's planned share, and its minimax g) runs through the report's own
// per-claim code (claim_stop, claim_log_e_value, decide_claim of claim_test.hpp; e-BH of report_training_outcomes.hpp)
// on families of Gaussian per-seed differences whose effects are drawn from a stated synthetic distribution.
//
// The criterion, fixed before any candidate is simulated: among the candidates that find at least `keep` (95%) of the
// true effects the best candidate finds (averaged over the synthetic scenarios), the one that spends the fewest seeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct DesignCandidate {
  int first_look = 4, cap = 10;
  double planned_selected_share = 0.6;
};

// m claims, a share of them null (mean 0), the others with a standardized effect |delta| / sd log-uniform on
// [effect_low, effect_high] and a random sign; each claim its own arm, per-seed values N(delta, 1). A share of the
// claims (typical_share, the report's mix of estimands) is judged as a typical seed (the signs of the same values:
// a seed on the effect's side with probability Phi(|delta|)), the rest as a mean.
struct SyntheticFamily {
  std::size_t claims = 75;
  double null_share = 0.5;
  double effect_low = 0.3, effect_high = 3.0;
  double typical_share = 0;
};

struct DesignPerformance {
  DesignCandidate design;
  double g = 0;                       // the candidate's minimax g (anytime_prior_variance.hpp)
  double found = 0;                   // true discoveries per report: non-null claims decided on their effect's side
  double false_discovery_rate = 0;    // false decisions / max(decisions, 1), averaged over reports
  double seeds = 0;                   // seeds per claim at its own stop, averaged
  int reports = 0;
};

// `reports` simulated reports of `family` under design `d` at `alpha` (the looks at alpha x share, e-BH at the end),
// drawn from `seed`. Throws std::invalid_argument for a bad design, family or reports < 1.
DesignPerformance simulate_design(const DesignCandidate& d, const SyntheticFamily& family, double alpha, int reports,
                                  std::uint64_t seed);

// The performances of one candidate over several scenarios, averaged with equal weights.
DesignPerformance average_performance(const std::vector<DesignPerformance>& scenarios);

// The index of the chosen candidate by the criterion above (found >= keep x the best found, then the fewest seeds;
// equal seeds: the more found; then the earlier candidate). Throws std::invalid_argument for an empty list or keep outside (0, 1].
std::size_t chosen_design(const std::vector<DesignPerformance>& averaged, double keep = 0.95);

}  // namespace dmlbench::experiments
