// The statistics of training verdicts (experiments/src/verdicts/) against SciPy and statsmodels: Welch's
// difference with its interval, the one-sample t, TOST, power / MDE / seeds (non-central t), Holm and
// Benjamini-Hochberg, the exact binomial test and Clopper-Pearson. The references are computed at test time by
// tests/reference/verdict_statistics_reference.py (a ctest fixture) into the JSON file named by the environment
// variable DMLBENCH_VERDICT_REFERENCE.
//
// Tolerances: t, df and differences are the same arithmetic on the same doubles (summation order aside): 1e-12
// relative. Every probability and quantile is a distribution function of Boost.Math here and of SciPy's own (Cephes
// for Student's t, Boost for the non-central t and the beta) there, each accurate to ~1e-14 relative: 1e-9 relative
// leaves five orders of margin and still fails on any wrong formula (the negative controls move the results by far
// more). Student's t quantile is the exception: SciPy 1.10's t.ppf (cdflib's stdtrit) is accurate to only ~2e-9
// relative at a non-integer df (2.12595801795 against mpmath's 2.12595802253 at df 4.04, where Boost gives the
// latter), so interval bounds are checked to 1e-7 of the interval's half-width (a bound may lie near 0). The
// reference MDE is statsmodels' power solved by brentq to xtol 1e-14, ours by TOMS 748 to 2^-44: 1e-9 relative.
#include "dmlbench/experiments/binomial_test.hpp"
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "dmlbench/experiments/equivalence_test.hpp"
#include "dmlbench/experiments/multiplicity.hpp"
#include "dmlbench/experiments/t_test_power.hpp"
#include "dmlbench/experiments/training_outcome.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include "reference_json.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using json = nlohmann::json;

namespace {

constexpr double arithmetic_tol = 1e-12;    // same formula, same inputs
constexpr double distribution_tol = 1e-9;   // two implementations of the same distribution function
constexpr double quantile_tol = 1e-7;       // SciPy's Student-t quantile at a non-integer df
constexpr double solver_tol = 1e-9;         // two root finders on the same power function

const json& reference() {
  static const json ref = read_reference_json("DMLBENCH_VERDICT_REFERENCE");
  return ref;
}

std::vector<double> values(const json& j) { return j.get<std::vector<double>>(); }

void check_interval(const TComparison& c, const json& ci) {
  const double half = (ci[1].get<double>() - ci[0].get<double>()) / 2;
  CHECK_THAT(c.ci_low, WithinAbs(ci[0].get<double>(), quantile_tol * half));
  CHECK_THAT(c.ci_high, WithinAbs(ci[1].get<double>(), quantile_tol * half));
}

}  // namespace

TEST_CASE("Welch's difference, t, df, two-sided p and interval match scipy ttest_ind(equal_var=False) and statsmodels",
          "[verdicts][welch]") {
  REQUIRE(reference()["welch"].size() == 4);
  for (const auto& w : reference()["welch"]) {
    INFO("case " << w["name"].get<std::string>());
    const auto a = summarize(values(w["a"])), b = summarize(values(w["b"]));
    for (const auto& [alpha_text, ci] : w["ci"].items()) {
      const double alpha = std::stod(alpha_text);
      INFO("alpha " << alpha);
      const TComparison c = welch_difference(a, b, alpha);
      REQUIRE(c.testable());
      CHECK_THAT(c.difference, WithinRel(w["difference"].get<double>(), arithmetic_tol));
      CHECK_THAT(c.t, WithinRel(w["t"].get<double>(), arithmetic_tol));
      CHECK_THAT(c.df, WithinRel(w["df"].get<double>(), arithmetic_tol));
      CHECK_THAT(c.p, WithinRel(w["p"].get<double>(), distribution_tol));
      check_interval(c, ci);
    }
    // negative control: the first value of a moved by one sd of a changes p far beyond the tolerance
    auto moved = values(w["a"]);
    moved[0] += a.sd > 0 ? a.sd : 0.1;
    const TComparison c2 = welch_difference(summarize(moved), b);
    CHECK_THAT(c2.p, !WithinRel(w["p"].get<double>(), 1e-3));
  }
}

