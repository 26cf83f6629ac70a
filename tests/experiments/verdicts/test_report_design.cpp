// The report's adaptive design by simulation, run through the report's own code: the seed-spending loop of
// experiments/src/report/report_seed_spending.cpp (first look at 4 seeds, a seed added to the arms of the claims still
// waiting, cap 10, looks at e-BH's planned level alpha x 0.6), each claim read at its own stop
// (report_claim_stops.cpp) and the report's final decision (decide_training_claims: e-BH over the family's e-values,
// each claim read at alpha R / m). The design promises a false discovery rate of at most alpha.
//
// The simulated family: m = 75 one-arm claims (a per-seed value against its bound, the layout of the report's [XHN]
// share rows and bound claims) in 15 stages of 5, each claim its own arm, delta 0, the paper's side below the bound.
// Each kind of data is judged by the estimand the report gives it (claim_test.hpp): Gaussian values by the t-test of
// their mean; shares that are 0 on most seeds by the typical-seed test (the report's [XHN] Fig 3 rows) or by the
// betting test of their mean. The nulls are shaped like the stored share rows: 0 on most seeds, a few seeds at several
// percent. The negative controls fail: the t-test on those shares (the rule the report used for them), and a fixed-n
// t-test per claim without a family.
//
// Tolerances: the false discovery rate's Monte Carlo standard error is at most sqrt(alpha (1 - alpha) / reps); each
// check allows alpha + 3 standard errors, and the replications are enough that a procedure at 1.5 alpha fails it
// (1000 reports: alpha + 3 SE = 0.071 < 0.075).
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/binomial_test.hpp"
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/report_claim_stops.hpp"
#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"
#include "dmlbench/experiments/welch_comparison.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
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

// One claim's data and how the report judges it: its per-seed values, its bound, its estimand (and range), and whether
// it is null (for the false discovery proportion).
struct SimClaim {
  Draw draw;
  double bound = 0;
  ClaimEstimand estimand = ClaimEstimand::mean;
  std::optional<std::pair<double, double>> range;
  bool null = true;
};

// The statistics object claim_statistics writes for a claim's first n values.
json statistics_of(const SimClaim& c, const std::vector<double>& values) {
  ClaimSides s;
  s.treatment = values;
  s.bound = c.bound;
  s.paper_sign = -1;
  s.alpha = kAlpha;
  s.delta_reason = "a simulation";
  s.estimand = c.estimand;
  s.estimand_reason = c.estimand == ClaimEstimand::mean ? "" : "a simulation";
  s.range = c.range;
  return claim_statistics(s);
}

json summary_of(const std::vector<json>& rows) { return {{"variants", json::array({json{{"rows", rows}}})}}; }

// One simulated report: each stage spends seeds by the report's own loop, each claim is read at its own stop, and the
// family is decided by e-BH. Returns which claims were decided.
std::vector<bool> decided_in_one_report(const std::vector<SimClaim>& claims, std::mt19937_64& rng) {
  std::vector<std::vector<double>> values(kClaims);
  for (std::size_t c = 0; c < kClaims; ++c)
    for (int s = 0; s < kCap; ++s) values[c].push_back(claims[c].draw(rng));
  std::vector<ClaimRow> rows;
  std::map<std::string, json> summaries;
  std::vector<Stage> stages;
  for (std::size_t stage = 0; stage < kClaims / kPerStage; ++stage) {
    Stage st;
    st.name = "s" + std::to_string(stage);
    st.spending = SeedSpending{kFirst, kCap, kClaims, kAlpha, planned_selected("bh", kClaims), {}};
    for (std::size_t c = 0; c < kPerStage; ++c)
      st.spending->claim_arms[st.name + "c" + std::to_string(c)] = {"a" + std::to_string(c)};
    SeedPlan now{kFirst, {}};
    const auto summary = [&] {
      std::vector<json> rs;
      for (std::size_t c = 0; c < kPerStage; ++c) {
        const std::size_t k = stage * kPerStage + c;
        const int n = now.of("a" + std::to_string(c));
        rs.push_back({{"claim", st.name + "c" + std::to_string(c)},
                      {"statistics", statistics_of(claims[k], std::vector<double>(values[k].begin(), values[k].begin() + n))}});
      }
      return summary_of(rs);
    };
    spend_seeds(*st.spending, summary, [&](const SeedPlan& p) { now = p; });
    summaries[st.name] = summary();
    for (const auto& r : summaries[st.name]["variants"][0]["rows"]) {
      ClaimRow row;
      row.id = r["claim"].get<std::string>();
      row.statistics = r["statistics"];
      rows.push_back(row);
    }
    stages.push_back(st);
  }
  read_claims_at_their_stops(rows, summaries, stages);
  decide_training_claims(rows, PAdjustment::benjamini_hochberg, false);
  std::vector<bool> decided;
  for (const auto& r : rows) decided.push_back(r.verdict != "inconclusive");
  return decided;
}

