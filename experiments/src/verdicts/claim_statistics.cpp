// A training claim's statistics as JSON: per-seed differences decided by the test of the claim's estimand at
// alpha / family size (claim_test.hpp), read at the claim's own stop in the report's design.
#include "dmlbench/experiments/claim_statistics.hpp"

#include "dmlbench/experiments/claim_design_power.hpp"
#include "dmlbench/experiments/training_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json side_json(const SampleSummary& s) { return {{"mean", s.mean}, {"sd", s.sd}, {"n", s.n}}; }

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

// "per_seed" of the differences (seed order): their seeds, values, mean, sd and count.
json per_seed_json(const std::string& pairing, const std::map<std::uint64_t, double>& d) {
  json seeds = json::array(), values = json::array();
  std::vector<double> x;
  for (const auto& [seed, v] : d) {
    if (!std::isfinite(v)) throw std::invalid_argument("seed " + std::to_string(seed) + "'s difference is not finite");
    seeds.push_back(seed);
    values.push_back(v);
    x.push_back(v);
  }
  json p = {{"pairing", pairing}, {"seeds", seeds}, {"differences", values}};
  const SampleSummary s = x.empty() ? SampleSummary{} : summarize(x);
  p["mean"] = x.empty() ? json(nullptr) : json(s.mean);
  p["sd"] = x.size() < 2 ? json(nullptr) : json(s.sd);
  p["n"] = x.size();
  return p;
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
  return per_seed_json(in.bound ? "against the bound" : "by seed", d);
}

// "estimand": its kind, the differences' range (value range - bound, or the span of two values in it), its reason.
json estimand_json(const ClaimSides& in) {
  json e = {{"kind", claim_estimand_name(in.estimand)}, {"range", nullptr}, {"reason", in.estimand_reason}};
  if (in.estimand != ClaimEstimand::mean && in.estimand_reason.empty())
    throw std::invalid_argument("the estimand " + claim_estimand_name(in.estimand) + " needs its reason");
  if (in.range) {
    const double lo = in.range->first, hi = in.range->second;
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi))
      throw std::invalid_argument("a range needs finite lo < hi");
    auto check = [&](const std::vector<double>& v, const char* side) {
      for (const double x : v)
        if (!(x >= lo && x <= hi))
          throw std::invalid_argument(std::string("a ") + side + " value (" + std::to_string(x) +
                                      ") lies outside the stated range [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "]");
    };
    check(in.treatment, "treatment");
    if (in.baseline) check(*in.baseline, "baseline");
    const double dlo = in.bound ? lo - *in.bound : lo - hi, dhi = in.bound ? hi - *in.bound : hi - lo;
    if (in.estimand == ClaimEstimand::bounded_mean && !(dlo < 0 && 0 < dhi))
      throw std::invalid_argument("a bounded mean against a bound needs the bound inside the range");
    e["range"] = {dlo, dhi};
  } else if (in.estimand == ClaimEstimand::bounded_mean) {
    throw std::invalid_argument("a bounded mean needs the range of its values");
  }
  return e;
}

PaperPosition position_of(const json& s, const ClaimDecision& d) {
  if (!s.at("paper_difference").is_number() || !std::isfinite(d.low) || !std::isfinite(d.high))
    return PaperPosition::none;
  const double paper = s["paper_difference"].get<double>();
  if (paper < d.low) return PaperPosition::below;
  if (paper > d.high) return PaperPosition::above;
  return PaperPosition::inside;
}

void check_family(const ClaimFamily& family) {
  if (family.size == 0) throw std::invalid_argument("a claim's family must hold at least 1 claim, got 0");
  if (family.selected > family.size)
    throw std::invalid_argument("e-BH cannot select " + std::to_string(family.selected) + " of a family of " +
                                std::to_string(family.size));
}

ClaimEstimand estimand_of(const json& s) {
  return s.contains("estimand") ? claim_estimand_named(s["estimand"].at("kind").get<std::string>())
                                : ClaimEstimand::mean;
}

const char* rule_name(ClaimEstimand e) {
  switch (e) {
    case ClaimEstimand::bounded_mean: return "betting confidence sequence of a bounded mean (Waudby-Smith and Ramdas)";
    case ClaimEstimand::typical_seed: return "mixture e-process of the per-seed signs (a typical seed)";
    case ClaimEstimand::mean: break;
  }
  return "anytime-valid t (normal prior g on the standardized effect, right-Haar on the spread)";
}