TEST_CASE("the one-sample t against a bound: difference, t, df, p and interval match scipy ttest_1samp",
          "[verdicts][welch]") {
  REQUIRE(reference()["one_sample"].size() == 3);
  for (const auto& o : reference()["one_sample"]) {
    INFO("case " << o["name"].get<std::string>());
    const auto a = summarize(values(o["a"]));
    const double bound = o["bound"].get<double>();
    for (const auto& [alpha_text, ci] : o["ci"].items()) {
      const TComparison c = one_sample_difference(a, bound, std::stod(alpha_text));
      CHECK_THAT(c.difference, WithinRel(o["difference"].get<double>(), arithmetic_tol));
      CHECK_THAT(c.t, WithinRel(o["t"].get<double>(), arithmetic_tol));
      CHECK(c.df == o["df"].get<double>());
      CHECK_THAT(c.p, WithinRel(o["p"].get<double>(), distribution_tol));
      check_interval(c, ci);
    }
    // negative control: the bound moved by one standard error
    CHECK_THAT(one_sample_difference(a, bound + a.sd / std::sqrt(double(a.n))).p,
               !WithinRel(o["p"].get<double>(), 1e-3));
  }
}

TEST_CASE("TOST (two one-sided tests) p-values and decisions match statsmodels ttost_ind (Welch) and ttost_mean",
          "[verdicts][tost]") {
  const auto& cases = reference()["tost"];
  REQUIRE(cases.size() == 24);
  int equivalent = 0, not_equivalent = 0;
  for (const auto& e : cases) {
    const double delta = e["delta"].get<double>(), alpha = e["alpha"].get<double>();
    const bool two = e["kind"] == "two_sample";
    INFO((two ? "two-sample" : "one-sample") << " delta " << delta << " alpha " << alpha);
    const auto a = summarize(values(e["a"]));
    const EquivalenceResult r = two ? tost_welch(a, summarize(values(e["b"])), delta, alpha)
                                    : tost_one_sample(a, e["bound"].get<double>(), delta, alpha);
    CHECK_THAT(r.t_lower, WithinRel(e["t_lower"].get<double>(), arithmetic_tol));
    CHECK_THAT(r.t_upper, WithinRel(e["t_upper"].get<double>(), arithmetic_tol));
    CHECK_THAT(r.df, WithinRel(e["df"].get<double>(), arithmetic_tol));
    CHECK_THAT(r.p_lower, WithinRel(e["p_lower"].get<double>(), distribution_tol));
    CHECK_THAT(r.p_upper, WithinRel(e["p_upper"].get<double>(), distribution_tol));
    CHECK_THAT(r.p_tost, WithinRel(e["p_tost"].get<double>(), distribution_tol));
    CHECK(r.equivalent == e["equivalent"].get<bool>());
    (r.equivalent ? equivalent : not_equivalent) += 1;
  }
  // the fixed inputs exercise both decisions
  CHECK(equivalent >= 5);
  CHECK(not_equivalent >= 5);
  // negative control: delta 0 is never equivalent; a delta below the observed difference is not either
  const auto a = summarize({0.48, 0.53, 0.51});
  CHECK_FALSE(tost_one_sample(a, 0.5, 0.0).equivalent);
  CHECK_FALSE(tost_one_sample(a, 0.5, 0.005).equivalent);
  CHECK(tost_one_sample(a, 0.5, 0.2).equivalent);
}

