// The anytime-valid one-sample t-test (experiments/src/verdicts/anytime_t_test.cpp): its e-value
// against the non-central t mixture integrated by SciPy, its radius against SciPy's brentq, its decisions, its errors,
// and by simulation its validity under optional stopping (with the fixed-n t-test as the negative control) and the
// seeds it spends at the papers' effect sizes. The references are computed at test time by
// tests/reference/anytime_t_test_reference.py (a ctest fixture) into the JSON file named by the environment variable
// DMLBENCH_ANYTIME_REFERENCE.
//
// Tolerances: the reference's e-value is a quadrature (scipy.integrate.quad at epsrel 1e-13, its error estimates at
// most ~1e-13 relative) of SciPy's nct.pdf (a hyp1f1 series, ~1e-14 relative where finite), ours a closed form of a
// few log1p: 1e-11 (absolute on log E, relative on E) leaves two orders over the quadrature's estimate (the observed
// worst is ~1.5e-14) and fails on any wrong formula (the negative controls move log E by more than 1e-3). The radius:
// ours closed form, the reference's brentq to xtol 1e-15 and rtol 4 eps on the same equation, each a few eps in c
// times the equation's condition (d log c / d log E <= 2 at the cases): 1e-12 relative. E_n at our c_n against
// 1/alpha: the round trip through expm1 / log1p loses a few eps per term of a sum of n/2 such terms: 1e-12 absolute on
// log E. Interval bounds: c_n to 1e-12 relative and the mean and sd of the same doubles: 1e-11 of the half-width.
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/t_test_power.hpp"
#include "dmlbench/experiments/training_outcome.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include <boost/math/distributions/students_t.hpp>
#include "reference_json.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using json = nlohmann::json;

namespace {

constexpr double quadrature_tol = 1e-11;  // our closed form against SciPy's nct mixture by quad
constexpr double root_tol = 1e-12;        // our closed-form c_n against brentq's root; E_n(c_n) against 1/alpha
constexpr double arithmetic_tol = 1e-12;  // same formula, same inputs (mean, sd)

const json& reference() {
  static const json ref = read_reference_json("DMLBENCH_ANYTIME_REFERENCE");
  return ref;
}

bool excludes_zero(const AnytimeInterval& i) { return i.low > 0 || i.high < 0; }

// The running mean and sum of squares of one simulated claim's seeds (Welford), as the summary the test reads.
struct Running {
  double mean = 0, m2 = 0;
  std::size_t n = 0;
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / double(n);
    m2 += d * (x - mean);
  }
  SampleSummary summary() const { return {mean, std::sqrt(m2 / double(n - 1)), n}; }
};

// The simulation: claims whose per-seed differences are N(effect, sigma^2) (effect in sd units), a look after every
// seed from n = 2 to the cap. The sequential rule stops at the first look whose anytime interval (level alpha,
// default g) excludes 0; the negative control stops at the first look where Student's fixed-n t-test at alpha is
// significant (|t| > t_{1 - alpha/2, n - 1}, scipy's ttest_1samp p < alpha), as if each look were the only one.
struct SimulationResult {
  std::size_t claims = 0;
  double anytime_decided = 0;      // share of claims decided (0 excluded) at some look up to the cap
  double anytime_wrong_side = 0;   // share decided on the side opposite to the effect (effect > 0), or at all (0)
  double anytime_seeds = 0;        // mean seeds spent: the look that decided, else the cap
  double anytime_missed_mean = 0;  // share whose interval excluded the true mean at some look
  double fixed_decided = 0;        // the fixed-n t-test at every look: share significant at some look
  double fixed5_decided = 0;       // the fixed-n t-test at 5 seeds only: its power
};

