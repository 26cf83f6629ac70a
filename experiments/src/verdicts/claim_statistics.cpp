// A training claim's statistics as JSON (issue 27): the seeds' test at the raw p, and again at an adjusted p.
#include "dmlbench/experiments/claim_statistics.hpp"

#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "dmlbench/experiments/training_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json side_json(const SampleSummary& s) { return {{"mean", s.mean}, {"sd", s.sd}, {"n", s.n}}; }
SampleSummary side_of(const json& j) {
  return {j.at("mean").get<double>(), j.at("sd").get<double>(), j.at("n").get<std::size_t>()};
}

std::string seeds_status_name(SeedsNeeded::Status s) {
  switch (s) {
    case SeedsNeeded::found: return "found";
    case SeedsNeeded::beyond_cap: return "beyond_cap";
    case SeedsNeeded::no_spread: return "no_spread";
    case SeedsNeeded::no_effect: return "no_effect";
  }
  return "found";
}

// The outcome's input from the object's inputs (the sides' summaries, the bound, sign, alpha, delta, paper).
OutcomeInput input_of(const json& s, double p_decision) {
  OutcomeInput in;
  in.treatment = side_of(s.at("treatment"));
  if (s.contains("baseline")) in.baseline = side_of(s["baseline"]);
  if (s.contains("bound")) in.bound = s["bound"].get<double>();
  in.paper_sign = s.at("paper_sign").get<int>();
  in.alpha = s.at("alpha").get<double>();
  in.delta = s.at("smallest_effect").get<double>();
  if (s.at("paper_difference").is_number()) in.paper_difference = s["paper_difference"].get<double>();
  in.power = claim_power;
  in.p_adjusted = std::isfinite(p_decision) ? p_decision : 1.0;  // unused without spread
  return in;
}

// The results of training_outcome into the object.
void put_results(json& s, const OutcomeResult& r, double p_decision, double effect) {
  const TComparison& c = r.comparison;
  s["difference"] = c.difference;
  s["ci_low"] = number_or_null(c.ci_low);
  s["ci_high"] = number_or_null(c.ci_high);
  s["p"] = number_or_null(c.p);
  s["p_tost"] = number_or_null(r.equivalence.p_tost);
  s["power"] = claim_power;
  s["mde"] = number_or_null(r.minimum_detectable_effect);
  s["effect_to_detect"] = effect;
  s["seeds_needed"] = r.seeds_needed.status == SeedsNeeded::found ? json(r.seeds_needed.n) : json(nullptr);
  s["seeds_needed_status"] = seeds_status_name(r.seeds_needed.status);
  s["paper_position"] = paper_position_name(r.paper_position);
  s["p_decision"] = number_or_null(p_decision);
  s["outcome"] = training_outcome_name(r.outcome);
  s["outcome_reason"] = r.reason;
}

double effect_of(const json& s) {
  return s.at("paper_difference").is_number() ? std::abs(s["paper_difference"].get<double>())
                                              : s.at("smallest_effect").get<double>();
}

}  // namespace

json claim_statistics(const ClaimSides& in) {
  if (in.baseline.has_value() == in.bound.has_value())
    throw std::invalid_argument("a training claim compares its treatment with exactly one of a baseline or a bound");
  json s = {{"test", in.baseline ? "welch" : "one-sample"}, {"alpha", in.alpha}, {"paper_sign", in.paper_sign}};
  const std::size_t n = std::min(in.treatment.size(), in.baseline ? in.baseline->size() : in.treatment.size());
  s["smallest_effect"] = in.delta;
  s["smallest_effect_reason"] = in.delta_reason;
  s["paper_difference"] = in.paper_difference ? json(*in.paper_difference) : json(nullptr);
  if (n == 0) {
    s["outcome"] = "inconclusive";
    s["outcome_reason"] = "no values: no run of a side has this metric, so there is nothing to test";
    return s;
  }
  s["treatment"] = side_json(summarize(in.treatment));
  if (in.baseline) s["baseline"] = side_json(summarize(*in.baseline));
  else s["bound"] = *in.bound;
  if (n < 2) {
    s["outcome"] = "inconclusive";
    s["outcome_reason"] = "1 seed: no test with fewer than two seeds a side";
    return s;
  }
  const OutcomeResult raw = training_outcome(input_of(s, 1.0));  // the comparison's raw p, then decided at it
  const double p = raw.comparison.p;
  put_results(s, std::isfinite(p) ? training_outcome(input_of(s, p)) : raw, p, effect_of(s));
  return s;
}

json claim_statistics_adjusted(const json& statistics, double p_adjusted) {
  if (statistics.value("test", "") == "binomial") return count_claim_statistics_adjusted(statistics, p_adjusted);
  json s = statistics;
  if (!s.contains("p") || !s["p"].is_number()) return s;  // no test: nothing to adjust
  const OutcomeResult r = training_outcome(input_of(s, p_adjusted));
  put_results(s, r, p_adjusted, effect_of(s));
  s["p_adjusted"] = p_adjusted;
  return s;
}

}  // namespace dmlbench::experiments