TEST_CASE("the power of Welch's and the one-sample t-test match statsmodels TTestIndPower / TTestPower and scipy's nct",
          "[verdicts][power]") {
  const auto& p = reference()["power"];
  for (const auto& c : p["welch_equal"]) {
    const double sd = c["sd"].get<double>();
    const auto n = c["n"].get<std::size_t>();
    INFO("effect " << c["effect"] << " sd " << sd << " n " << n);
    CHECK_THAT(welch_power(c["effect"].get<double>(), sd, sd, n, n, c["alpha"].get<double>()),
               WithinRel(c["power"].get<double>(), distribution_tol));
  }
  for (const auto& c : p["one_sample"]) {
    const auto n = c["n"].get<std::size_t>();
    CHECK_THAT(t_test_power(c["effect"].get<double>(), one_sample_design(c["sd"].get<double>(), n),
                            c["alpha"].get<double>()),
               WithinRel(c["power"].get<double>(), distribution_tol));
  }
  for (const auto& c : p["welch_unequal"]) {
    const double ours = welch_power(c["effect"].get<double>(), c["sd_a"].get<double>(), c["sd_b"].get<double>(),
                                    c["n_a"].get<std::size_t>(), c["n_b"].get<std::size_t>(), c["alpha"].get<double>());
    CHECK_THAT(ours, WithinRel(c["power"].get<double>(), distribution_tol));
    // negative control: the spreads swapped between arms of unequal size give another power
    if (c["n_a"] == c["n_b"]) continue;
    const double swapped = welch_power(c["effect"].get<double>(), c["sd_b"].get<double>(), c["sd_a"].get<double>(),
                                       c["n_a"].get<std::size_t>(), c["n_b"].get<std::size_t>(),
                                       c["alpha"].get<double>());
    CHECK_THAT(swapped, !WithinRel(ours, 1e-3));
  }
  // with no effect the test rejects at its level
  CHECK_THAT(welch_power(0.0, 1.0, 2.0, 4, 6, 0.05), WithinRel(0.05, distribution_tol));
}

TEST_CASE("the minimum detectable effect at 80% power matches statsmodels solve_power, and has 80% power",
          "[verdicts][power]") {
  const auto& p = reference()["power"];
  for (const auto& c : p["mde_welch"]) {
    const double sd = c["sd"].get<double>(), alpha = c["alpha"].get<double>();
    const auto n = c["n"].get<std::size_t>();
    INFO("sd " << sd << " n " << n << " alpha " << alpha);
    const double mde = minimum_detectable_effect(welch_design(sd, sd, n, n), alpha, 0.8);
    CHECK_THAT(mde, WithinRel(c["mde"].get<double>(), solver_tol));
    CHECK_THAT(welch_power(mde, sd, sd, n, n, alpha), WithinAbs(0.8, 1e-10));
    // negative control: one seed more detects a smaller effect
    CHECK(minimum_detectable_effect(welch_design(sd, sd, n + 1, n + 1), alpha, 0.8) < mde * 0.99);
  }
  for (const auto& c : p["mde_one_sample"]) {
    const auto n = c["n"].get<std::size_t>();
    CHECK_THAT(minimum_detectable_effect(one_sample_design(c["sd"].get<double>(), n), c["alpha"].get<double>(), 0.8),
               WithinRel(c["mde"].get<double>(), solver_tol));
  }
}

