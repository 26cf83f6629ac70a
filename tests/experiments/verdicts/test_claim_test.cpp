// A claim's test by its estimand (claim_test.hpp): each estimand's reading, e-value and stop against the test it
// delegates to, the fifth outcome, and the design power (claim_design_power.hpp) against a plain simulation.
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/betting_mean_test.hpp"
#include "dmlbench/experiments/claim_design_power.hpp"
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/claim_test.hpp"
#include "dmlbench/experiments/typical_seed_test.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

using namespace dmlbench::experiments;

namespace {

ClaimTestInput input(std::vector<double> d, ClaimEstimand e, double level = 0.05, int sign = +1, double delta = 0) {
  ClaimTestInput in;
  in.differences = std::move(d);
  in.estimand = e;
  in.level = level;
  in.paper_sign = sign;
  in.delta = delta;
  if (e == ClaimEstimand::bounded_mean) {
    in.lo = -1;
    in.hi = 99;
  }
  return in;
}

}  // namespace

TEST_CASE("claim test: the mean is the anytime t-test's reading, with the fifth outcome inside +-delta",
          "[experiments][verdicts]") {
  const std::vector<double> d = {1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.02, 0.98};
  const ClaimDecision r = decide_claim(input(d, ClaimEstimand::mean, 0.05, +1, 5));
  const AnytimeInterval i = anytime_interval(d, 0.05);
  CHECK_THAT(r.low, Catch::WithinRel(i.low, 1e-12));
  CHECK_THAT(r.high, Catch::WithinRel(i.high, 1e-12));
  CHECK(r.outcome == TrainingOutcome::direction_only);  // above 0, inside (-5, 5)
  CHECK(training_outcome_name(r.outcome) == "direction-only");
  CHECK(decide_claim(input(d, ClaimEstimand::mean, 0.05, +1, 0.5)).outcome == TrainingOutcome::verified);  // reaches 0.5
  CHECK(decide_claim(input(d, ClaimEstimand::mean, 0.05, -1, 5)).outcome == TrainingOutcome::refuted);  // wrong side
  CHECK_THAT(claim_log_e_value(input(d, ClaimEstimand::mean)),
             Catch::WithinRel(anytime_t_log_e_value(summarize(d), 0.0), 1e-12));
  // no spread: no e-value, never decided, and stopped at once (the cap cannot decide it)
  const auto flat = input({2, 2, 2, 2}, ClaimEstimand::mean);
  CHECK(std::isnan(claim_log_e_value(flat)));
  CHECK(decide_claim(flat).outcome == TrainingOutcome::inconclusive);
  CHECK_FALSE(claim_could_decide_by(flat, 10));
  // every reading of interval_outcome
  CHECK(interval_outcome(0.5, 6, +1, 4) == TrainingOutcome::verified);
  CHECK(interval_outcome(0.5, 3, +1, 4) == TrainingOutcome::direction_only);
  CHECK(interval_outcome(-3, -0.5, +1, 4) == TrainingOutcome::refuted);
  CHECK(interval_outcome(-3, 3, +1, 4) == TrainingOutcome::not_reproduced);
  CHECK(interval_outcome(-3, 5, +1, 4) == TrainingOutcome::inconclusive);
  CHECK(interval_outcome(0.5, 3, +1, 0) == TrainingOutcome::verified);  // delta 0: no band
}

