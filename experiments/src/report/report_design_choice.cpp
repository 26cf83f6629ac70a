// The report's design constants chosen by simulation on synthetic effects through the report's per-claim code.
#include "dmlbench/experiments/report_design_choice.hpp"

#include "dmlbench/experiments/anytime_prior_variance.hpp"
#include "dmlbench/experiments/claim_test.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

namespace {

void check(const DesignCandidate& d, const SyntheticFamily& f, int reports) {
  if (d.first_look < 2 || d.cap < d.first_look)
    throw std::invalid_argument("a design needs 2 <= first look <= cap, got " + std::to_string(d.first_look) + ", " +
                                std::to_string(d.cap));
  if (!(d.planned_selected_share > 0 && d.planned_selected_share <= 1))
    throw std::invalid_argument("a design's planned share must lie in (0, 1]");
  if (f.claims < 1 || !(f.null_share >= 0 && f.null_share <= 1) || !(f.effect_low > 0 && f.effect_high >= f.effect_low) ||
      !(f.typical_share >= 0 && f.typical_share <= 1))
    throw std::invalid_argument("a synthetic family needs claims >= 1, null and typical shares in [0, 1] and 0 < low "
                                "<= high");
  if (reports < 1) throw std::invalid_argument("simulate at least one report");
}

// One claim's per-seed values to the cap, its true effect (0: null) returned through `effect`.
std::vector<double> draw_claim(const SyntheticFamily& f, std::size_t index, int cap, std::mt19937_64& rng,
                               double& effect) {
  effect = 0;
  if (double(index) >= f.null_share * double(f.claims)) {
    const double u = std::uniform_real_distribution<double>(std::log(f.effect_low), std::log(f.effect_high))(rng);
    effect = (std::bernoulli_distribution(0.5)(rng) ? 1 : -1) * std::exp(u);
  }
  std::normal_distribution<double> noise(effect, 1);
  std::vector<double> x(std::size_t(cap), 0.0);
  for (auto& v : x) v = noise(rng);
  return x;
}

}  // namespace

DesignPerformance simulate_design(const DesignCandidate& d, const SyntheticFamily& f, double alpha, int reports,
                                  std::uint64_t seed) {
  check(d, f, reports);
  DesignPerformance p{d, minimax_anytime_g(alpha * d.planned_selected_share, std::size_t(d.first_look),
                                           std::size_t(d.cap)), 0, 0, 0, reports};
  const std::size_t m = f.claims;
  const std::size_t planned = std::max<std::size_t>(1, std::size_t(std::lround(d.planned_selected_share * double(m))));
  std::mt19937_64 rng(seed);
  for (int r = 0; r < reports; ++r) {
    std::vector<ClaimTestInput> at_stop(m);
    std::vector<double> effect(m), e(m);
    for (std::size_t c = 0; c < m; ++c) {
      ClaimTestInput in;
      in.differences = draw_claim(f, c, d.cap, rng, effect[c]);
      // the typical-seed claims spread over null and non-null claims alike: every k-th claim
      if (f.typical_share > 0 && double((c * 7919) % m) < f.typical_share * double(m))
        in.estimand = ClaimEstimand::typical_seed;
      in.level = alpha * double(planned) / double(m);  // the looks' level (report_seed_spending.hpp)
      in.alpha = alpha;
      in.g = p.g;
      in.differences.resize(claim_stop(in, std::size_t(d.first_look), std::size_t(d.cap)));
      p.seeds += double(in.differences.size());
      const double log_e = claim_log_e_value(in);
      e[c] = std::isnan(log_e) ? 0.0 : std::exp(log_e);
      at_stop[c] = in;
    }
    const double level = alpha * double(std::max<std::size_t>(e_bh_selected(e, alpha), 1)) / double(m);
    std::size_t decided = 0, wrong = 0;
    for (std::size_t c = 0; c < m; ++c) {
      at_stop[c].level = level;
      const auto o = decide_claim(at_stop[c]).outcome;
      if (o != TrainingOutcome::verified && o != TrainingOutcome::refuted) continue;
      ++decided;
      const bool right = effect[c] != 0 && ((o == TrainingOutcome::verified) == (effect[c] > 0));
      right ? void(p.found += 1) : void(++wrong);
    }
    p.false_discovery_rate += double(wrong) / double(std::max<std::size_t>(decided, 1));
  }
  p.found /= reports;
  p.false_discovery_rate /= reports;
  p.seeds /= double(reports) * double(m);
  return p;
}

DesignPerformance average_performance(const std::vector<DesignPerformance>& scenarios) {
  if (scenarios.empty()) throw std::invalid_argument("average over at least one scenario");
  DesignPerformance a = scenarios.front();
  a.found = a.false_discovery_rate = a.seeds = 0;
  a.reports = 0;
  for (const auto& s : scenarios) {
    a.found += s.found / double(scenarios.size());
    a.false_discovery_rate += s.false_discovery_rate / double(scenarios.size());
    a.seeds += s.seeds / double(scenarios.size());
    a.reports += s.reports;
  }
  return a;
}

std::size_t chosen_design(const std::vector<DesignPerformance>& averaged, double keep) {
  if (averaged.empty()) throw std::invalid_argument("no candidate designs to choose from");
  if (!(keep > 0 && keep <= 1)) throw std::invalid_argument("keep must lie in (0, 1]");
  double best = 0;
  for (const auto& p : averaged) best = std::max(best, p.found);
  std::size_t at = averaged.size();
  for (std::size_t i = 0; i < averaged.size(); ++i)
    if (averaged[i].found >= keep * best &&
        (at == averaged.size() || averaged[i].seeds < averaged[at].seeds ||
         (averaged[i].seeds == averaged[at].seeds && averaged[i].found > averaged[at].found)))
      at = i;
  return at;
}

}  // namespace dmlbench::experiments