SimulationResult simulate(double effect, double sigma, std::size_t claims, std::size_t cap, double alpha,
                          std::uint64_t seed) {
  std::vector<double> critical(cap + 1, 0);
  for (std::size_t n = 2; n <= cap; ++n)
    critical[n] = boost::math::quantile(boost::math::complement(boost::math::students_t(double(n - 1)), alpha / 2));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> seed_value(effect * sigma, sigma);
  SimulationResult r;
  r.claims = claims;
  std::size_t decided = 0, wrong = 0, seeds = 0, missed = 0, fixed = 0, fixed5 = 0;
  for (std::size_t c = 0; c < claims; ++c) {
    Running run;
    run.add(seed_value(rng));
    std::size_t stop = 0;
    bool fixed_hit = false, miss = false;
    for (std::size_t n = 2; n <= cap; ++n) {
      run.add(seed_value(rng));
      const SampleSummary s = run.summary();
      const AnytimeInterval i = anytime_interval(s, alpha);
      if (stop == 0 && excludes_zero(i)) {
        stop = n;
        if (effect == 0 || (effect > 0 && i.high < 0)) ++wrong;
      }
      if (i.low > effect * sigma || i.high < effect * sigma) miss = true;
      const bool significant = std::abs(s.mean / (s.sd / std::sqrt(double(n)))) > critical[n];
      fixed_hit = fixed_hit || significant;
      if (n == 5 && significant) ++fixed5;
    }
    decided += stop != 0;
    seeds += stop != 0 ? stop : cap;
    missed += miss;
    fixed += fixed_hit;
  }
  const double total = double(claims);
  r.anytime_decided = double(decided) / total;
  r.anytime_wrong_side = double(wrong) / total;
  r.anytime_seeds = double(seeds) / total;
  r.anytime_missed_mean = double(missed) / total;
  r.fixed_decided = double(fixed) / total;
  r.fixed5_decided = double(fixed5) / total;
  return r;
}

double binomial_se(double p, std::size_t n) { return std::sqrt(p * (1 - p) / double(n)); }

AnytimeClaimInput claim(const std::vector<double>& d, int paper_sign = +1, double delta = 0, double alpha = 0.05,
                        std::size_t family_size = 1) {
  AnytimeClaimInput in;
  in.differences = summarize(d);
  in.paper_sign = paper_sign;
  in.delta = delta;
  in.alpha = alpha;
  in.family_size = family_size;
  return in;
}

}  // namespace

TEST_CASE("the anytime t-test's e-value, in closed form, matches the non-central t mixture integrated by SciPy",
          "[anytime]") {
  const auto& cases = reference()["e_values"];
  REQUIRE(cases.size() == 65);
  double worst = 0;
  for (const auto& e : cases) {
    const double t = e["t"].get<double>(), g = e["g"].get<double>(), log_e = e["log_e"].get<double>();
    const auto n = e["n"].get<std::size_t>();
    INFO("n " << n << ", t " << t << ", g " << g);
    const double ours = anytime_t_log_e_value(t, n, g);
    CHECK_THAT(ours, WithinAbs(log_e, quadrature_tol));
    CHECK_THAT(anytime_t_e_value(t, n, g), WithinRel(std::exp(log_e), quadrature_tol));
    CHECK(anytime_t_log_e_value(-t, n, g) == ours);  // E depends on t^2 only
    worst = std::max(worst, std::abs(std::expm1(ours - log_e)));
    // negative controls: one seed more, or the prior's variance per seed (1 + g) in place of per n seeds (1 + n g)
    CHECK_THAT(anytime_t_log_e_value(t, n + 1, g), !WithinAbs(log_e, 1e-3));
    CHECK_THAT(anytime_t_log_e_value(t, n, g / double(n)), !WithinAbs(log_e, 1e-3));
  }
  std::cout << "anytime e-value against SciPy's nct mixture: worst relative difference " << worst << " over "
            << cases.size() << " cases\n";
  // the summary form: t of (mean - mu0) / (sd / sqrt(n))
  const SampleSummary s{1.3, 0.8, 6};
  CHECK_THAT(anytime_t_log_e_value(s, 0.5, 2.0),
             WithinRel(anytime_t_log_e_value((1.3 - 0.5) / (0.8 / std::sqrt(6.0)), 6, 2.0), arithmetic_tol));
  // at t = 0 the data favour H0: E_n = (1 + n g)^(-1/2), and E_n grows to its bound (1 + n g)^((n - 1)/2) as |t| grows
  CHECK_THAT(anytime_t_e_value(0.0, 4, 1.0), WithinRel(1 / std::sqrt(5.0), arithmetic_tol));
  CHECK_THAT(anytime_t_e_value(std::numeric_limits<double>::infinity(), 4, 1.0),
             WithinRel(std::pow(5.0, 1.5), arithmetic_tol));
  CHECK_THAT(anytime_t_e_value(1e200, 4, 1.0), WithinRel(std::pow(5.0, 1.5), arithmetic_tol));
  CHECK(anytime_t_e_value(2.0, 4, 1.0) < anytime_t_e_value(3.0, 4, 1.0));
  // log E stays finite where E overflows: 1000 seeds, t = 1e6 (bound 1001^499.5, ~10^1498)
  CHECK_THAT(anytime_t_log_e_value(1e300, 1000, 1.0), WithinRel(499.5 * std::log(1001.0), arithmetic_tol));
  CHECK(std::isinf(anytime_t_e_value(1e300, 1000, 1.0)));
  // the zero-spread rule: no test
  CHECK(std::isnan(anytime_t_log_e_value(SampleSummary{2.0, 0.0, 5}, 0.0)));
  CHECK(std::isnan(anytime_t_e_value(SampleSummary{2.0, 0.0, 5}, 0.0)));
}