TEST_CASE("claim test: a typical seed reads the signs, its e-value the mean of the two sides'",
          "[experiments][verdicts]") {
  // 10 seeds below 0 (the paper's side -1), one exactly at 0 (on neither side): E = (30.9 + 0.002) / 2 = 15.5
  const std::vector<double> d = {-1, -0.5, -0.7, -0.2, -3, -0.1, -0.4, -0.9, -2, -0.3, 0};
  const ClaimDecision r = decide_claim(input(d, ClaimEstimand::typical_seed, 0.1, -1));
  CHECK(r.paper_side == 10);
  CHECK(r.other_side == 0);
  const double e = 0.5 * (std::exp(typical_seed_log_e_value(10, 11)) + std::exp(typical_seed_log_e_value(0, 11)));
  CHECK_THAT(r.log_e_value, Catch::WithinRel(std::log(e), 1e-12));
  CHECK(r.outcome == TrainingOutcome::verified);  // 15.5 >= 1 / 0.1
  CHECK(std::isnan(r.low));  // no interval of a mean
  // the same seeds with the paper's side above: refuted; at 0.05 (1 / 0.05 = 20 > 15.5): inconclusive
  CHECK(decide_claim(input(d, ClaimEstimand::typical_seed, 0.1, +1)).outcome == TrainingOutcome::refuted);
  CHECK(decide_claim(input(d, ClaimEstimand::typical_seed, 0.05, -1)).outcome == TrainingOutcome::inconclusive);
  // the cap's reach: 3 of 4 on a side reach 1 / 0.05 if every seed to 14 joins them (13 of 14: E = 78), not by 10
  // (9 of 10: E = 9.3); 2 of 4 with 2 against cannot by 6
  CHECK(claim_could_decide_by(input({-1, -1, -1, 1}, ClaimEstimand::typical_seed), 14));
  CHECK_FALSE(claim_could_decide_by(input({-1, -1, -1, 1}, ClaimEstimand::typical_seed), 10));
  CHECK_FALSE(claim_could_decide_by(input({-1, -1, 1, 1}, ClaimEstimand::typical_seed), 6));
}

TEST_CASE("claim test: a bounded mean is the betting interval at the level with bets at the claim's alpha",
          "[experiments][verdicts]") {
  const std::vector<double> d = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};  // ten shares of 0 against a bound of 1
  auto in = input(d, ClaimEstimand::bounded_mean, 0.01, -1, 1);
  const ClaimDecision r = decide_claim(in);
  const BettingInterval b = betting_interval(d, -1, 99, 0.01, 0.05);
  CHECK(r.low == b.low);
  CHECK(r.high == b.high);
  CHECK(r.high > 40);  // ten zeros of a share bounded by 100 do not show a mean under 1
  CHECK(r.outcome == TrainingOutcome::inconclusive);
  CHECK_THAT(claim_log_e_value(in), Catch::WithinRel(betting_log_capital(d, 0.0, -1, 99, 0.05), 1e-12));
  // the same bets read at the e-value's threshold: the interval excludes 0 exactly when the e-value reaches 1/level
  in.differences = std::vector<double>(10, 30.0);
  const double log_e = claim_log_e_value(in);
  in.level = std::exp(-log_e) * 1.001;
  CHECK(decide_claim(in).outcome != TrainingOutcome::inconclusive);
  in.level = std::exp(-log_e) * 0.999;
  CHECK(decide_claim(in).outcome == TrainingOutcome::inconclusive);
  in.lo = 0.5;  // a range that does not hold 0
  CHECK_THROWS_WITH(decide_claim(in), Catch::Contains("lo < 0 < hi"));
}

TEST_CASE("claim test: a claim's own stop is the first look it decides or finds the cap out of reach",
          "[experiments][verdicts]") {
  // decided at 4 seeds (|t| = 23 > c_4 = 8.25 at 0.03); the later seeds pull the mean below 0
  const auto early = input({1.0, 1.1, 0.9, 1.05, -1.5, -1.2, -1.6, -1.4}, ClaimEstimand::mean, 0.03);
  CHECK(claim_stop(early, 4, 10) == 4);
  // the control: first looking at 6, its t there (0.45) cannot reach the cap: it stops at 6, undecided
  CHECK(claim_stop(early, 6, 10) == 6);
  auto six = early;
  six.differences.resize(6);
  CHECK(decide_claim(six).outcome == TrainingOutcome::inconclusive);
  // a claim whose t carried to the cap cannot reach c_10 stops at its first look, undecided
  const auto far = input({0.5, -0.6, 0.4, -0.3, 2, 2, 2, 2}, ClaimEstimand::mean, 0.03);
  CHECK(claim_stop(far, 4, 10) == 4);
  CHECK_FALSE(claim_could_decide_by(input({0.5, -0.6, 0.4, -0.3}, ClaimEstimand::mean, 0.03), 10));
  // one in reach but undecided at 4 and 5 seeds (t = 4.0 and 5.9 below c_4 = 8.25, c_5 = 6.17), decided at 6
  const auto grows = input({1, 0.5, 1.5, 1.0, 0.8, 1.2}, ClaimEstimand::mean, 0.03);
  CHECK(claim_stop(grows, 4, 10) == 6);
  auto five = grows;
  five.differences.resize(5);
  CHECK(decide_claim(five).outcome == TrainingOutcome::inconclusive);
  CHECK(claim_could_decide_by(five, 10));
  CHECK(decide_claim(grows).outcome == TrainingOutcome::verified);
  CHECK_THROWS_WITH(decide_claim(input({1.0}, ClaimEstimand::mean)), Catch::Contains("at least 2 seeds"));
  CHECK_THROWS_WITH(claim_estimand_named("median"), Catch::Contains("mean, bounded mean, typical seed"));
}