// The false discovery proportion of one simulated report: false decisions / max(decisions, 1).
double false_discovery_proportion(const std::vector<SimClaim>& claims, std::mt19937_64& rng) {
  const std::vector<bool> d = decided_in_one_report(claims, rng);
  std::size_t decided = 0, false_decided = 0;
  for (std::size_t c = 0; c < kClaims; ++c) {
    decided += d[c];
    false_decided += d[c] && claims[c].null;
  }
  return double(false_decided) / double(std::max<std::size_t>(decided, 1));
}

// The false discovery rate over `reps` simulated reports of one family.
double fdr(const std::vector<SimClaim>& claims, int reps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  double sum = 0;
  for (int r = 0; r < reps; ++r) sum += false_discovery_proportion(claims, rng);
  return sum / reps;
}

double three_se(int reps) { return 3 * std::sqrt(kAlpha * (1 - kAlpha) / reps); }

const Draw gaussian = [](std::mt19937_64& rng) { return std::normal_distribution<double>(0, 1)(rng); };
// shares (%) like the stored "no top-left" rows: 0 on 70% of seeds, else uniform on (0, 20/3): mean exactly 1
const Draw mean_at_one = [](std::mt19937_64& rng) {
  return std::bernoulli_distribution(0.7)(rng) ? 0.0 : std::uniform_real_distribution<double>(0, 20.0 / 3)(rng);
};
// the typical seed's null: 0 on half of the seeds, else uniform on (1, 8): a seed below 1% exactly half the time
const Draw median_at_one = [](std::mt19937_64& rng) {
  return std::bernoulli_distribution(0.5)(rng) ? 0.0 : std::uniform_real_distribution<double>(1, 8)(rng);
};

std::vector<SimClaim> all(const SimClaim& c) { return std::vector<SimClaim>(kClaims, c); }

// The rule the report used to judge its share rows, kept here as a negative control: the t e-value of every claim, a
// claim without spread waiting for a seed with spread, each claim read at all its seeds, e-BH at the end. Each claim
// its own arm; returns the false discovery rate under a global null.
double t_with_spread_rule_fdr(const Draw& draw, int reps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double look = kAlpha * double(planned_selected("bh", kClaims)) / double(kClaims);
  int any = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<SampleSummary> at_stop;
    std::vector<double> e;
    for (std::size_t c = 0; c < kClaims; ++c) {
      std::vector<double> x;
      for (int s = 0; s < kFirst; ++s) x.push_back(draw(rng) - 1);
      for (;;) {
        const SampleSummary d = summarize(x);
        const bool spread = d.sd > 0;
        const double cn = anytime_radius_multiplier(x.size(), look), cc = anytime_radius_multiplier(kCap, look);
        const bool decided = spread && std::abs(d.mean) / (d.sd / std::sqrt(double(x.size()))) >= cn;
        const bool hopeless = spread && !(cc * d.sd / std::sqrt(double(kCap)) < std::abs(d.mean));
        if (decided || hopeless || int(x.size()) >= kCap) break;
        x.push_back(draw(rng) - 1);  // no spread: it waits for the seed that gives it spread
      }
      at_stop.push_back(summarize(x));
      e.push_back(at_stop.back().sd > 0 ? anytime_t_e_value(at_stop.back(), 0.0) : 0.0);
    }
    const std::size_t selected = e_bh_selected(e, kAlpha);
    bool decided = false;
    for (std::size_t c = 0; c < kClaims && selected > 0; ++c)
      decided = decided || e[c] >= double(kClaims) / (kAlpha * double(selected));
    any += decided;
  }
  return any / double(reps);
}

}  // namespace