TEST_CASE("the confidence sequence's radius c_n: E_n(c_n) = 1/alpha, as brentq finds it and the integral confirms",
          "[anytime]") {
  const auto& cases = reference()["radii"];
  REQUIRE(cases.size() == 12);
  int finite = 0, infinite = 0;
  for (const auto& r : cases) {
    const auto n = r["n"].get<std::size_t>();
    const double alpha = r["alpha"].get<double>(), g = r["g"].get<double>();
    INFO("n " << n << ", alpha " << alpha << ", g " << g);
    const double c = anytime_radius_multiplier(n, alpha, g);
    // infinite exactly where E_n's bound (1 + n g)^((n - 1)/2) stays below 1/alpha
    const bool reachable = 0.5 * double(n - 1) * std::log1p(double(n) * g) > std::log(1 / alpha);
    if (r["c"].is_null()) {
      ++infinite;
      CHECK(std::isinf(c));
      CHECK_FALSE(reachable);
      continue;
    }
    ++finite;
    CHECK(reachable);
    CHECK_THAT(c, WithinRel(r["c"].get<double>(), root_tol));
    CHECK_THAT(anytime_t_log_e_value(c, n, g), WithinAbs(std::log(1 / alpha), root_tol));
    // the quadrature's E_n at brentq's root is 1/alpha too: the root is of E_n itself, not only of the closed form
    CHECK_THAT(r["log_e_at_c"].get<double>(), WithinAbs(std::log(1 / alpha), quadrature_tol));
    // negative controls: c_n moved by 1e-6 of itself leaves 1/alpha by far more than the tolerance, and Student's
    // fixed-n critical value (the fixed-n interval's multiplier) is far below c_n: E_n there stays under 1/alpha
    CHECK_THAT(anytime_t_log_e_value(c * (1 + 1e-6), n, g), !WithinAbs(std::log(1 / alpha), 1e-8));
    const double student =
        boost::math::quantile(boost::math::complement(boost::math::students_t(double(n - 1)), alpha / 2));
    CHECK(student < c);
    CHECK(anytime_t_e_value(student, n, g) < 1 / alpha);
  }
  CHECK(finite == 10);
  CHECK(infinite == 2);
  // the first n that can decide (the header's numbers): g = 1: 5 at alpha 0.05, 7 at 0.005; g = 2: 4; g = 10: 3
  const auto first_decidable = [](double alpha, double g) {
    std::size_t n = 2;
    while (std::isinf(anytime_radius_multiplier(n, alpha, g))) ++n;
    return n;
  };
  CHECK(first_decidable(0.05, 1.0) == 5);
  CHECK(first_decidable(0.005, 1.0) == 7);
  CHECK(first_decidable(0.05, 2.0) == 4);
  CHECK(first_decidable(0.05, 10.0) == 3);
  // c_n falls with the first seeds, then grows like sqrt(log(1 + n g) + 2 log(1/alpha)), the price of looking at every
  // n (Student's multiplier falls to 1.96)
  CHECK(anytime_radius_multiplier(20, 0.05) < anytime_radius_multiplier(10, 0.05));
  CHECK(anytime_radius_multiplier(1000, 0.05) > anytime_radius_multiplier(20, 0.05));
  // (at n = 10^8 the asymptote is exact to O(log(n) / n), ~2e-7 relative: 1e-6)
  const double asymptote = std::sqrt(std::log1p(1e8 * default_anytime_g) + 2 * std::log(20.0));
  CHECK_THAT(anytime_radius_multiplier(100000000, 0.05), WithinRel(asymptote, 1e-6));
}

