// A training claim's statistics as JSON: per-seed differences decided by the anytime-valid
// t-test's confidence sequence at alpha / family size.
#include "dmlbench/experiments/claim_statistics.hpp"

#include "dmlbench/experiments/anytime_power.hpp"
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/bootstrap_recurrence.hpp"
#include "dmlbench/experiments/training_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json side_json(const SampleSummary& s) { return {{"mean", s.mean}, {"sd", s.sd}, {"n", s.n}}; }

std::string seeds_status_name(SeedsNeeded::Status s) {
  switch (s) {
    case SeedsNeeded::found: return "found";
    case SeedsNeeded::beyond_cap: return "beyond_cap";
    case SeedsNeeded::no_spread: return "no_spread";
    case SeedsNeeded::no_effect: return "no_effect";
  }
  return "found";
}

std::vector<std::uint64_t> seeds_or_order(const std::vector<std::uint64_t>& seeds, std::size_t n) {
  if (seeds.empty()) {
    std::vector<std::uint64_t> s(n);
    for (std::size_t k = 0; k < n; ++k) s[k] = k;
    return s;
  }
  if (seeds.size() != n)
    throw std::invalid_argument("a side names " + std::to_string(seeds.size()) + " seeds for " + std::to_string(n) +
                                " values");
  return seeds;
}

// The per-seed differences: treatment - baseline for the seeds both arms have (in seed order), or value - bound.
json per_seed(const ClaimSides& in) {
  const auto ts = seeds_or_order(in.treatment_seeds, in.treatment.size());
  std::map<std::uint64_t, double> d;
  if (in.bound) {
    for (std::size_t k = 0; k < ts.size(); ++k) d[ts[k]] = in.treatment[k] - *in.bound;
  } else {
    const auto bs = seeds_or_order(in.baseline_seeds, in.baseline->size());
    std::map<std::uint64_t, double> base;
    for (std::size_t k = 0; k < bs.size(); ++k) base[bs[k]] = (*in.baseline)[k];
    for (std::size_t k = 0; k < ts.size(); ++k)
      if (base.count(ts[k])) d[ts[k]] = in.treatment[k] - base[ts[k]];
  }
  json seeds = json::array(), values = json::array();
  std::vector<double> x;
  for (const auto& [seed, v] : d) {
    if (!std::isfinite(v)) throw std::invalid_argument("seed " + std::to_string(seed) + "'s difference is not finite");
    seeds.push_back(seed);
    values.push_back(v);
    x.push_back(v);
  }
  json p = {{"pairing", in.bound ? "against the bound" : "by seed"}, {"seeds", seeds}, {"differences", values}};
  const SampleSummary s = x.empty() ? SampleSummary{} : summarize(x);
  p["mean"] = x.empty() ? json(nullptr) : json(s.mean);
  p["sd"] = x.size() < 2 ? json(nullptr) : json(s.sd);
  p["n"] = x.size();
  return p;
}

// The arms' own t-test at this one look (Welch, or one sample against the bound): a description.
json single_look(const ClaimSides& in) {
  const SampleSummary t = summarize(in.treatment);
  const TComparison c = in.bound ? one_sample_difference(t, *in.bound, in.alpha)
                                 : welch_difference(t, summarize(*in.baseline), in.alpha);
  return {{"p", number_or_null(c.p)}, {"t", number_or_null(c.t)}, {"df", number_or_null(c.df)}};
}

PaperPosition position_of(const json& s, const AnytimeInterval& i) {
  if (!s.at("paper_difference").is_number() || !i.testable()) return PaperPosition::none;
  const double paper = s["paper_difference"].get<double>();
  if (paper < i.low) return PaperPosition::below;
  if (paper > i.high) return PaperPosition::above;
  return PaperPosition::inside;
}

double effect_of(const json& s) {
  return s.at("paper_difference").is_number() ? std::abs(s["paper_difference"].get<double>())
                                              : s.at("smallest_effect").get<double>();
}

// The power at the level: the seeds that decide the effect to detect, and the effect the present seeds decide.
void put_power(json& s, const AnytimeDecision& d, double sd) {
  const double effect = effect_of(s);
  const SeedsNeeded need = anytime_seeds_needed(effect, sd, d.level, claim_power, claim_seeds_cap);
  s["power"] = claim_power;
  s["mde"] = number_or_null(anytime_minimum_detectable_effect(sd, d.interval.n, d.level, claim_power));
  s["effect_to_detect"] = effect;
  s["seeds_needed"] = need.status == SeedsNeeded::found ? json(need.n) : json(nullptr);
  s["seeds_needed_status"] = seeds_status_name(need.status);
}

}  // namespace

bool claim_statistics_testable(const json& s) {
  return s.contains("per_seed") && s["per_seed"].value("n", std::size_t(0)) >= 2;
}

namespace {

AnytimeClaimInput anytime_input(const json& s) {
  const json& p = s.at("per_seed");
  AnytimeClaimInput in;
  in.differences = {p.at("mean").get<double>(), p.at("sd").get<double>(), p.at("n").get<std::size_t>()};
  in.paper_sign = s.at("paper_sign").get<int>();
  in.delta = s.at("smallest_effect").get<double>();
  in.alpha = s.at("alpha").get<double>();
  return in;
}

void check_family(const ClaimFamily& family) {
  if (family.size == 0) throw std::invalid_argument("a claim's family must hold at least 1 claim, got 0");
  if (family.selected > family.size)
    throw std::invalid_argument("e-BH cannot select " + std::to_string(family.selected) + " of a family of " +
                                std::to_string(family.size));
}

// The claim's input at its family's level: alpha / m (Bonferroni) or alpha R / m (e-BH), its own family_size 1.
AnytimeClaimInput family_input(const json& s, const ClaimFamily& family) {
  check_family(family);
  AnytimeClaimInput in = anytime_input(s);
  in.alpha = family.level(in.alpha);
  return in;
}

}  // namespace