TEST_CASE("report design: under a Gaussian global null the looks, own stops and e-BH keep the false discovery rate "
          "under alpha, a fixed-n t-test per claim does not (negative control)", "[experiments][report_design]") {
  const double f = fdr(all({gaussian, 0, ClaimEstimand::mean, {}, true}), 1000, 61);
  INFO("Gaussian global null: FDR " << f);
  CHECK(f <= kAlpha + three_se(1000));
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
      const SampleSummary d = summarize(x);
      decided = decided || std::abs(d.mean / (d.sd / std::sqrt(double(kCap)))) > q;
    }
    any += decided;
  }
  CHECK(any / 400.0 > 0.9);
}

// 45 effects of 3 sd among 75 claims, the share e-BH's looks plan for (0.6): with far fewer effects the final R is
// smaller than planned, and claims stopped at the looks' level stay undecided at the family's (a loss of power the
// plan accepts, never of validity).
TEST_CASE("report design: under a partial null (30 null claims, 45 with an effect) the false discovery rate stays "
          "under alpha, and the effects are found", "[experiments][report_design]") {
  std::vector<SimClaim> family = all({gaussian, 0, ClaimEstimand::mean, {}, true});
  const Draw effect = [](std::mt19937_64& rng) { return std::normal_distribution<double>(-3, 1)(rng); };
  for (std::size_t c = 0; c < kClaims; ++c)
    if (c % 5 < 3) family[c] = {effect, 0, ClaimEstimand::mean, {}, false};
  const double f = fdr(family, 1000, 65);
  INFO("partial null: FDR " << f);
  CHECK(f <= kAlpha + three_se(1000));
  // the control that the design decides at all: a report finds most of the 15 effects (3 sd each)
  std::mt19937_64 rng(66);
  int found = 0;
  for (int r = 0; r < 50; ++r) {
    const std::vector<bool> d = decided_in_one_report(family, rng);
    for (std::size_t c = 0; c < kClaims; ++c) found += d[c] && !family[c].null;
  }
  INFO("effects found in a report, on average: " << found / 50.0 << " of 45");
  CHECK(found / 50.0 >= 36);
}

TEST_CASE("report design: shares mostly at zero keep the false discovery rate under alpha when judged as the report "
          "judges them (a typical seed, or a bounded mean), the t-test on them does not (negative control) "
          "([XHN] Fig 3's share rows are of this kind)", "[experiments][report_design]") {
  // the report's estimand for the share rows: a typical seed below 1%, under its global null (median at the bound)
  const double typical = fdr(all({median_at_one, 1, ClaimEstimand::typical_seed, std::make_pair(0.0, 100.0), true}),
                             1000, 63);
  INFO("typical seed, its global null: FDR " << typical);
  CHECK(typical <= kAlpha + three_se(1000));
  // the bounded mean of the same kind of shares, under its global null (mean at the bound)
  const double bounded = fdr(all({mean_at_one, 1, ClaimEstimand::bounded_mean, std::make_pair(0.0, 100.0), true}),
                             300, 67);
  INFO("bounded mean, its global null: FDR " << bounded);
  CHECK(bounded <= kAlpha + three_se(300));
  // the negative controls: the rule the report used for these rows (the t e-value, a claim without spread waiting
  // for the seed that breaks the tie), on shares whose mean is at the bound; a fixed-n t-test at every look of one
  // Gaussian claim; the exact binomial test of the dots pooled over ten seeds of 1,000 dots each (the seeds' shares
  // spread far more than a binomial allows)
  const double spread_rule = t_with_spread_rule_fdr(mean_at_one, 1000, 64);
  INFO("t with the spread rule on zero-inflated shares: FDR " << spread_rule);
  CHECK(spread_rule > kAlpha + three_se(1000));
  std::mt19937_64 rng(68);
  int every_look = 0, pooled = 0;
  for (int r = 0; r < 2000; ++r) {
    std::vector<double> x, share;
    bool rejected = false;
    for (int n = 1; n <= kCap; ++n) {
      x.push_back(gaussian(rng));
      share.push_back(mean_at_one(rng));
      if (n < kFirst) continue;
      const SampleSummary d = summarize(x);
      const double qn = boost::math::quantile(boost::math::students_t(n - 1), 1 - kAlpha / 2);
      rejected = rejected || std::abs(d.mean / (d.sd / std::sqrt(double(n)))) > qn;
    }
    every_look += rejected;
    std::uint64_t dots = 0;
    for (const double s : share) dots += std::uint64_t(std::lround(s * 10));  // share % of 1,000 dots
    pooled += binomial_test_p(dots, 1000 * kCap, 0.01) < kAlpha;
  }
  INFO("fixed-n t at every look: " << every_look / 2000.0 << "; pooled binomial: " << pooled / 2000.0);
  CHECK(every_look / 2000.0 > kAlpha + three_se(2000));
  CHECK(pooled / 2000.0 > kAlpha + three_se(2000));
}