TEST_CASE("the seeds per arm needed at 80% power are statsmodels' solved n rounded up, capped with a clear status",
          "[verdicts][power]") {
  const auto& p = reference()["power"];
  for (const auto& c : p["seeds_welch"]) {
    const double effect = c["effect"].get<double>(), sd = c["sd"].get<double>(), alpha = c["alpha"].get<double>();
    INFO("effect " << effect << " sd " << sd << " alpha " << alpha);
    const auto s = welch_seeds_needed(effect, sd, sd, alpha, 0.8, 200);
    CHECK(s.status == SeedsNeeded::found);
    REQUIRE(s.n > 2);  // the references need more than 2 seeds, so that the cap below can be one less
    CHECK(s.n == c["seeds"].get<std::size_t>());
    CHECK(s.power_at_n >= 0.8);
    CHECK_THAT(welch_power(effect, sd, sd, s.n - 1, s.n - 1, alpha),
                 WithinRel(c["power_below"].get<double>(), distribution_tol));
    // the cap one below the answer: not reachable, and said so
    const auto capped = welch_seeds_needed(effect, sd, sd, alpha, 0.8, s.n - 1);
    CHECK(capped.status == SeedsNeeded::beyond_cap);
    CHECK(capped.n == s.n - 1);
    CHECK(capped.power_at_n < 0.8);
  }
  for (const auto& c : p["seeds_one_sample"]) {
    const auto s = one_sample_seeds_needed(c["effect"].get<double>(), c["sd"].get<double>(), c["alpha"].get<double>());
    CHECK(s.status == SeedsNeeded::found);
    CHECK(s.n == c["seeds"].get<std::size_t>());
  }
  CHECK(welch_seeds_needed(0.0, 1.0, 1.0).status == SeedsNeeded::no_effect);
  CHECK(welch_seeds_needed(1.0, 0.0, 0.0).status == SeedsNeeded::no_spread);
  CHECK(welch_seeds_needed(1.0, 0.0, 0.5).status == SeedsNeeded::found);  // one arm with spread suffices
}

TEST_CASE("Holm and Benjamini-Hochberg adjusted p-values match statsmodels multipletests, NaN entries out of the family",
          "[verdicts][multiplicity]") {
  const auto& cases = reference()["multiplicity"];
  REQUIRE(cases.size() == 4);
  for (const auto& c : cases) {
    std::vector<double> p;
    for (const auto& x : c["p"]) p.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
    const auto holm = holm_adjusted(p), bh = benjamini_hochberg_adjusted(p);
    REQUIRE(holm.size() == p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      INFO("entry " << i << " p " << p[i]);
      if (c["holm"][i].is_null()) {
        CHECK(std::isnan(holm[i]));
        CHECK(std::isnan(bh[i]));
        continue;
      }
      // products and maxima of the same doubles: 1e-12
      CHECK_THAT(holm[i], WithinRel(c["holm"][i].get<double>(), arithmetic_tol));
      CHECK_THAT(bh[i], WithinRel(c["bh"][i].get<double>(), arithmetic_tol));
      CHECK(holm[i] >= p[i]);
      CHECK(bh[i] >= p[i]);
      CHECK(holm[i] <= 1);
      for (std::size_t j = 0; j < p.size(); ++j)  // monotone in the raw p
        if (!std::isnan(p[j]) && p[j] < p[i]) CHECK(holm[j] <= holm[i]);
    }
  }
}

TEST_CASE("Holm and Benjamini-Hochberg on hand-made p lists, checked by hand", "[verdicts][multiplicity]") {
  // m = 4, sorted 0.01 0.02 0.03 0.5 (input order kept): Holm 4*0.01 = 0.04, 3*0.02 = 0.06, 2*0.03 = 0.06, 1*0.5 = 0.5
  const std::vector<double> p = {0.03, 0.5, 0.01, 0.02};
  const auto holm = holm_adjusted(p);
  CHECK_THAT(holm[0], WithinRel(0.06, 1e-15));
  CHECK_THAT(holm[1], WithinRel(0.5, 1e-15));
  CHECK_THAT(holm[2], WithinRel(0.04, 1e-15));
  CHECK_THAT(holm[3], WithinRel(0.06, 1e-15));
  // BH: m/i p_(i) = 0.04, 0.04, 0.04, 0.5, each the minimum over the larger ones
  const auto bh = benjamini_hochberg_adjusted(p);
  CHECK_THAT(bh[0], WithinRel(0.04, 1e-15));
  CHECK_THAT(bh[1], WithinRel(0.5, 1e-15));
  CHECK_THAT(bh[2], WithinRel(0.04, 1e-15));
  CHECK_THAT(bh[3], WithinRel(0.04, 1e-15));
  // Holm's step-down keeps monotone: 0.01 0.04 0.045 (m = 3): 0.03, max(0.08, 0.03) = 0.08, max(0.045, 0.08) = 0.08
  const auto step = holm_adjusted({0.045, 0.01, 0.04});
  CHECK_THAT(step[0], WithinRel(0.08, 1e-15));
  CHECK_THAT(step[1], WithinRel(0.03, 1e-15));
  CHECK_THAT(step[2], WithinRel(0.08, 1e-15));
  // capped at 1: 3 * 0.6 = 1.8 -> 1
  CHECK(holm_adjusted({0.6, 0.7, 0.9})[0] == 1.0);
  // NaN entries: not in the family, so {0.02, NaN} is a family of one and keeps 0.02
  const auto with_nan = holm_adjusted({0.02, std::numeric_limits<double>::quiet_NaN()});
  CHECK(with_nan[0] == 0.02);
  CHECK(std::isnan(with_nan[1]));
  // negative control: the same list without the NaN placeholder but with a second test doubles the first
  CHECK(holm_adjusted({0.02, 0.5})[0] == 0.04);
  CHECK(holm_adjusted({}).empty());
  CHECK(adjusted_p_values(p, p_adjustment_named("bh")) == bh);
  CHECK(adjusted_p_values(p, p_adjustment_named("holm")) == holm);
  CHECK_THROWS_WITH(p_adjustment_named("bonferroni"), "the p-value adjustment must be holm or bh, got 'bonferroni'");
  CHECK_THROWS_WITH(holm_adjusted({0.2, 1.5}), "p-value 1 must lie in [0, 1] (or be NaN: no test), got 1.5");
}

