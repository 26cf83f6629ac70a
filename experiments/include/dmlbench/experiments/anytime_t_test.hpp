// The anytime-valid one-sample t-test: the Bayes factor of the one-sample t with a normal prior on
// the standardized effect and the right-Haar prior on the spread (Gonen, Johnson, Lu, Westfall 2005, "The Bayesian
// two-sample t test", with a fixed g; Rouder et al. 2009), an e-process in the seeds (Perez-Ortiz, Lardy, de Heide,
// Grunwald 2022, "E-statistics, group invariance and anytime valid testing"; Grunwald, de Heide, Koolen, "Safe
// testing"), and the confidence sequence it inverts to. Seeds may be added one at a time and looked at after each.
//
// Model: per-seed differences d_1..d_n iid N(mu, sigma^2), sigma unknown. A two-arm claim pairs the arms by seed,
// d_k = treatment_k - baseline_k (paired_differences); a claim against a bound takes d_k = value_k - bound.
//
// The e-value of H0: mu = mu0 against mu - mu0 = delta sigma with delta ~ N(0, g), with nu = n - 1 and
// t = (mean - mu0) / (s / sqrt(n)):
//     E_n = (1 + n g)^(-1/2) ((1 + t^2/nu) / (1 + t^2/(nu (1 + n g))))^((nu + 1)/2).
// It depends on the data only through t, a function of the scale-invariant data (d_1/|d_1|, ..., d_n/|d_1|), and under
// H0 it is the likelihood ratio of that invariant, hence a test martingale in its filtration (E_1 = 1: the sign of d_1
// alone is equally likely under both). Ville's inequality: P_H0(E_n >= 1/alpha for some n) <= alpha, whatever rule
// chooses when to add a seed or to stop.
//
// The confidence sequence: CS_n = {mu0 : E_n(mu0) < 1/alpha} = mean -+ c_n s / sqrt(n), where E_n at |t| = c_n is
// 1/alpha (E_n increases in |t|). P(mu outside CS_n for some n) <= alpha, so every decision read from CS_n at any look
// (verified, refuted, not-reproduced) is wrong with probability at most alpha, all of them together. E_n is bounded by
// its limit at |t| -> infinity, (1 + n g)^((n - 1)/2): below 1/alpha no data can decide, c_n is +infinity and the
// interval the whole line (with g = 7.33 the first n that can decide is 3 at alpha = 0.05, 4 at 0.03, 5 at 0.005).
//
// c_n has a closed form: with k = 1 + n g and R = (sqrt(k) / alpha)^(2 / n), E_n = 1/alpha at t^2 / nu = a =
// (R - 1) / (1 - R / k), finite exactly when R < k. It is computed in logs (expm1), so no root finder is needed; the
// tests check it against SciPy's brentq on the same equation and against E_n evaluated by quadrature at c_n.
#pragma once

#include "dmlbench/experiments/training_outcome.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The default prior variance g of the standardized effect delta = (mu - mu0) / sigma where no design of looks gives
// one: 7.33, the minimax g (anytime_prior_variance.hpp) of a first look at 4 seeds, a cap of 10 and looks at
// alpha x 0.6 = 0.03. Its radius is within 5% of the narrowest any g gives at every look from 4 to 10 seeds (c_4 =
// 8.25, c_5 = 6.17, c_10 = 4.44). The report's looks take the g of their design file (report_design.hpp), the minimax
// g of its looks, recorded in each claim read at its stop ("g"). The unit-information prior g = 1 (Kass and
// Wasserman 1995), made for one claim at alpha 0.05, would not do at 0.03: its c_4 is infinite and c_5 = 25.2.
inline constexpr double default_anytime_g = 7.33;