TEST_CASE("the anytime interval of per-seed values and the e-value against 0 match the reference", "[anytime]") {
  const auto& cases = reference()["intervals"];
  REQUIRE(cases.size() == 8);
  for (const auto& r : cases) {
    const double alpha = r["alpha"].get<double>(), g = r["g"].get<double>();
    INFO("case " << r["name"].get<std::string>() << ", alpha " << alpha << ", g " << g);
    const auto values = r["values"].get<std::vector<double>>();
    const AnytimeInterval i = anytime_interval(values, alpha, g);
    CHECK_THAT(i.mean, WithinRel(r["mean"].get<double>(), arithmetic_tol));
    CHECK_THAT(i.se * std::sqrt(double(i.n)), WithinRel(r["sd"].get<double>(), arithmetic_tol));
    if (r["c"].is_null()) {
      CHECK(std::isinf(i.multiplier));
      CHECK(i.low == -std::numeric_limits<double>::infinity());
      CHECK(i.high == std::numeric_limits<double>::infinity());
    } else {
      const double low = r["low"].get<double>(), high = r["high"].get<double>(), half = (high - low) / 2;
      CHECK_THAT(i.low, WithinAbs(low, 1e-11 * half));
      CHECK_THAT(i.high, WithinAbs(high, 1e-11 * half));
      // negative control: Student's fixed-n interval (one_sample_difference) is narrower by far more than that
      const TComparison student = one_sample_difference(summarize(values), 0.0, alpha);
      CHECK_THAT(student.ci_low, !WithinAbs(low, 1e-3 * half));
      CHECK(student.ci_high - student.ci_low < high - low);
    }
    // the decision's e-value against 0 is the reference's, and the interval excludes 0 exactly when it reaches 1/alpha
    AnytimeClaimInput in = claim(values, +1, 0.0, alpha);
    in.g = g;
    const AnytimeDecision d = anytime_claim_outcome(in);
    CHECK_THAT(d.log_e_value, WithinAbs(r["log_e_against_0"].get<double>(), quadrature_tol));
    CHECK(excludes_zero(d.interval) == (d.log_e_value >= std::log(1 / alpha)));
  }
  // the vector and the summary forms agree; the zero-spread rule gives NaN bounds
  const std::vector<double> v{0.4, 0.9, 0.2, 0.7, 0.6, 0.8};
  CHECK(anytime_interval(v).low == anytime_interval(summarize(v)).low);
  const AnytimeInterval flat = anytime_interval(std::vector<double>{0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
  CHECK_FALSE(flat.testable());
  CHECK(std::isnan(flat.low));
  CHECK(std::isnan(flat.high));
}

TEST_CASE("the interval excludes 0 exactly when the e-value reaches 1/level, on random claims", "[anytime]") {
  // 5000 claims of 2 to 30 seeds, effects 0 to 3 sd, levels 0.05 and 0.005, g 0.5 to 4: the outcome read from the
  // interval and the e-value read against 1/level agree, except within 1e-9 of the boundary (rounding of two routes)
  std::mt19937_64 rng(49);
  std::uniform_int_distribution<std::size_t> seeds(2, 30);
  std::uniform_real_distribution<double> effect(0.0, 3.0), log_g(std::log(0.5), std::log(4.0));
  std::normal_distribution<double> z;
  int decided = 0, undecided = 0;
  for (int c = 0; c < 5000; ++c) {
    const std::size_t n = seeds(rng);
    const double mu = effect(rng);
    std::vector<double> d(n);
    for (auto& x : d) x = mu + z(rng);
    AnytimeClaimInput in = claim(d, +1, 0.0, 0.05, c % 2 == 0 ? 1 : 10);
    in.g = std::exp(log_g(rng));
    const AnytimeDecision r = anytime_claim_outcome(in);
    const double margin = r.log_e_value - std::log(1 / r.level);
    if (std::abs(margin) < 1e-9) continue;
    CHECK(excludes_zero(r.interval) == (margin > 0));
    CHECK((r.outcome == TrainingOutcome::verified || r.outcome == TrainingOutcome::refuted) == (margin > 0));
    (margin > 0 ? decided : undecided)++;
  }
  // negative control of the check: both sides of the boundary occur often
  CHECK(decided > 500);
  CHECK(undecided > 500);
}

TEST_CASE("one claim's outcome, read from the anytime interval", "[anytime]") {
  const std::vector<double> apart{2.1, 3.4, 1.8, 2.9, 2.5, 2.2, 3.0, 2.6};
  const AnytimeDecision v = anytime_claim_outcome(claim(apart, +1));
  CHECK(v.outcome == TrainingOutcome::verified);
  CHECK(v.interval.low > 0);
  CHECK(v.e_value >= 20);
  CHECK(v.reason.find("lies above 0, the paper's side") != std::string::npos);
  const AnytimeDecision against = anytime_claim_outcome(claim(apart, -1));
  CHECK(against.outcome == TrainingOutcome::refuted);
  CHECK(against.reason.find("against the paper's side") != std::string::npos);
  std::vector<double> below = apart;
  for (auto& x : below) x = -x;
  CHECK(anytime_claim_outcome(claim(below, -1)).outcome == TrainingOutcome::verified);
  CHECK(anytime_claim_outcome(claim(below, +1)).outcome == TrainingOutcome::refuted);

  // not-reproduced: the interval inside (-delta, delta); with delta too small, inconclusive
  const std::vector<double> near_zero{0.12, -0.31, 0.05, 0.22, -0.18, 0.09, -0.02, 0.14};
  const AnytimeDecision nr = anytime_claim_outcome(claim(near_zero, +1, 0.5));
  CHECK(nr.outcome == TrainingOutcome::not_reproduced);
  CHECK(nr.interval.low > -0.5);
  CHECK(nr.interval.high < 0.5);
  const AnytimeDecision wide = anytime_claim_outcome(claim(near_zero, +1, 0.2));
  CHECK(wide.outcome == TrainingOutcome::inconclusive);
  CHECK(wide.reason.find("holds 0 and reaches beyond (-0.2, 0.2)") != std::string::npos);
  CHECK(anytime_claim_outcome(claim(near_zero, +1, 0.0)).outcome == TrainingOutcome::inconclusive);

  // Bonferroni over the family: at level 0.05 / 10 the same eight seeds no longer decide
  const std::vector<double> moderate{0.9, 2.1, 0.4, 1.6, 1.2, 0.3, 1.9, 1.1};
  const AnytimeDecision one = anytime_claim_outcome(claim(moderate, +1, 0.0, 0.05, 1));
  const AnytimeDecision ten = anytime_claim_outcome(claim(moderate, +1, 0.0, 0.05, 10));
  CHECK(one.outcome == TrainingOutcome::verified);
  CHECK(ten.outcome == TrainingOutcome::inconclusive);
  CHECK_THAT(ten.level, WithinRel(0.005, arithmetic_tol));
  CHECK(ten.e_value == one.e_value);  // the evidence is the same; the bar is higher
  CHECK(ten.interval.low < one.interval.low);

  // too few seeds: with 2 seeds at 0.05 and the default g nothing can decide, however far from 0 (E_2 <= (1 + 2 g)^0.5)
  const AnytimeDecision few = anytime_claim_outcome(claim({10.0, 10.1}, +1, 1.0));
  CHECK(few.outcome == TrainingOutcome::inconclusive);
  CHECK(few.reason.rfind("too few seeds", 0) == 0);
  CHECK(few.e_value < 20);
  // the zero-spread rule
  const AnytimeDecision flat = anytime_claim_outcome(claim({0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, +1, 1.0));
  CHECK(flat.outcome == TrainingOutcome::inconclusive);
  CHECK(flat.reason.rfind("no spread", 0) == 0);
  CHECK(std::isnan(flat.e_value));
  CHECK(std::isnan(flat.t));
  // every reason is one line
  for (const auto* d : {&v, &against, &nr, &wide, &one, &ten, &few, &flat})
    CHECK(d->reason.find('\n') == std::string::npos);

  // paired differences, by seed
  CHECK(paired_differences({1.0, 2.5, 3.0}, {0.5, 2.0, 3.5}) == std::vector<double>{0.5, 0.5, -0.5});
}

TEST_CASE("looking after every seed: the anytime interval keeps the false decisions below alpha, the fixed-n t-test "
          "does not",
          "[anytime]") {
  // 10^5 claims under a true null (mu = 0, sigma 2.5; the test is scale-invariant), a look after every seed from 2 to
  // 20. Ville's inequality bounds the chance that the anytime interval ever excludes 0 by alpha; the check is the
  // plain share <= alpha, no margin: its binomial SE at alpha is sqrt(0.05 0.95 / 10^5) = 0.0007, and the share (with
  // the pinned seed, deterministic) lies ~45 SEs below alpha, since with the cap at 20 seeds the bound is far from
  // tight. The negative control: Student's t-test at alpha, stopped at its first significant look, must exceed alpha
  // by more than 3 SEs (it is ~0.2 with 19 looks). The same for the true mean at effect 1: the interval misses it at
  // some look in at most alpha of the claims.
  constexpr double alpha = 0.05;
  constexpr std::size_t claims = 100000, cap = 20;
  const SimulationResult null = simulate(0.0, 2.5, claims, cap, alpha, 20260049);
  const double se = binomial_se(alpha, claims);
  std::cout << "null, " << claims << " claims, looks at 2.." << cap << " seeds: anytime false decisions "
            << null.anytime_decided << " (" << (alpha - null.anytime_decided) / se
            << " SEs below alpha), fixed-n t-test at every look " << null.fixed_decided << ", at 5 seeds only "
            << null.fixed5_decided << "\n";
  CHECK(null.anytime_decided <= alpha);
  CHECK(null.anytime_missed_mean == null.anytime_decided);  // at mu = 0 missing the mean is deciding
  CHECK(null.fixed_decided > alpha + 3 * se);
  // the fixed-n test at a single look is valid: its share at 5 seeds is alpha within 3 SEs (the simulation is sound)
  CHECK_THAT(null.fixed5_decided, WithinAbs(alpha, 3 * se));

  const SimulationResult shifted = simulate(1.0, 0.7, claims, cap, alpha, 20260050);
  std::cout << "effect 1: the anytime interval missed the true mean at some look in " << shifted.anytime_missed_mean
            << " of the claims\n";
  CHECK(shifted.anytime_missed_mean <= alpha);
}

TEST_CASE("at the papers' effect sizes: seeds the anytime test spends up to a 20-seed cap against the 5-seed t-test",
          "[anytime]") {
  // 2 x 10^4 claims per standardized effect (0.5, 1, 2, 3 sd), the sequential rule of the validity case. Printed: the
  // share decided within the cap, the mean seeds spent, and the fixed 5-seed t-test's power (Boost's non-central t,
  // t_test_power.hpp, and its share in the same simulation). Checked: at effect 3 the anytime test decides over 90%
  // of claims within the cap and spends fewer seeds on average than the cap; at effects 1 to 3 it decides at least as
  // often as the fixed 5-seed test is powered; it never decides on the wrong side more than alpha; the seeds spent fall
  // as the effect grows. The simulated 5-seed share matches the exact power within 4 SEs (the simulation is sound).
  constexpr double alpha = 0.05;
  constexpr std::size_t claims = 20000, cap = 20;
  double previous_seeds = double(cap) + 1;
  std::uint64_t seed = 49000;
  for (const double effect : {0.5, 1.0, 2.0, 3.0}) {
    const SimulationResult r = simulate(effect, 1.3, claims, cap, alpha, ++seed);
    const double power5 = t_test_power(effect, one_sample_design(1.0, 5), alpha);
    std::cout << "effect " << effect << " sd: anytime decided within " << cap << " seeds " << r.anytime_decided
              << ", mean seeds spent " << r.anytime_seeds << ", wrong side " << r.anytime_wrong_side
              << "; fixed 5-seed t-test power " << power5 << " (simulated " << r.fixed5_decided << ")\n";
    INFO("effect " << effect);
    CHECK_THAT(r.fixed5_decided, WithinAbs(power5, 4 * binomial_se(power5, claims)));
    CHECK(r.anytime_wrong_side <= alpha);
    CHECK(r.anytime_seeds < previous_seeds);
    previous_seeds = r.anytime_seeds;
    if (effect >= 1) CHECK(r.anytime_decided >= power5);
    if (effect == 3) {
      CHECK(r.anytime_decided > 0.9);
      CHECK(r.anytime_seeds < double(cap));
    }
  }
  // negative control of the effect-3 check: under no effect the anytime test decides in far fewer than 90% of claims
  CHECK(simulate(0.0, 1.3, claims, cap, alpha, 49999).anytime_decided < 0.9);
}

TEST_CASE("the anytime t-test's bad inputs throw one-line messages", "[anytime]") {
  const SampleSummary five{1.0, 0.5, 5};
  CHECK_THROWS_WITH(anytime_t_log_e_value(1.0, 1, 1.0),
                    "the anytime t-test needs at least 2 values (seeds) for a t-test, got 1");
  CHECK_THROWS_WITH(anytime_t_log_e_value(1.0, 5, 0.0),
                    "the prior variance g of the standardized effect must be a finite number > 0, got 0");
  CHECK_THROWS_WITH(anytime_t_log_e_value(1.0, 5, -1.0),
                    "the prior variance g of the standardized effect must be a finite number > 0, got -1");
  CHECK_THROWS_WITH(anytime_t_log_e_value(1.0, 5, std::numeric_limits<double>::infinity()),
                    "the prior variance g of the standardized effect must be a finite number > 0, got inf");
  CHECK_THROWS_WITH(anytime_t_log_e_value(NAN, 5, 1.0), "the anytime t-test's t statistic must not be NaN");
  CHECK_THROWS_WITH(anytime_t_log_e_value(five, NAN), "the anytime t-test's mu0 must be finite, got nan");
  CHECK_THROWS_WITH(anytime_t_log_e_value(SampleSummary{NAN, 0.5, 5}, 0.0),
                    "the anytime t-test's mean must be finite, got nan");
  CHECK_THROWS_WITH(anytime_t_log_e_value(SampleSummary{1.0, -0.5, 5}, 0.0),
                    "the anytime t-test's sd must be a finite standard deviation >= 0, got -0.5");
  CHECK_THROWS_WITH(anytime_radius_multiplier(5, 1.0), "alpha must lie in (0, 1), got 1");
  CHECK_THROWS_WITH(anytime_radius_multiplier(5, 0.0), "alpha must lie in (0, 1), got 0");
  CHECK_THROWS_WITH(anytime_interval(std::vector<double>{1.0}),
                    "the anytime t-test needs at least 2 values (seeds) for a t-test, got 1");
  CHECK_THROWS_WITH(anytime_interval(std::vector<double>{1.0, INFINITY, 2.0}),
                    "every value of a sample must be finite, got inf");
  CHECK_THROWS_WITH(paired_differences({1.0, 2.0}, {1.0}),
                    "paired differences need one baseline seed per treatment seed, got 2 and 1");
  CHECK_THROWS_WITH(paired_differences({1.0, NAN}, {1.0, 2.0}), "every treatment value must be finite, got nan");

  AnytimeClaimInput in;
  in.differences = five;
  const auto with = [&](auto change) {
    AnytimeClaimInput c = in;
    change(c);
    return c;
  };
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.paper_sign = 0; })),
                    "the paper's direction must be +1 or -1, got 0");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.alpha = 1.5; })), "alpha must lie in (0, 1), got 1.5");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.family_size = 0; })),
                    "a claim's family must hold at least 1 claim, got 0");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.delta = -0.1; })),
                    "the smallest effect of interest delta must be a finite number >= 0, got -0.1");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.g = 0; })),
                    "the prior variance g of the standardized effect must be a finite number > 0, got 0");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.differences.n = 1; })),
                    "the anytime t-test needs at least 2 values (seeds) for a t-test, got 1");
  CHECK_THROWS_WITH(anytime_claim_outcome(with([](auto& c) { c.differences.sd = INFINITY; })),
                    "the anytime t-test's sd must be a finite standard deviation >= 0, got inf");
  // negative control: the same inputs, valid, do not throw
  CHECK_NOTHROW(anytime_claim_outcome(in));
  CHECK_NOTHROW(anytime_t_log_e_value(1.0, 2, 1e-9));
  CHECK_NOTHROW(anytime_radius_multiplier(2, 1e-9));
  CHECK_NOTHROW(paired_differences({}, {}));
}