TEST_CASE("the exact two-sided binomial test matches scipy.stats.binomtest for every k of n", "[verdicts][binomial]") {
  const auto& cases = reference()["binomial"];
  REQUIRE(cases.size() == 5);
  for (const auto& c : cases) {
    const auto n = c["n"].get<std::uint64_t>();
    const double p0 = c["p0"].get<double>();
    for (std::uint64_t k = 0; k <= n; ++k) {
      INFO("k " << k << " of n " << n << " against p0 " << p0);
      CHECK_THAT(binomial_test_p(k, n, p0), WithinRel(c["p"][k].get<double>(), distribution_tol));
    }
  }
  // negative control: against another share the p of the same count moves
  CHECK_THAT(binomial_test_p(3, 20, 0.35), !WithinRel(reference()["binomial"][0]["p"][3].get<double>(), 1e-3));
}

TEST_CASE("the one-sided exact binomial tests match scipy.stats.binomtest(alternative='greater' / 'less')",
          "[verdicts][binomial]") {
  for (const auto& c : reference()["binomial"]) {
    const auto n = c["n"].get<std::uint64_t>();
    const double p0 = c["p0"].get<double>();
    for (std::uint64_t k = 0; k <= n; ++k) {
      INFO("k " << k << " of n " << n << " against p0 " << p0);
      CHECK_THAT(binomial_test_greater_p(k, n, p0), WithinRel(c["greater"][k].get<double>(), distribution_tol));
      CHECK_THAT(binomial_test_less_p(k, n, p0), WithinRel(c["less"][k].get<double>(), distribution_tol));
    }
  }
  // negative control: the two tails are not each other (they sum to 1 + P(X = k), not 1)
  CHECK_THAT(binomial_test_greater_p(6, 20, 0.3), !WithinRel(1 - binomial_test_less_p(6, 20, 0.3), 1e-3));
  CHECK_THROWS_WITH(binomial_test_less_p(3, 2, 0.5), "a binomial count k must not exceed n, got k = 3 of n = 2");
}

// A count claim of k of n against bound (percent) with margin delta (points), the paper saying "below" (-1) or
// "above" (+1).
static CountSides count_sides(std::uint64_t k, std::uint64_t n, double bound, double delta, int sign) {
  CountSides c;
  c.successes = k;
  c.trials = n;
  c.runs = 3;
  c.bound = bound;
  c.scale = 100;
  c.delta = delta;
  c.paper_sign = sign;
  return c;
}

