// The report's adaptive design by simulation: the seed-spending loop of experiments/src/report/report_seed_spending.cpp
// (first look at 4 seeds, a seed added to the arms of the claims still waiting, cap 10, looks at e-BH's planned level
// alpha x 0.6) and the report's final decision (e-BH over the family's e-values, each claim read in its anytime
// interval at alpha R / m: report_training_outcomes.cpp), run on simulated families whose every claim is null. The
// design's promise is a false discovery rate of at most alpha; under the global null that is the chance that any
// claim is decided.
//
// The simulated family: m = 75 one-arm claims (a per-seed value minus its bound, the layout of the report's [XHN]
// share rows and bound claims) in 15 stages of 5, each claim its own arm, delta 0. Not simulated here: arms shared by
// claims, two-arm claims, the equivalence stop.
//
// Tolerances: 2,000 simulated reports; the false discovery rate's Monte Carlo standard error is at most
// sqrt(0.1 x 0.9 / 2000) = 0.0067 near 0.1, so a bound of alpha and a finding 3 standard errors above it are told apart.
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

constexpr double kAlpha = 0.05;
constexpr std::size_t kClaims = 75, kPerStage = 5;
constexpr int kFirst = 4, kCap = 10;

using Draw = std::function<double(std::mt19937_64&)>;
using Family = std::function<const Draw&(std::size_t claim)>;

// The statistics object of a claim whose per-seed differences are x (what claim_statistics writes, less the texts).
json statistics_of(const std::vector<double>& x) {
  const SampleSummary d = summarize(x);
  return {{"alpha", kAlpha}, {"paper_sign", -1}, {"smallest_effect", 0.0},
          {"per_seed", {{"mean", d.mean}, {"sd", d.sd}, {"n", d.n}}}};
}

// One simulated report: each stage spends seeds by the report's own loop; returns the claims decided at the end.
std::size_t decided_in_one_report(const Family& draw, std::mt19937_64& rng) {
  std::vector<std::vector<double>> values(kClaims);
  for (std::size_t c = 0; c < kClaims; ++c)
    for (int s = 0; s < kCap; ++s) values[c].push_back(draw(c)(rng));
  std::vector<std::size_t> seeds(kClaims, kFirst);
  for (std::size_t stage = 0; stage < kClaims / kPerStage; ++stage) {
    SeedSpending sp{kFirst, kCap, kClaims, kAlpha, planned_selected("bh", kClaims), {}};
    for (std::size_t c = 0; c < kPerStage; ++c) sp.claim_arms["c" + std::to_string(c)] = {"a" + std::to_string(c)};
    SeedPlan now{kFirst, {}};
    const auto summary = [&] {
      json rows = json::array();
      for (std::size_t c = 0; c < kPerStage; ++c) {
        const auto& v = values[stage * kPerStage + c];
        const int n = now.of("a" + std::to_string(c));
        rows.push_back({{"claim", "c" + std::to_string(c)},
                        {"statistics", statistics_of(std::vector<double>(v.begin(), v.begin() + n))}});
      }
      return json{{"variants", json::array({json{{"rows", rows}}})}};
    };
    spend_seeds(sp, summary, [&](const SeedPlan& p) { now = p; });
    for (std::size_t c = 0; c < kPerStage; ++c) seeds[stage * kPerStage + c] = std::size_t(now.of("a" + std::to_string(c)));
  }
  std::vector<json> stats;
  std::vector<double> e;
  for (std::size_t c = 0; c < kClaims; ++c) {
    stats.push_back(statistics_of(std::vector<double>(values[c].begin(), values[c].begin() + long(seeds[c]))));
    e.push_back(claim_e_value(stats.back()));
  }
  const ClaimFamily family{kClaims, std::max<std::size_t>(e_bh_selected(e, kAlpha), 1)};
  std::size_t decided = 0;
  for (const auto& s : stats)
    decided += claim_statistics_testable(s) && s["per_seed"]["sd"].get<double>() > 0 &&
               claim_decision(s, family).outcome != TrainingOutcome::inconclusive;
  return decided;
}

// The share of simulated reports with any decision: the false discovery rate under the global null.
double global_null_fdr(const Family& draw, int reps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int any = 0;
  for (int r = 0; r < reps; ++r) any += decided_in_one_report(draw, rng) > 0;
  return any / double(reps);
}

}  // namespace

TEST_CASE("report design: under a Gaussian global null the looks and e-BH keep the false discovery rate under alpha, "
          "a fixed-n t-test per claim does not (negative control)", "[experiments][report_design]") {
  const Draw gaussian = [](std::mt19937_64& rng) { return std::normal_distribution<double>(0, 1)(rng); };
  const double fdr = global_null_fdr([&](std::size_t) -> const Draw& { return gaussian; }, 2000, 61);
  INFO("Gaussian global null: FDR " << fdr);
  CHECK(fdr <= kAlpha);
  // the control: each claim's 10 seeds by a two-sided t-test at alpha, no family: some claim of 75 is decided almost
  // always (1 - 0.95^75 = 0.98)
  std::mt19937_64 rng(62);
  const double q = boost::math::quantile(boost::math::students_t(kCap - 1), 1 - kAlpha / 2);
  int any = 0;
  for (int r = 0; r < 400; ++r) {
    bool decided = false;
    for (std::size_t c = 0; c < kClaims; ++c) {
      std::vector<double> x;
      for (int s = 0; s < kCap; ++s) x.push_back(gaussian(rng));
      const json st = statistics_of(x);
      const double t = st["per_seed"]["mean"].get<double>() / (st["per_seed"]["sd"].get<double>() / std::sqrt(kCap));
      decided = decided || std::abs(t) > q;
    }
    any += decided;
  }
  CHECK(any / 400.0 > 0.9);
}

TEST_CASE("report design: on shares mostly at zero with their mean at the bound the design's false discovery rate "
          "exceeds alpha: the t e-value assumes Gaussian seeds ([XHN] Fig 3's share rows are of this kind)",
          "[experiments][report_design]") {
  // a share of 0 on 70% of seeds, else uniform on (0, 20/3): mean 1, the claim "under 1%": differences share - 1
  const Draw shares = [](std::mt19937_64& rng) {
    return (std::bernoulli_distribution(0.7)(rng) ? 0.0 : std::uniform_real_distribution<double>(0, 20.0 / 3)(rng)) - 1;
  };
  const double fdr = global_null_fdr([&](std::size_t) -> const Draw& { return shares; }, 2000, 63);
  INFO("zero-inflated global null, every claim: FDR " << fdr);
  CHECK(fdr > kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / 2000));
  // ten such share claims among 65 Gaussian ones (about the report's mix): still above alpha
  const Draw gaussian = [](std::mt19937_64& rng) { return std::normal_distribution<double>(0, 1)(rng); };
  const double mixed = global_null_fdr([&](std::size_t c) -> const Draw& { return c % 7 == 0 && c < 70 ? shares : gaussian; },
                                       2000, 64);
  INFO("10 zero-inflated among 75: FDR " << mixed);
  CHECK(mixed > kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / 2000));
}
