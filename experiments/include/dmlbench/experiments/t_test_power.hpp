// The power of a two-sided t-test from the non-central t (Boost.Math non_central_t): Welch's test for
// given spreads and seeds per arm, or one sample against a bound; the minimum detectable effect at a power, and the
// seeds per arm needed to detect an effect. Spreads are taken as the true ones (the observed sd of the seeds).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace dmlbench::experiments {

// The test's standard error and df as power sees them: Welch: se = sqrt(sd_a^2/n_a + sd_b^2/n_b) with
// Satterthwaite's df (2n - 2 for equal spreads and n, statsmodels TTestIndPower's df); one sample: sd / sqrt(n), n - 1.
struct TDesign {
  double se = 0, df = 0;
};
// Throw std::invalid_argument for n < 2, a negative or non-finite sd.
TDesign welch_design(double sd_a, double sd_b, std::size_t n_a, std::size_t n_b);
TDesign one_sample_design(double sd, std::size_t n);

// P(|T| > t_{1 - alpha/2, df}) with T ~ non-central t(df, effect / se): the chance that the test at level alpha is
// significant (either side) when the true difference is `effect`. NaN where se = 0 (the zero-spread rule,
// welch_comparison.hpp). Throws for alpha outside (0, 1) or a non-finite effect.
double t_test_power(double effect, const TDesign& d, double alpha = 0.05);
double welch_power(double effect, double sd_a, double sd_b, std::size_t n_a, std::size_t n_b, double alpha = 0.05);

// The smallest |effect| whose power is `power` (0 when power <= alpha); NaN where se = 0. Throws for power outside
// (0, 1).
double minimum_detectable_effect(const TDesign& d, double alpha = 0.05, double power = 0.8);

// The smallest number of seeds per arm (equal arms; or of the one sample) in [2, cap] whose power for `effect` reaches
// `power`.
struct SeedsNeeded {
  enum Status { found, beyond_cap, no_spread, no_effect } status = found;
  std::size_t n = 0;      // found: the seeds; beyond_cap: the cap (not enough); otherwise 0
  double power_at_n = 0;  // the power at n (found, beyond_cap)
};
// The effect e >= 0 where shortfall(e) (a test's power at e minus the power wanted, increasing in e) crosses 0:
// bracketed from `start` by doubling (std::runtime_error(none_message) after 64 doublings), then TOMS 748 to 45 bits;
// shortfall_at_zero is its value at 0 (the minimum detectable effects below and in anytime_power.hpp).
double effect_reaching(const std::function<double(double)>& shortfall, double shortfall_at_zero, double start,
                       const std::string& none_message);

// The fewest seeds n in [2, cap] whose power_at(n) reaches `power` (any test's power by seeds: the fixed-n t-tests
// below, the anytime rule's in anytime_power.hpp). No spread: no_spread; effect 0: no_effect; none up to the cap:
// beyond_cap. Throws for cap < 2, power outside (0, 1), a non-finite effect.
SeedsNeeded seeds_reaching(double effect, bool spread, const std::function<double(std::size_t)>& power_at,
                           double power, std::size_t cap);

// Throws for cap < 2, alpha or power outside (0, 1), a negative or non-finite sd, a non-finite effect. Zero spread on
// every side: no_spread; effect 0: no_effect.
SeedsNeeded welch_seeds_needed(double effect, double sd_a, double sd_b, double alpha = 0.05, double power = 0.8,
                               std::size_t cap = 100);
SeedsNeeded one_sample_seeds_needed(double effect, double sd, double alpha = 0.05, double power = 0.8,
                                    std::size_t cap = 100);

}  // namespace dmlbench::experiments