TEST_CASE("a count claim's exact TOST matches statsmodels binom_tost for every k of n", "[verdicts][binomial]") {
  const auto& cases = reference()["binomial_tost"];
  REQUIRE(cases.size() == 4);
  for (const auto& c : cases) {
    const auto n = c["n"].get<std::uint64_t>();
    const double low = c["low"].get<double>(), upp = c["upp"].get<double>();
    for (std::uint64_t k = 0; k <= n; ++k) {
      INFO("k " << k << " of n " << n << " within [" << low << ", " << upp << "]");
      const auto s = count_claim_statistics(count_sides(k, n, 100 * (low + upp) / 2, 100 * (upp - low) / 2, -1));
      CHECK_THAT(s["p_tost"].get<double>(), WithinRel(c["p"][k].get<double>(), distribution_tol));
    }
  }
}

TEST_CASE("a count claim on pooled counts takes the four outcomes (the [XHN] Fig 3 shares)",
          "[verdicts][binomial]") {
  // 0 of 5000 moving dots top-left against "under 1%": far below (the zero-spread case of three seeds at 0.0)
  const auto none = count_claim_statistics(count_sides(0, 5000, 1, 1, -1));
  CHECK(none["outcome"] == "verified");
  CHECK_THAT(none["p"].get<double>(), WithinRel(binomial_test_p(0, 5000, 0.01), arithmetic_tol));
  CHECK_THAT(none["difference"].get<double>(), WithinAbs(-1.0, arithmetic_tol));
  CHECK_THAT(none["ci_high"].get<double>(),
             WithinAbs(100 * clopper_pearson_interval(0, 5000).high - 1, arithmetic_tol));
  CHECK(pooled_counts_text(none) == "0 of 5000 pooled over 3 runs");
  CHECK_THAT(none["outcome_reason"].get<std::string>(), Catch::Contains("0 of 5000 pooled over 3 runs"));
  auto one_run = count_sides(0, 5000, 1, 1, -1);
  one_run.runs = 1;
  CHECK(pooled_counts_text(count_claim_statistics(one_run)) == "0 of 5000 pooled over 1 run");
  // negative control: the same count where the paper says "above" is a refutation
  CHECK(count_claim_statistics(count_sides(0, 5000, 1, 1, +1))["outcome"] == "refuted");
  // 4% against "under 1%": refuted
  CHECK(count_claim_statistics(count_sides(200, 5000, 1, 1, -1))["outcome"] == "refuted");
  // exactly at the bound with many trials: not significant, and within +-0.5 points (not-reproduced)
  const auto at = count_claim_statistics(count_sides(500, 50000, 1, 0.5, -1));
  CHECK(at["outcome"] == "not-reproduced");
  CHECK(at["p_tost"].get<double>() < 0.05);
  // 1 of 60: neither (inconclusive)
  CHECK(count_claim_statistics(count_sides(1, 60, 1, 1, -1))["outcome"] == "inconclusive");
  // no trials: no test
  const auto empty = count_claim_statistics(count_sides(0, 0, 1, 1, -1));
  CHECK(empty["outcome"] == "inconclusive");
  CHECK_FALSE(empty.contains("p"));
  CHECK_THROWS_WITH(count_claim_statistics(count_sides(3, 2, 1, 1, -1)),
                    "a count's successes must not exceed its trials, got 3 of 2");
  CHECK_THROWS_WITH(count_claim_statistics(count_sides(1, 2, 150, 1, -1)),
                    "a count claim's bound must be a share in [0, 1] of its scale, got 150 at scale 100");
}