namespace {

// One side of a claim in the real layout: an arm and the metric path it is read at (claims sharing both share values).
std::string side_key(const std::string& arm, const std::string& path) { return arm + "@" + path; }

struct RealClaim {
  ReproductionMetric m;
  std::string treatment, baseline;  // side keys; baseline empty for a claim against a bound
  std::string t_arm, b_arm;
};

// The committed reproductions of the default profile that spend seeds, with their claims' sides.
struct RealStage {
  Reproduction r;
  std::vector<RealClaim> claims;
};

std::vector<RealStage> real_layout(std::size_t& family) {
  ReportConfig cfg;
  cfg.profile = "default";
  cfg.reproductions = std::string(DMLBENCH_SOURCE_DIR) + "/experiments/reproductions";
  cfg.source_dir = DMLBENCH_SOURCE_DIR;
  const auto repros = report_reproductions(cfg);
  family = planned_family_size(repros);
  std::vector<RealStage> out;
  for (const auto& r : repros) {
    if (!r.profiles.at("default").has_looks()) continue;
    RealStage s{r, {}};
    for (const auto& m : r.metrics) {
      if (m.claim.empty() || m.direction.empty()) continue;
      RealClaim c{m, "", "", m.treatment_arm.empty() ? r.treatment : m.treatment_arm, ""};
      c.treatment = side_key(c.t_arm, m.treatment_path.empty() ? m.path : m.treatment_path);
      if (!m.bound) {
        c.b_arm = m.baseline_arm.empty() ? r.baseline : m.baseline_arm;
        c.baseline = side_key(c.b_arm, m.baseline_path.empty() ? m.path : m.baseline_path);
      }
      s.claims.push_back(c);
    }
    if (!s.claims.empty()) out.push_back(s);
  }
  return out;
}

// A claim's statistics at the arms' present seeds, from the simulated per-seed values of its sides.
json real_statistics(const RealClaim& c, const std::map<std::string, std::vector<double>>& v, const SeedPlan& now,
                     double alpha) {
  ClaimSides s;
  const int nt = now.of(c.t_arm);
  s.treatment.assign(v.at(c.treatment).begin(), v.at(c.treatment).begin() + nt);
  for (int k = 1; k <= nt; ++k) s.treatment_seeds.push_back(std::uint64_t(k));
  if (c.baseline.empty()) {
    s.bound = *c.m.bound;
  } else {
    const int nb = now.of(c.b_arm);
    s.baseline = std::vector<double>(v.at(c.baseline).begin(), v.at(c.baseline).begin() + nb);
    for (int k = 1; k <= nb; ++k) s.baseline_seeds.push_back(std::uint64_t(k));
  }
  s.paper_sign = c.m.direction == "increase" ? 1 : -1;
  s.alpha = alpha;
  s.delta = c.m.smallest_effect.value_or(1.0);
  s.delta_reason = "a simulation";
  s.estimand = claim_estimand_named(c.m.estimand);
  s.estimand_reason = "a simulation";
  s.range = c.m.range;
  return claim_statistics(s);
}

// One simulated report on the real layout under the global null: every side's per-seed values are drawn so that
// each claim is null for its estimand (Gaussian sides equal in mean, or a typical seed's values at the bound half the
// time). Returns the ids decided.
std::vector<std::string> decided_on_real_layout(const std::vector<RealStage>& layout, std::size_t family,
                                                const std::map<std::string, ClaimScope>& scopes,
                                                std::mt19937_64& rng, double shift = 0) {
  std::vector<ClaimRow> rows;
  std::map<std::string, json> summaries;
  std::vector<Stage> stages;
  for (const auto& st : layout) {
    const auto& prof = st.r.profiles.at("default");
    std::map<std::string, std::vector<double>> v;
    for (const auto& c : st.claims)
      for (const auto* key : {&c.treatment, &c.baseline}) {
        if (key->empty() || v.count(*key)) continue;
        auto& x = v[*key];
        const bool typical = c.m.estimand == "typical seed";
        // the control's effect: a treatment side moved to the claim's side by `shift` (in sd)
        const double bound = c.m.bound.value_or(0.0) +
                             (key == &c.treatment ? (c.m.direction == "increase" ? shift : -shift) : 0.0);
        for (int k = 0; k < prof.cap(); ++k) {
          double y = typical ? bound + (std::bernoulli_distribution(0.5)(rng) ? -1 : 1) *
                                           std::uniform_real_distribution<double>(0.01, 1)(rng)
                             : bound + std::normal_distribution<double>(0, 1)(rng);
          if (c.m.range) y = std::clamp(y, c.m.range->first, c.m.range->second);  // a share stays a share
          x.push_back(y);
        }
      }
    Stage stage;
    stage.name = st.r.stage;
    stage.spending = SeedSpending{prof.seeds, prof.cap(), family, st.r.alpha,
                                  planned_selected("bh", family, prof.planned_selected_share), claim_arms(st.r),
                                  prof.g};  // the design file's looks
    SeedPlan now{prof.seeds, {}};
    const auto summary = [&] {
      std::vector<json> rs;
      for (const auto& c : st.claims)
        rs.push_back({{"claim", c.m.claim}, {"statistics", real_statistics(c, v, now, st.r.alpha)}});
      return summary_of(rs);
    };
    spend_seeds(*stage.spending, summary, [&](const SeedPlan& p) { now = p; });
    summaries[stage.name] = summary();
    for (const auto& r : summaries[stage.name]["variants"][0]["rows"]) {
      ClaimRow row;
      row.id = r["claim"].get<std::string>();
      row.statistics = r["statistics"];
      if (scopes.count(row.id)) row.scope = scopes.at(row.id);
      rows.push_back(row);
    }
    stages.push_back(stage);
  }
  read_claims_at_their_stops(rows, summaries, stages);
  decide_training_claims(rows, PAdjustment::benjamini_hochberg, false);
  std::vector<std::string> decided;
  for (const auto& r : rows)
    if (r.verdict != "inconclusive" && r.verdict != "not-reproduced") decided.push_back(r.id);
  return decided;
}

}  // namespace