// log E_n and E_n for the t statistic of n values against mu0 (t may be +-infinity: E_n is then its bound). E_n can
// overflow to +infinity for a large t and many seeds (its bound is (1 + n g)^((n - 1)/2)); log E_n does not. Throws
// std::invalid_argument for n < 2, g <= 0 or non-finite, a NaN t.
double anytime_t_log_e_value(double t, std::size_t n, double g = default_anytime_g);
double anytime_t_e_value(double t, std::size_t n, double g = default_anytime_g);
// The same from the values' summary against mu0. The zero-spread rule (welch_comparison.hpp): sd = 0 admits no test,
// NaN. Throws for fewer than 2 values, a negative or non-finite sd, a non-finite mean or mu0, a bad g.
double anytime_t_log_e_value(const SampleSummary& d, double mu0, double g = default_anytime_g);
double anytime_t_e_value(const SampleSummary& d, double mu0, double g = default_anytime_g);

// c_n: the |t| at which E_n reaches 1/alpha; +infinity when no |t| does (too few seeds for this alpha and g). Throws
// for n < 2, alpha outside (0, 1), a bad g.
double anytime_radius_multiplier(std::size_t n, double alpha = 0.05, double g = default_anytime_g);

// The confidence sequence's interval at the current look: mean -+ c_n sd / sqrt(n). Low and high are -+infinity while
// c_n is infinite; NaN under the zero-spread rule (testable() false).
struct AnytimeInterval {
  double mean = 0, se = 0;  // se = sd / sqrt(n)
  std::size_t n = 0;
  double multiplier = 0;    // c_n
  double low = 0, high = 0;
  double alpha = 0.05, g = default_anytime_g;
  bool testable() const { return se > 0; }
};
// Same errors as anytime_t_log_e_value and anytime_radius_multiplier; the vector form also for a non-finite value.
AnytimeInterval anytime_interval(const SampleSummary& d, double alpha = 0.05, double g = default_anytime_g);
AnytimeInterval anytime_interval(const std::vector<double>& d, double alpha = 0.05, double g = default_anytime_g);

// d_k = treatment_k - baseline_k, the arms paired by seed (the same seed index on both). Throws std::invalid_argument
// for arms of different sizes or a non-finite value.
std::vector<double> paired_differences(const std::vector<double>& treatment, const std::vector<double>& baseline);

// One claim decided at any look. Its level is alpha / family_size: Bonferroni over the claim's family, valid for
// e-values whatever their dependence, and for any number of looks at each claim.
struct AnytimeClaimInput {
  SampleSummary differences;  // of the per-seed differences (summarize), or of value_k - bound
  int paper_sign = +1;        // the paper's direction: +1 treatment above (the differences positive), -1 below
  double delta = 0;           // the smallest effect of interest, >= 0, in the differences' units
  double alpha = 0.05;
  std::size_t family_size = 1;
  double g = default_anytime_g;
};
// The five outcomes (training_outcome.hpp's interval_outcome), all read from the one interval at level alpha /
// family_size, so the interval printed is the one that decides; inconclusive also for zero spread (reason "no
// spread") and for c_n infinite (too few seeds to decide).
// Unlike training_outcome, not-reproduced needs the (1 - alpha) interval inside (-delta, delta), not the (1 - 2 alpha)
// one of TOST: the confidence sequence controls every decision's error at alpha at once.
struct AnytimeDecision {
  TrainingOutcome outcome = TrainingOutcome::inconclusive;
  std::string reason;        // one line: why this outcome
  AnytimeInterval interval;  // at level alpha / family_size
  double t = 0;              // of the differences against 0 (NaN without spread)
  double log_e_value = 0, e_value = 0;  // E_n against mu = 0: >= 1 / level when the interval excludes 0 (up to
                                        // rounding at the boundary)
  double level = 0.05;       // alpha / family_size
};
// Throws std::invalid_argument for fewer than 2 seeds, alpha outside (0, 1), family_size 0, g <= 0, delta < 0 or
// non-finite, paper_sign other than +-1, a non-finite mean or sd, a negative sd.
AnytimeDecision anytime_claim_outcome(const AnytimeClaimInput& in);

}  // namespace dmlbench::experiments