TEST_CASE("the Clopper-Pearson interval matches statsmodels proportion_confint(method='beta') for every k of n",
          "[verdicts][binomial]") {
  for (const auto& c : reference()["clopper_pearson"]) {
    const auto n = c["n"].get<std::uint64_t>();
    const double alpha = c["alpha"].get<double>();
    for (std::uint64_t k = 0; k <= n; ++k) {
      INFO("k " << k << " of n " << n << " alpha " << alpha);
      const auto ci = clopper_pearson_interval(k, n, alpha);
      CHECK_THAT(ci.low, WithinAbs(c["low"][k].get<double>(), distribution_tol * (ci.high - ci.low)));
      CHECK_THAT(ci.high, WithinAbs(c["high"][k].get<double>(), distribution_tol * (ci.high - ci.low)));
    }
  }
  // negative control: a wider level gives a wider interval
  const auto narrow = clopper_pearson_interval(7, 40, 0.1), wide = clopper_pearson_interval(7, 40, 0.05);
  CHECK(wide.low < narrow.low);
  CHECK(wide.high > narrow.high);
}

TEST_CASE("the zero-spread rule: no t-test, no equivalence, no power, outcome inconclusive with reason no spread",
          "[verdicts][zero-spread]") {
  const auto flat = summarize({0.0, 0.0, 0.0}), other_flat = summarize({0.2, 0.2, 0.2});
  for (const auto& c : {welch_difference(flat, other_flat), welch_difference(flat, flat),
                        one_sample_difference(flat, 0.05), one_sample_difference(flat, 0.0)}) {
    CHECK_FALSE(c.testable());
    CHECK(std::isnan(c.p));
    CHECK(std::isnan(c.ci_low));
    CHECK_FALSE(equivalence_test(c, 1.0).equivalent);
  }
  CHECK(std::isnan(welch_power(1.0, 0.0, 0.0, 3, 3)));
  CHECK(std::isnan(minimum_detectable_effect(one_sample_design(0.0, 3))));
  // the [XHN] Fig 3 case: three seeds of 0.0 against a bound of 0.05; the sign alone decides nothing
  OutcomeInput in;
  in.treatment = flat;
  in.bound = 0.05;
  in.paper_sign = -1;
  in.p_adjusted = std::numeric_limits<double>::quiet_NaN();
  in.delta = 0.01;
  const auto r = training_outcome(in);
  CHECK(r.outcome == TrainingOutcome::inconclusive);
  CHECK(r.reason.rfind("no spread", 0) == 0);
  CHECK(r.seeds_needed.status == SeedsNeeded::no_spread);
  // control: one side with spread is a test (Welch's df = the other side's n - 1, as scipy's "one_side_flat")
  CHECK(welch_difference(flat, summarize({0.1, 0.3, 0.2})).testable());
}

TEST_CASE("the four training outcomes: verified, refuted, not-reproduced by TOST, inconclusive with MDE and seeds",
          "[verdicts][outcome]") {
  OutcomeInput in;
  in.treatment = summarize({61.2, 63.5, 59.8, 64.1, 62.7});
  in.baseline = summarize({55.4, 58.1, 56.9, 54.2, 57.3});
  in.delta = 1.0;
  in.paper_difference = 6.0;
  const TComparison c = welch_difference(in.treatment, *in.baseline);
  in.p_adjusted = std::min(1.0, c.p * 60);  // e.g. Bonferroni-sized adjustment, still < 0.05
  REQUIRE(in.p_adjusted < 0.05);
  in.paper_sign = +1;
  auto r = training_outcome(in);
  CHECK(r.outcome == TrainingOutcome::verified);
  CHECK(r.paper_position == PaperPosition::inside);
  in.paper_sign = -1;  // the paper claims a decrease
  CHECK(training_outcome(in).outcome == TrainingOutcome::refuted);
  in.paper_difference = 20.0;
  CHECK(training_outcome(in).paper_position == PaperPosition::above);
  in.paper_difference = -6.0;
  CHECK(training_outcome(in).paper_position == PaperPosition::below);
  // not significant after adjustment (p 0.2), and the interval well within +-delta: not reproduced
  OutcomeInput eq;
  eq.treatment = summarize({0.412, 0.398, 0.431, 0.405, 0.418});
  eq.baseline = summarize({0.405, 0.421, 0.389, 0.417, 0.409});
  eq.p_adjusted = 0.2;
  eq.delta = 0.05;
  eq.paper_difference = 0.2;
  r = training_outcome(eq);
  CHECK(r.outcome == TrainingOutcome::not_reproduced);
  CHECK(r.equivalence.equivalent);
  CHECK(r.paper_position == PaperPosition::above);
  // the same seeds with a smaller delta: neither, so inconclusive with the MDE at 80% and the seeds for 0.2
  eq.delta = 0.005;
  r = training_outcome(eq);
  CHECK(r.outcome == TrainingOutcome::inconclusive);
  CHECK(r.minimum_detectable_effect > 0);
  CHECK_THAT(welch_power(r.minimum_detectable_effect, eq.treatment.sd, eq.baseline->sd, 5, 5), WithinAbs(0.8, 1e-10));
  CHECK(r.seeds_needed.status == SeedsNeeded::found);
  CHECK(r.seeds_needed.n == 2);  // 0.2 is ~15 sd: two seeds per arm detect it
  eq.effect_to_detect = 0.005;
  CHECK(training_outcome(eq).seeds_needed.n > 5);
  // a significant raw p that is not significant after adjustment does not verify
  in.paper_sign = +1;
  in.p_adjusted = 0.06;
  CHECK(training_outcome(in).outcome != TrainingOutcome::verified);
}