TEST_CASE("claim design power: the simulated design decides a large effect almost always and none at 0",
          "[experiments][verdicts]") {
  DesignPowerInput p;
  p.effect = 3;
  p.sd = 1;
  p.reps = 2000;
  CHECK(claim_design_power(p) > 0.95);
  p.effect = 0;  // the null: verified (on the paper's side) at most at the level
  CHECK(claim_design_power(p) < 0.03 + 3 * std::sqrt(0.03 * 0.97 / 2000));
  p.effect = 1;  // a middling effect: in between
  const double mid = claim_design_power(p);
  CHECK(mid > 0.05);
  CHECK(mid < 0.95);
  p.sd = 0;
  CHECK_THROWS_WITH(claim_design_power(p), Catch::Contains("positive sd"));
}

// An inconclusive typical-seed claim's design power is exact: the fewest seeds, all on one side, whose sign e-value
// reaches 1 / level (the control: one seed fewer does not, so the count is the least).
TEST_CASE("typical seed: the fewest seeds that decide at a level, and an inconclusive row says whether its cap can",
          "[verdicts][typical]") {
  for (const double level : {0.05, 0.03, 0.005}) {
    const std::size_t k = typical_seed_fewest_deciding(level);
    INFO("level " << level << ": " << k);
    REQUIRE(k >= 2);
    ClaimTestInput in;
    in.estimand = ClaimEstimand::typical_seed;
    in.level = level;
    in.differences.assign(k, 1.0);
    CHECK(decide_claim(in).outcome == TrainingOutcome::verified);
    in.differences.assign(k - 1 < 2 ? 2 : k - 1, 1.0);
    if (k - 1 >= 2) CHECK(decide_claim(in).outcome == TrainingOutcome::inconclusive);
  }
  CHECK(typical_seed_fewest_deciding(0.005) > typical_seed_fewest_deciding(0.05));
  CHECK(typical_seed_fewest_deciding(1e-12, 20) == 0);  // none up to the limit
  CHECK_THROWS_AS(typical_seed_fewest_deciding(0), std::invalid_argument);
  // the row: read at a stop in a design of cap 10, inconclusive, its design power names the seeds and the cap
  ClaimSides s;
  s.treatment = {0.0, 2.0, 0.0, 3.0, 0.0, 0.5, 0.0, 0.0};
  s.bound = 1;
  s.paper_sign = -1;
  s.estimand = ClaimEstimand::typical_seed;
  s.estimand_reason = "a test";
  s.range = std::make_pair(0.0, 100.0);
  s.delta_reason = "a test";
  const auto at = claim_statistics_at(claim_statistics(s), 8, ClaimDesign{4, 10, 0.03});
  const auto d = claim_statistics_decided(at, ClaimFamily{75, 0});
  REQUIRE(d["outcome"] == "inconclusive");
  CHECK(d["design_power"]["estimand"] == "typical seed");
  CHECK(d["design_power"]["fewest_seeds"] == typical_seed_fewest_deciding(0.05 / 75));
  CHECK(d["design_power"]["cap"] == 10);
}