json decision_json(const ClaimTestInput& in, const ClaimDecision& d, const ClaimFamily& family) {
  json j = {{"rule", rule_name(in.estimand)}, {"estimand", claim_estimand_name(in.estimand)}};
  if (in.estimand == ClaimEstimand::mean) j["g"] = in.g;
  j["family_size"] = family.size;
  j["family_rule"] = family.selected > 0 ? "e-BH" : "Bonferroni";
  j["selected"] = family.selected;
  j["level"] = d.level;
  j["multiplier"] = number_or_null(d.multiplier);
  j["t"] = number_or_null(d.t);
  j["paper_side"] = d.paper_side;
  j["other_side"] = d.other_side;
  j["e_value"] = number_or_null(std::exp(d.log_e_value));
  j["log_e_value"] = number_or_null(d.log_e_value);
  return j;
}

// The chance the claim's own design decides it by its cap, for an inconclusive mean with a stop on record.
void put_design_power(json& s, const ClaimTestInput& in) {
  s.erase("design_power");
  if (!s.contains("stop") || s.value("outcome", "") != "inconclusive") return;
  if (in.estimand == ClaimEstimand::typical_seed) {  // exact: the fewest seeds, all on one side, that decide
    s["design_power"] = {{"estimand", "typical seed"}, {"level", in.level},
                         {"fewest_seeds", typical_seed_fewest_deciding(in.level)},
                         {"cap", s["stop"].at("cap").get<std::size_t>()}};
    return;
  }
  if (in.estimand != ClaimEstimand::mean) return;
  const double sd = s["per_seed"]["sd"].is_number() ? s["per_seed"]["sd"].get<double>() : 0.0;
  if (!(sd > 0)) return;
  const json& st = s["stop"];
  const double effect = s.at("paper_difference").is_number() ? std::abs(s["paper_difference"].get<double>())
                                                             : s.at("smallest_effect").get<double>();
  if (!(effect > 0)) return;
  DesignPowerInput p;
  p.effect = effect;
  p.sd = sd;
  p.first = st.at("first").get<std::size_t>();
  p.cap = st.at("cap").get<std::size_t>();
  p.look_level = st.at("look_level").get<double>();
  p.level = in.level;
  p.g = in.g;
  s["design_power"] = {{"effect", effect}, {"sd", sd}, {"power", claim_design_power(p)}, {"replications", p.reps}};
}

bool non_inferiority(const json& s) { return s.value("reading", std::string("superiority")) == "non-inferiority"; }

// A decision of a non-inferiority claim back in the differences' own units (claim_test_input moved them by the
// margin, so that the margin sits at 0): its mean and interval moved back by the margin on the paper's side.
void move_back_by_margin(const json& s, ClaimDecision& d) {
  if (!non_inferiority(s)) return;
  const double back = s.at("paper_sign").get<int>() * s.at("smallest_effect").get<double>();
  d.mean -= back;
  d.low -= back;
  d.high -= back;
}

}  // namespace

bool claim_statistics_testable(const json& s) {
  return s.contains("per_seed") && s["per_seed"].value("n", std::size_t(0)) >= 2;
}

ClaimTestInput claim_test_input(const json& s, double level) {
  if (!claim_statistics_testable(s))
    throw std::invalid_argument("a claim without per-seed differences of at least 2 seeds has no test");
  ClaimTestInput in;
  in.differences = s["per_seed"].at("differences").get<std::vector<double>>();
  in.estimand = estimand_of(s);
  if (s.contains("estimand") && s["estimand"].at("range").is_array()) {
    in.lo = s["estimand"]["range"][0].get<double>();
    in.hi = s["estimand"]["range"][1].get<double>();
  }
  in.paper_sign = s.at("paper_sign").get<int>();
  in.delta = s.at("smallest_effect").get<double>();
  in.alpha = s.at("alpha").get<double>();
  in.level = level;
  in.g = s.value("g", default_anytime_g);  // the design's, where the object was read at a stop
  if (non_inferiority(s)) {  // the margin moved to 0: not worse by delta is the paper's side of 0
    for (double& d : in.differences) d += in.paper_sign * in.delta;
    if (in.estimand == ClaimEstimand::bounded_mean) {
      in.lo += in.paper_sign * in.delta;
      in.hi += in.paper_sign * in.delta;
    }
    in.delta = 0;
  }
  return in;
}