TEST_CASE("bad input to the statistics: one std::invalid_argument line naming the argument", "[verdicts][errors]") {
  const auto a = summarize({1.0, 2.0, 3.0}), one = summarize({1.0});
  CHECK_THROWS_WITH(welch_difference(a, a, 1.5), "alpha must lie in (0, 1), got 1.5");
  CHECK_THROWS_WITH(welch_difference(a, a, 0.0), "alpha must lie in (0, 1), got 0");
  CHECK_THROWS_WITH(welch_difference(a, one),
                    "Welch's test: sample b needs at least 2 values (seeds) for a t-test, got 1");
  CHECK_THROWS_WITH(one_sample_difference(one, 0.0),
                    "the one-sample t-test's sample needs at least 2 values (seeds) for a t-test, got 1");
  CHECK_THROWS_WITH(tost_welch(a, a, -0.1),
                    "the smallest effect of interest delta must be a finite number >= 0, got -0.1");
  CHECK_THROWS_WITH(minimum_detectable_effect(welch_design(1, 1, 3, 3), 0.05, 1.0), "power must lie in (0, 1), got 1");
  CHECK_THROWS_WITH(welch_seeds_needed(1.0, 1.0, 1.0, 0.05, 0.8, 1), "the cap on seeds must be at least 2, got 1");
  CHECK_THROWS_WITH(binomial_test_p(5, 4, 0.5), "a binomial count k must not exceed n, got k = 5 of n = 4");
  CHECK_THROWS_WITH(binomial_test_p(0, 0, 0.5), "a binomial count needs n >= 1 trials, got 0");
  CHECK_THROWS_WITH(binomial_test_p(1, 4, 1.2), "the share p0 of a binomial test must lie in [0, 1], got 1.2");
  CHECK_THROWS_WITH(clopper_pearson_interval(1, 4, -0.05), "alpha must lie in (0, 1), got -0.05");
  CHECK_THROWS_WITH(summarize({}), "summarize: no values");
  OutcomeInput in;
  in.treatment = a;
  CHECK_THROWS_WITH(training_outcome(in),
                    "a training claim compares its treatment with exactly one of a baseline or a bound");
  in.bound = 0.0;
  in.p_adjusted = 1.2;
  CHECK_THROWS_WITH(training_outcome(in), "the adjusted p of a testable claim must lie in [0, 1], got 1.2");
  in.p_adjusted = 0.5;
  in.paper_sign = 0;
  CHECK_THROWS_WITH(training_outcome(in), "the paper's direction must be +1 or -1, got 0");
  in.paper_sign = 1;
  CHECK_NOTHROW(training_outcome(in));  // control: the same input, a direction
}