AnytimeDecision claim_decision(const json& statistics, const ClaimFamily& family) {
  if (!claim_statistics_testable(statistics))
    throw std::invalid_argument("a claim without per-seed differences of at least 2 seeds has no decision");
  return anytime_claim_outcome(family_input(statistics, family));
}

double claim_e_value(const json& s) {
  if (!claim_statistics_testable(s)) return NAN;
  const AnytimeClaimInput in = anytime_input(s);
  return anytime_t_e_value(in.differences, 0.0, in.g);
}

json claim_statistics_decided(const json& statistics, const ClaimFamily& family) {
  check_family(family);
  if (!claim_statistics_testable(statistics)) return statistics;
  json s = statistics;
  const AnytimeClaimInput in = family_input(s, family);
  const AnytimeDecision d = anytime_claim_outcome(in);  // at the family's level (its family_size 1: the level is set)
  s["decision"] = {{"rule", "anytime-valid t (normal prior g on the standardized effect, right-Haar on the spread)"},
                   {"g", in.g}, {"family_size", family.size},
                   {"family_rule", family.selected > 0 ? "e-BH" : "Bonferroni"}, {"selected", family.selected},
                   {"level", d.level},
                   {"multiplier", number_or_null(d.interval.multiplier)}, {"t", number_or_null(d.t)},
                   {"e_value", number_or_null(d.e_value)}, {"log_e_value", number_or_null(d.log_e_value)}};
  s["difference"] = in.differences.mean;
  s["ci_low"] = number_or_null(d.interval.low);
  s["ci_high"] = number_or_null(d.interval.high);
  put_power(s, d, in.differences.sd);
  s["paper_position"] = paper_position_name(position_of(s, d.interval));
  s["outcome"] = training_outcome_name(d.outcome);
  s["outcome_reason"] = d.reason;
  s.erase("recurrence");
  if (d.outcome != TrainingOutcome::inconclusive) {  // how often the seeds resampled decide the same
    const Recurrence r = bootstrap_recurrence(s["per_seed"]["differences"].get<std::vector<double>>(), in, d.outcome);
    s["recurrence"] = {{"bootstrap", {{"resamples", r.resamples}, {"seed", r.seed}, {"same", r.same},
                                      {"undecided", r.undecided}, {"flipped", r.flipped}}}};
  }
  return s;
}

json claim_statistics(const ClaimSides& in) {
  if (in.baseline.has_value() == in.bound.has_value())
    throw std::invalid_argument("a training claim compares its treatment with exactly one of a baseline or a bound");
  if (in.paper_sign != 1 && in.paper_sign != -1)
    throw std::invalid_argument("the paper's direction must be +1 or -1, got " + std::to_string(in.paper_sign));
  json s = {{"test", in.baseline ? "welch" : "one-sample"}, {"unit", "seed"}, {"alpha", in.alpha},
            {"paper_sign", in.paper_sign}};
  s["smallest_effect"] = in.delta;
  s["smallest_effect_reason"] = in.delta_reason;
  s["paper_difference"] = in.paper_difference ? json(*in.paper_difference) : json(nullptr);
  if (in.treatment.empty() || (in.baseline && in.baseline->empty())) {
    s["outcome"] = "inconclusive";
    s["outcome_reason"] = "no values: no run of a side has this metric, so there is nothing to test";
    return s;
  }
  s["treatment"] = side_json(summarize(in.treatment));
  if (in.baseline) s["baseline"] = side_json(summarize(*in.baseline));
  else s["bound"] = *in.bound;
  s["per_seed"] = per_seed(in);
  if (in.treatment.size() >= 2 && (!in.baseline || in.baseline->size() >= 2)) s["single_look"] = single_look(in);
  if (!claim_statistics_testable(s)) {
    s["outcome"] = "inconclusive";
    s["outcome_reason"] = s["per_seed"]["n"] == 0 ? "no paired seeds: the arms share no seed, so there is nothing to test"
                                                   : "1 seed: no test with fewer than two seeds";
    return s;
  }
  return claim_statistics_decided(s, ClaimFamily{});
}

std::string claim_level_text(const json& s) {
  if (!s.contains("decision")) return "";
  const json& d = s["decision"];
  std::ostringstream o;
  o.precision(2);
  const auto m = d.at("family_size").get<std::size_t>(), r = d.value("selected", std::size_t(0));
  o << "level " << s.value("alpha", 0.05);
  if (r > 0) o << " x " << r << " / " << m << " (e-BH) = " << d.at("level").get<double>();
  else if (m > 1) o << " / " << m << " (Bonferroni) = " << d.at("level").get<double>();
  return o.str();
}

std::string claim_rule_text(const json& s) {
  if (!s.contains("decision") || !s.contains("per_seed")) return "";
  std::ostringstream o;
  o << "decided by the bench, not the paper: the " << s["per_seed"].value("n", std::size_t(0)) << " per-seed "
    << (s.contains("bound") ? "values minus the bound" : "differences (treatment - baseline, paired by seed)")
    << " in the anytime-valid interval (e-value of the one-sample t, g = " << s["decision"].value("g", 1.0) << ") at "
    << claim_level_text(s) << "; verified or refuted: the interval on one side of 0; not-reproduced: inside +-delta ("
    << s.value("smallest_effect_reason", std::string("delta")) << "); else inconclusive";
  return o.str();
}

}  // namespace dmlbench::experiments