ClaimDecision claim_decision(const json& statistics, const ClaimFamily& family) {
  check_family(family);
  return decide_claim(claim_test_input(statistics, family.level(statistics.at("alpha").get<double>())));
}

double claim_e_value(const json& s) {
  if (!claim_statistics_testable(s)) return NAN;
  return std::exp(claim_log_e_value(claim_test_input(s, s.at("alpha").get<double>())));
}

json claim_statistics_at(const json& statistics, std::size_t seeds, const ClaimDesign& design) {
  if (!claim_statistics_testable(statistics)) throw std::invalid_argument("a claim without a test has no stop");
  const json& p = statistics["per_seed"];
  const std::size_t all = p.at("n").get<std::size_t>();
  if (seeds < 2 || seeds > all)
    throw std::invalid_argument("a claim of " + std::to_string(all) + " seeds cannot stop at " + std::to_string(seeds));
  std::map<std::uint64_t, double> d;
  for (std::size_t k = 0; k < seeds; ++k) d[p["seeds"][k].get<std::uint64_t>()] = p["differences"][k].get<double>();
  json s = statistics;
  s["per_seed"] = per_seed_json(p.value("pairing", ""), d);
  s["stop"] = {{"seeds", seeds}, {"of", all}, {"first", design.first}, {"cap", design.cap},
               {"look_level", design.look_level}};
  s["g"] = design.g;
  if (seeds < all) s["later_seeds"] = p;
  else s.erase("later_seeds");
  return s;
}

namespace {

// "2", "0.5", "1.25": a configured number as written (six significant digits at most).
std::string short_number(double x) {
  std::ostringstream o;
  o << std::setprecision(6) << x;
  return o.str();
}

// The seeds a decided claim's decision never saw (those after its stop): {"n", "seeds", "mean", "on_decided_side"
// (seeds whose difference lies strictly on the side the claim was decided on), "of_side" (+1 the paper's, -1 the
// other)}; null where the claim is undecided or no seed came after its stop.
json holdout_json(const json& s, const ClaimDecision& d) {
  const int side = d.outcome == TrainingOutcome::refuted ? -1
                   : d.outcome == TrainingOutcome::verified || d.outcome == TrainingOutcome::direction_only ? +1
                                                                                                              : 0;
  if (side == 0 || !s.contains("later_seeds")) return nullptr;
  std::set<std::uint64_t> seen;
  for (const auto& k : s["per_seed"]["seeds"]) seen.insert(k.get<std::uint64_t>());
  const json& later = s["later_seeds"];
  const int paper = s.at("paper_sign").get<int>();
  json seeds = json::array();
  double sum = 0;
  std::size_t on_side = 0;
  for (std::size_t k = 0; k < later["seeds"].size(); ++k) {
    const auto seed = later["seeds"][k].get<std::uint64_t>();
    if (seen.count(seed)) continue;
    const double x = later["differences"][k].get<double>();
    seeds.push_back(seed);
    sum += x;
    on_side += x * paper * side > 0;
  }
  if (seeds.empty()) return nullptr;
  return {{"n", seeds.size()}, {"seeds", seeds}, {"mean", sum / double(seeds.size())}, {"on_decided_side", on_side},
          {"of_side", side}};
}

}  // namespace