// The committed reproductions themselves: their stages, arms shared between claims (read from the files by
// claim_arms), each claim's estimand, seeds and cap, both decision families (the papers' own rows and the extensions,
// from the committed scope files) and e-BH, under the global null. Shared arms make claims dependent; e-BH on
// e-values holds under any dependence. A claim whose interval lies inside +-delta (not-reproduced) is no false
// discovery of an effect and is not counted.
TEST_CASE("report design: the committed reproductions' own layout (stages, shared arms, estimands, both families) "
          "keeps the false discovery rate and each claim's error under alpha under the global null",
          "[experiments][report_design]") {
  std::size_t family = 0;
  const auto layout = real_layout(family);
  REQUIRE(layout.size() >= 8);
  std::size_t claims = 0;
  for (const auto& s : layout) claims += s.claims.size();
  REQUIRE(claims >= 60);
  const auto scopes = read_claim_scopes(DMLBENCH_SOURCE_DIR);
  constexpr int kReps = 700;  // alpha + 3 SE = 0.0743 < 1.5 alpha = 0.075
  std::mt19937_64 rng(71);
  int any = 0;
  std::map<std::string, int> per_claim;
  for (int r = 0; r < kReps; ++r) {
    const auto d = decided_on_real_layout(layout, family, scopes, rng);
    any += !d.empty();
    for (const auto& id : d) ++per_claim[id];
  }
  INFO("real layout, " << claims << " claims in " << layout.size() << " stages: FDR " << any / double(kReps));
  CHECK(any / double(kReps) <= kAlpha + three_se(kReps));
  int worst = 0;
  for (const auto& [id, n] : per_claim) worst = std::max(worst, n);
  INFO("the most often decided claim: " << worst << " of " << kReps);
  CHECK(worst / double(kReps) <= kAlpha + three_se(kReps));
  // the control that the layout can decide: every treatment side moved 3 sd to its claim's side
  std::size_t found = 0;
  for (int r = 0; r < 20; ++r) found += decided_on_real_layout(layout, family, scopes, rng, 3).size();
  INFO("with an effect of 3 sd on every claim: " << found / 20.0 << " of " << claims << " decided on average");
  CHECK(found / 20.0 >= claims / 2.0);
}