json claim_statistics_decided(const json& statistics, const ClaimFamily& family, bool with_design_power) {
  check_family(family);
  if (!claim_statistics_testable(statistics)) return statistics;
  json s = statistics;
  const ClaimTestInput in = claim_test_input(s, family.level(s.at("alpha").get<double>()));
  ClaimDecision d = decide_claim(in);
  move_back_by_margin(s, d);
  if (non_inferiority(s))
    d.reason = "non-inferiority by the margin delta = " + short_number(s.at("smallest_effect").get<double>()) +
               ": " + d.reason + " (the differences moved by the margin)";
  s["decision"] = decision_json(in, d, family);
  s["difference"] = d.mean;
  s["ci_low"] = number_or_null(d.low);
  s["ci_high"] = number_or_null(d.high);
  s["paper_position"] = paper_position_name(position_of(s, d));
  s["outcome"] = training_outcome_name(d.outcome);
  s["outcome_reason"] = d.reason;
  if (with_design_power && !non_inferiority(s)) put_design_power(s, in);  // its power is of a superiority design
  else s.erase("design_power");
  if (s.contains("later_seeds")) {  // every seed the arms have, read at the same level: a description
    json later = s;
    later["per_seed"] = s["later_seeds"];
    ClaimDecision r = decide_claim(claim_test_input(later, in.level));
    move_back_by_margin(s, r);
    s["re_read"] = {{"n", r.n}, {"difference", r.mean}, {"ci_low", number_or_null(r.low)},
                    {"ci_high", number_or_null(r.high)}, {"paper_side", r.paper_side}, {"other_side", r.other_side},
                    {"reading", training_outcome_name(r.outcome)}};
  } else {
    s.erase("re_read");
  }
  if (const json h = holdout_json(s, d); h.is_object()) s["holdout"] = h;
  else s.erase("holdout");
  return s;
}

json claim_statistics(const ClaimSides& in) {
  if (in.baseline.has_value() == in.bound.has_value())
    throw std::invalid_argument("a training claim compares its treatment with exactly one of a baseline or a bound");
  if (in.paper_sign != 1 && in.paper_sign != -1)
    throw std::invalid_argument("the paper's direction must be +1 or -1, got " + std::to_string(in.paper_sign));
  json s = {{"test", in.baseline ? "two arms" : "against a bound"}, {"unit", "seed"}, {"alpha", in.alpha},
            {"paper_sign", in.paper_sign}};
  s["estimand"] = estimand_json(in);
  if (in.reading != "superiority" && in.reading != "non-inferiority")
    throw std::invalid_argument("a claim's reading is superiority or non-inferiority, got \"" + in.reading + "\"");
  if (in.reading == "non-inferiority" && in.estimand == ClaimEstimand::typical_seed)
    throw std::invalid_argument("a typical seed has no non-inferiority reading (it has no margin)");
  if (in.reading == "non-inferiority" && !(in.delta > 0))
    throw std::invalid_argument("a non-inferiority reading needs its margin: smallest_effect > 0");
  s["reading"] = in.reading;
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
  const std::size_t n = s["per_seed"].value("n", std::size_t(0));
  const std::string what =
      s.contains("bound") ? "values minus the bound" : "differences (treatment - baseline, paired by seed)";
  o << "decided by the bench, not the paper: ";
  switch (estimand_of(s)) {
    case ClaimEstimand::typical_seed:
      o << "whether a typical seed (more than half) lies on the paper's side, from the signs of the " << n
        << " per-seed " << what << " (the mixture e-process of the signs, e-value the mean of the two sides') at "
        << claim_level_text(s) << "; verified or refuted: that e-value reaches 1/level with more seeds on that side; "
                                  "else inconclusive";
      return o.str();
    case ClaimEstimand::bounded_mean:
      o << "the mean of the " << n << " per-seed " << what
        << " in the betting confidence sequence of a bounded mean (no model but the values' range) at ";
      break;
    case ClaimEstimand::mean:
      o << "the mean of the " << n << " per-seed " << what << " in the anytime-valid interval (e-value of the "
        << "one-sample t, g = " << s["decision"].value("g", 1.0) << ") at ";
      break;
  }
  if (non_inferiority(s)) {
    o << claim_level_text(s) << "; a claim of likeness read as non-inferiority by the margin delta ("
      << s.value("smallest_effect_reason", std::string("delta")) << "): verified when the interval lies above -delta "
      << "on the paper's side, refuted when it lies beyond it; else inconclusive";
    return o.str();
  }
  o << claim_level_text(s) << "; verified or refuted: the interval on one side of 0 and reaching delta; "
    << "direction-only: on the paper's side and inside +-delta; not-reproduced: holding 0 inside +-delta ("
    << s.value("smallest_effect_reason", std::string("delta")) << "); else inconclusive";
  if (s.contains("stop"))
    o << "; read at the claim's own stop in the report's design (first look " << s["stop"].value("first", 0)
      << " seeds, cap " << s["stop"].value("cap", 0) << ")";
  return o.str();
}

}  // namespace dmlbench::experiments
