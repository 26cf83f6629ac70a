#include "dmlbench/experiments/reproduction.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "dmlbench/experiments/report_design.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <tuple>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = {"quick", "default", "full"};
  return names;
}

void check_profile_name(const std::string& name, const std::string& what) {
  const auto& names = profile_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw config_error(what + " must be " + list + ", got '" + name + "'");
}

namespace {

// {"key": value, ...} -> "key=value" overrides (strings as they are, the rest as JSON)
std::vector<std::string> overrides(const json& j, const std::string& where) {
  std::vector<std::string> out;
  if (j.is_null()) return out;
  if (!j.is_object()) throw config_error(where + " must be an object of config keys");
  for (auto it = j.begin(); it != j.end(); ++it)
    out.push_back(it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : it.value().dump()));
  return out;
}

double mean_of(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x;
  return m / double(v.size());
}
double sd_of(const std::vector<double>& v) {
  if (v.size() < 2) return NAN;
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

}  // namespace

std::vector<std::string> config_overrides(const json& j, const std::string& where) { return overrides(j, where); }
json mean_std_entry(const std::vector<double>& x) {
  const double sd = sd_of(x);
  return json{{"mean", x.empty() ? json(nullptr) : json(mean_of(x))},
              {"std", std::isfinite(sd) ? json(sd) : json(nullptr)}, {"seeds", x}};
}

std::optional<double> paper_difference(const Reproduction& r, const ReproductionMetric& m) {
  const std::string treat = m.treatment_arm.empty() ? r.treatment : m.treatment_arm,
                    base = m.bound ? std::string() : m.baseline_arm.empty() ? r.baseline : m.baseline_arm;
  for (const std::string* path : {&m.treatment_path, &m.baseline_path})  // the paper's numbers are at the metric's path
    if (!path->empty() && *path != m.path) return std::nullopt;
  if (!m.paper.count(treat)) return std::nullopt;
  if (m.bound) return m.paper.at(treat) - *m.bound;
  if (base.empty() || !m.paper.count(base)) return std::nullopt;
  return m.paper.at(treat) - m.paper.at(base);
}

std::pair<double, std::string> smallest_effect_of(const Reproduction& r, const ReproductionMetric& m) {
  if (m.smallest_effect) return {*m.smallest_effect, m.smallest_effect_reason};
  if (const auto d = paper_difference(r, m)) {
    std::ostringstream why;
    why << r.smallest_effect_fraction << " x |the paper's difference " << *d << "| (comparison.smallest_effect_fraction)";
    return {r.smallest_effect_fraction * std::abs(*d), why.str()};
  }
  throw config_error(r.file + ": claim " + m.claim + ": smallest_effect is missing: the paper prints no number for "
                     "this comparison, so the file states the smallest effect of interest (smallest_effect, with "
                     "smallest_effect_reason)");
}

Reproduction read_reproduction(const std::string& path, const std::string& repo_root) {
  return parse_reproduction(read_json_file(path, "the reproduction file"), path, repo_root);
}

namespace {

// The names of the arms, to check the names that refer to them.
std::set<std::string> arm_name_set(const std::vector<ReproductionArm>& arms) {
  std::set<std::string> names;
  for (const auto& a : arms) names.insert(a.name);
  return names;
}

// "arms": each with a unique name; an arm's init_from names an arm listed before it and replaces its starting weights.
std::vector<ReproductionArm> read_arms(const json& j, const std::string& w) {
  if (!j.contains("arms") || !j["arms"].is_array() || j["arms"].empty())
    throw config_error(w + ": \"arms\" must be a non-empty list");
  std::vector<ReproductionArm> arms;
  std::set<std::string> arm_names;
  for (const auto& a : j["arms"]) {
    check_only_keys(a, {"name", "label", "set", "init_from"}, w + ": arm");
    ReproductionArm arm{required_string(a, "name", w + ": arm"), a.value("label", ""),
                        overrides(a.value("set", json()), w + ": arm set"), a.value("init_from", "")};
    if (arm.label.empty()) arm.label = arm.name;
    if (!arm.init_from.empty()) {
      if (!arm_names.count(arm.init_from))
        throw config_error(w + ": arm " + arm.name + ": init_from names \"" + arm.init_from +
                           "\", which is not an arm listed before it");
      for (const auto& kv : arm.set)
        if (kv.rfind("model.init_run=", 0) == 0 || kv.rfind("model.pretrained=", 0) == 0)
          throw config_error(w + ": arm " + arm.name + ": init_from gives the starting weights; do not set " +
                             kv.substr(0, kv.find('=')));
    }
    if (!arm_names.insert(arm.name).second) throw config_error(w + ": arm " + arm.name + " listed twice");
    arms.push_back(arm);
  }
  return arms;
}

// "profiles": quick | default | full, each with its seeds, overrides, time estimate and jobs.
// A profile's "design": its first look's seeds, cap and e-BH's planned share read from the report's design file
// (report_design.hpp), which then is the one place they are written: the profile may not set them as well.
void read_profile_design(const json& v, const std::string& w, const std::string& repo_root, ReproductionProfile& p) {
  for (const char* key : {"seeds", "seeds_cap", "stopping"})
    if (v.contains(key))
      throw config_error(w + ": \"" + key + "\" and \"design\" both given: the design file sets the looks");
  if (!v["design"].is_string()) throw config_error(w + ": \"design\" must be a file name");
  const ReportDesign d = read_report_design(existing_config_file(v["design"].get<std::string>(), repo_root, w));
  p.seeds = d.first_look;
  p.seeds_cap = d.cap;
  p.planned_selected_share = d.planned_selected_share;
  p.design_alpha = d.alpha;
  p.g = d.g;
  p.design = v["design"].get<std::string>();
  p.design_text = d.text;
}

std::map<std::string, ReproductionProfile> read_profiles(const json& j, const std::string& w,
                                                         const std::string& repo_root) {
  if (!j.contains("profiles") || !j["profiles"].is_object()) throw config_error(w + ": \"profiles\" is required");
  std::map<std::string, ReproductionProfile> profiles;
  for (auto it = j["profiles"].begin(); it != j["profiles"].end(); ++it) {
    check_profile_name(it.key(), w + ": a profile");
    check_only_keys(it.value(), {"seeds", "set", "estimate_seconds", "jobs", "seeds_cap", "stopping", "design"},
                    w + ": profile " + it.key());
    ReproductionProfile p;
    if (it.value().contains("design")) {
      read_profile_design(it.value(), w + ": profile " + it.key(), repo_root, p);
    }
    p.seeds = it.value().value("seeds", p.seeds);
    if (p.seeds < 1) throw config_error(w + ": profile " + it.key() + ": seeds must be >= 1");
    p.set = overrides(it.value().value("set", json()), w + ": profile set");
    p.estimate_seconds = it.value().value("estimate_seconds", 60.0);
    p.jobs = it.value().value("jobs", 1);
    if (p.jobs < 1) throw config_error(w + ": profile " + it.key() + ": jobs must be >= 1");
    p.seeds_cap = it.value().value("seeds_cap", p.seeds_cap);
    if (it.value().contains("seeds_cap") && p.seeds_cap < p.seeds)
      throw config_error(w + ": profile " + it.key() + ": seeds_cap " + std::to_string(p.seeds_cap) +
                         " is below its seeds " + std::to_string(p.seeds) + " (the first look)");
    p.stopping = it.value().value("stopping", std::string("anytime"));
    if (p.stopping != "anytime")
      throw config_error(w + ": profile " + it.key() + ": stopping \"" + p.stopping + "\" is no rule the bench has "
                         "checked under repeated looks; the one it has: \"anytime\" (the anytime-valid interval)");
    profiles[it.key()] = p;
  }
  return profiles;
}

// "comparison": the baseline and treatment arms, the test, its alpha and the smallest effect's fraction, into r.
void read_comparison(const json& c, const std::string& w, const std::set<std::string>& arm_names, Reproduction& r) {
  check_only_keys(c, {"baseline", "treatment", "test", "alpha", "smallest_effect_fraction"}, w + ": comparison");
  r.baseline = required_string(c, "baseline", w + ": comparison");
  r.treatment = required_string(c, "treatment", w + ": comparison");
  const json test = c.value("test", json("welch"));
  if (test != "welch") throw config_error(w + ": comparison.test: unknown test " + test.dump() + " (the test is welch)");
  const json alpha = c.value("alpha", json(0.05));
  if (!alpha.is_number() || !(alpha.get<double>() > 0 && alpha.get<double>() < 1))
    throw config_error(w + ": comparison.alpha must lie in (0, 1), got " + alpha.dump());
  r.alpha = alpha.get<double>();
  const json fraction = c.value("smallest_effect_fraction", json(0.5));
  if (!fraction.is_number() || !(fraction.get<double>() > 0) || !std::isfinite(fraction.get<double>()))
    throw config_error(w + ": comparison.smallest_effect_fraction must be a number > 0, got " + fraction.dump());
  r.smallest_effect_fraction = fraction.get<double>();
  for (const auto& a : {r.baseline, r.treatment})
    if (!arm_names.count(a)) throw config_error(w + ": comparison names arm \"" + a + "\", which is not an arm");
}

// What a metric is read against: the file (for errors), its comparison's arms and the names of its arms.
struct MetricContext {
  const std::string& w;
  const Reproduction& r;
  const std::set<std::string>& arm_names;
};

// A metric's "compare": its own sides (arm and path each, defaulting to the comparison's arms and the metric's path),
// or a fixed bound in place of the baseline.
void read_metric_compare(const json& m, const MetricContext& c, ReproductionMetric& x) {
  const std::string cw = c.w + ": metric " + x.label + ": compare";
  check_only_keys(m["compare"], {"baseline", "treatment", "bound"}, cw);
  if (m["compare"].contains("bound")) {
    if (m["compare"].contains("baseline")) throw config_error(cw + ": a bound replaces the baseline; name one of them");
    if (!m["compare"]["bound"].is_number()) throw config_error(cw + ".bound must be a number");
    x.bound = m["compare"]["bound"].get<double>();
    if (m.value("direction", "").empty())
      throw config_error(cw + ": a bound needs a direction (increase: above it, decrease: below it)");
  }
  for (const char* side : {"baseline", "treatment"}) {
    if (x.bound && std::string(side) == "baseline") continue;
    const json& sj = m["compare"].value(side, json::object());
    check_only_keys(sj, {"arm", "path"}, cw + "." + side);
    std::string arm = sj.value("arm", std::string(side) == "baseline" ? c.r.baseline : c.r.treatment);
    if (!c.arm_names.count(arm)) throw config_error(cw + "." + side + " names arm \"" + arm + "\", which is not an arm");
    (std::string(side) == "baseline" ? x.baseline_arm : x.treatment_arm) = arm;
    (std::string(side) == "baseline" ? x.baseline_path : x.treatment_path) = sj.value("path", x.path);
  }
}

// A metric's "counts" (beside a bound): the path of its successes and the paths whose sum is its trials.
void read_metric_counts(const json& m, const std::string& w, ReproductionMetric& x) {
  const std::string cw = w + ": metric " + x.label + ": counts";
  const json& c = m["counts"];
  check_only_keys(c, {"successes", "trials", "unit", "unit_reason"}, cw);
  if (!x.bound) throw config_error(cw + ": counts test a share against a bound; add compare.bound");
  // the seed is the unit; the pooled counts are a description beside the per-seed shares
  if (c.value("unit", "") != "seed")
    throw config_error(cw + ": a share claim is tested on each seed's share (the metric's path): set \"unit\": \"seed\" "
                       "and say why in \"unit_reason\" (the counts pooled over the runs are a description only)");
  x.count_unit_reason = required_string(c, "unit_reason", cw);
  x.count_successes = required_string(c, "successes", cw);
  if (!c.contains("trials") || !c["trials"].is_array() || c["trials"].empty())
    throw config_error(cw + ".trials must be a non-empty list of paths whose sum is the number of trials");
  for (const auto& t : c["trials"]) {
    if (!t.is_string() || t.get<std::string>().empty()) throw config_error(cw + ".trials: every entry must be a path");
    x.count_trials.push_back(t.get<std::string>());
  }
  if (!(*x.bound >= 0 && *x.bound <= x.scale))
    throw config_error(cw + ": the bound must be a share of the scale, in [0, " + std::to_string(x.scale) + "]");
}

// A metric's smallest_effect (a number >= 0) and its reason (required beside it).
void read_smallest_effect(const json& m, const std::string& w, ReproductionMetric& x) {
  const std::string where = w + ": claim " + (x.claim.empty() ? x.label : x.claim) + ": ";
  if (m.contains("smallest_effect_reason") && !m.contains("smallest_effect"))
    throw config_error(where + "smallest_effect_reason without smallest_effect");
  if (!m.contains("smallest_effect")) return;
  const json& d = m["smallest_effect"];
  if (!d.is_number() || !(d.get<double>() >= 0) || !std::isfinite(d.get<double>()))
    throw config_error(where + "smallest_effect must be a number >= 0 (the smallest effect of interest, in the "
                               "metric's scaled units), got " + d.dump());
  x.smallest_effect = d.get<double>();
  x.smallest_effect_reason = m.value("smallest_effect_reason", "");
  if (x.smallest_effect_reason.empty())
    throw config_error(where + "smallest_effect needs a smallest_effect_reason (why this effect is the smallest of "
                               "interest)");
}

// A metric's estimand, its reason and its values' range (reproduction.hpp).
void read_estimand(const json& m, const std::string& w, ReproductionMetric& x) {
  const std::string where = w + ": claim " + (x.claim.empty() ? x.label : x.claim) + ": ";
  x.estimand = m.value("estimand", std::string("mean"));
  try {
    claim_estimand_named(x.estimand);
  } catch (const std::invalid_argument& e) {
    throw config_error(where + e.what());
  }
  x.estimand_reason = m.value("estimand_reason", "");
  if (x.estimand != "mean" && x.estimand_reason.empty())
    throw config_error(where + "estimand \"" + x.estimand + "\" needs an estimand_reason (what the claim judges, and why)");
  if (m.contains("range")) {
    const json& r = m["range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() ||
        !(r[0].get<double>() < r[1].get<double>()))
      throw config_error(where + "range must be [lo, hi] with lo < hi (every per-seed value's range), got " + r.dump());
    x.range = std::make_pair(r[0].get<double>(), r[1].get<double>());
  }
  if (x.estimand == "bounded mean" && !x.range)
    throw config_error(where + "a bounded mean needs \"range\": [lo, hi], the range of every per-seed value");
  x.reading = m.value("reading", std::string("superiority"));
  if (x.reading != "superiority" && x.reading != "non-inferiority")
    throw config_error(where + "reading must be superiority or non-inferiority (a claim of likeness), got \"" +
                       x.reading + "\"");
  if (x.reading == "non-inferiority" && (x.estimand == "typical seed" || !x.smallest_effect))
    throw config_error(where + "a non-inferiority reading needs a mean and its margin: smallest_effect with its reason");
  if (!x.count_successes.empty() && x.estimand == "mean")
    throw config_error(where + "a share (counts) is bounded and piles up at 0, which the t-test of a mean does not "
                               "model: set \"estimand\" to \"typical seed\" or \"bounded mean\" (with its range)");
}

// One entry of "metrics" or "diagnostics" (`key`): its label, path, paper values, sides and claimed direction (given,
// or the paper's treatment against its baseline).
ReproductionMetric read_metric(const json& m, const char* key, const MetricContext& c) {
  const std::string& w = c.w;
  check_only_keys(m, {"label", "path", "scale", "paper", "claim", "statement", "where", "direction", "in_variant_table",
                      "compare", "counts", "smallest_effect", "smallest_effect_reason", "estimand", "estimand_reason",
                      "range", "reading"},
                  w + ": " + key);
  ReproductionMetric x;
  x.label = required_string(m, "label", w + ": metric");
  x.path = required_string(m, "path", w + ": metric " + x.label);
  x.scale = m.value("scale", 1.0);
  x.claim = m.value("claim", "");
  x.statement = m.value("statement", "");
  x.where = m.value("where", "");
  if (m.contains("where") && x.where.empty())
    throw config_error(w + ": metric " + x.label + ": \"where\" must name the section, table or figure (or be left out)");
  x.in_variant_table = m.value("in_variant_table", false);
  if (m.contains("paper"))
    for (auto it = m["paper"].begin(); it != m["paper"].end(); ++it) {
      if (!c.arm_names.count(it.key()))
        throw config_error(w + ": metric " + x.label + ": paper value for \"" + it.key() + "\", not an arm");
      x.paper[it.key()] = it.value().get<double>();
    }
  if (m.contains("compare")) read_metric_compare(m, c, x);
  const std::string base_arm = x.baseline_arm.empty() ? c.r.baseline : x.baseline_arm,
                    treat_arm = x.treatment_arm.empty() ? c.r.treatment : x.treatment_arm;
  if (x.bound) x.baseline_arm.clear();
  x.direction = m.value("direction", "");
  if (x.direction.empty() && x.paper.count(base_arm) && x.paper.count(treat_arm))
    x.direction = x.paper[treat_arm] >= x.paper[base_arm] ? "increase" : "decrease";
  if (!x.direction.empty() && x.direction != "increase" && x.direction != "decrease")
    throw config_error(w + ": metric " + x.label + ": direction must be increase or decrease");
  if (m.contains("counts")) read_metric_counts(m, w, x);
  read_smallest_effect(m, w, x);
  read_estimand(m, w, x);
  if (!x.claim.empty()) smallest_effect_of(c.r, x);  // a claim without delta or a paper number: its error, now
  return x;
}

// The entries of "metrics" or "diagnostics" (none when the file has no `key`).
std::vector<ReproductionMetric> read_metrics(const json& j, const char* key, const MetricContext& c) {
  std::vector<ReproductionMetric> out;
  if (!j.contains(key)) return out;
  for (const auto& m : j[key]) out.push_back(read_metric(m, key, c));
  return out;
}

// "variants": each a name, what it changes and its overrides.
std::vector<ReproductionVariant> read_variants(const json& j, const std::string& w) {
  std::vector<ReproductionVariant> variants;
  if (j.contains("variants"))
    for (const auto& v : j["variants"]) {
      check_only_keys(v, {"name", "change", "set"}, w + ": variant");
      variants.push_back({required_string(v, "name", w + ": variant"), v.value("change", ""),
                          overrides(v.value("set", json()), w + ": variant set")});
    }
  return variants;
}

}  // namespace

namespace {

Reproduction reproduction_fields(const json& source, const std::string& path, const std::string& repo_root) {
  Reproduction r;
  r.source = source;
  const json& j = r.source;
  const std::string w = path;
  check_only_keys(j, {"id", "stage", "title", "paper", "where", "config", "set", "arms", "profiles", "comparison",
                      "metrics", "diagnostics", "variants", "claims", "compare_with", "note", "needs", "tuning"},
                  w);
  r.file = path;
  r.id = required_string(j, "id", w);
  r.stage = j.value("stage", r.id);
  r.title = required_string(j, "title", w);
  r.paper = required_string(j, "paper", w);
  r.where = j.value("where", "");
  r.config = existing_config_file(required_string(j, "config", w), repo_root, w);
  r.set = overrides(j.value("set", json()), w + ": set");
  r.arms = read_arms(j, w);
  const std::set<std::string> arm_names = arm_name_set(r.arms);
  r.profiles = read_profiles(j, w, repo_root);
  if (j.contains("comparison")) read_comparison(j["comparison"], w, arm_names, r);
  for (const auto& [name, p] : r.profiles)
    if (!p.design.empty() && p.design_alpha != r.alpha)
      throw config_error(w + ": profile " + name + ": its design " + p.design + " was made for alpha " +
                         std::to_string(p.design_alpha) + ", the comparison's alpha is " + std::to_string(r.alpha));
  const MetricContext metric_context{w, r, arm_names};
  r.metrics = read_metrics(j, "metrics", metric_context);
  r.diagnostics = read_metrics(j, "diagnostics", metric_context);
  r.variants = read_variants(j, w);
  r.claims = j.value("claims", true);
  r.compare_with = j.value("compare_with", "");
  r.needs = j.value("needs", "");
  return r;
}

}  // namespace

Reproduction parse_reproduction(const json& source, const std::string& path, const std::string& repo_root) {
  try {
    return reproduction_fields(source, path, repo_root);
  } catch (const json::exception& e) {  // a value of another type than the schema's (found by fuzzing)
    throw config_error(path + ": " + e.what());
  }
}

WelchResult welch_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchResult w;
  w.difference = mean_of(a) - mean_of(b);
  w.t = w.df = w.p = NAN;
  if (a.size() < 2 || b.size() < 2) return w;
  const double va = std::pow(sd_of(a), 2) / double(a.size()), vb = std::pow(sd_of(b), 2) / double(b.size());
  if (!(va + vb > 0)) return w;
  w.t = w.difference / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) / (va * va / double(a.size() - 1) + vb * vb / double(b.size() - 1));
  w.p = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(w.df), std::abs(w.t)));
  return w;
}

Verdict judge(const std::string& direction, const WelchResult& w, std::size_t na, std::size_t nb, double alpha) {
  Verdict v;
  v.direction_holds = direction == "increase" ? w.difference > 0 : w.difference < 0;
  if (na < 2 || nb < 2) {
    v.verdict = "not-reproducible";
    v.note = "n/a (1 seed): no significance test with fewer than two seeds per arm";
    return v;
  }
  if (!std::isfinite(w.p)) {
    v.verdict = "not-reproducible";
    v.note = "n/a (no spread): every seed gave the same value in both arms";
    return v;
  }
  std::ostringstream a;
  a << alpha;
  if (w.p < alpha) {
    v.verdict = v.direction_holds ? "verified" : "refuted";
  } else {
    v.verdict = "not-reproducible";
    v.note = "the difference is not significant at p < " + a.str() + " (direction " +
             (v.direction_holds ? "as" : "against") + " the paper)";
  }
  return v;
}

namespace {

// One side of a claim: its values and their seeds.
struct SeededValues {
  std::vector<double> values;
  std::vector<std::uint64_t> seeds;
};

// A variant's finished runs by arm, with the reproduction that reads them: each metric's values per arm.
struct VariantRuns {
  const Reproduction& r;
  const std::map<std::string, std::vector<json>>& runs;

  // The metric's values (times its scale) at `path` in the arm's runs, in seed order, with each run's "seed" (its
  // position in the arm where the runs carry none); a run where the metric is undefined is left out.
  SeededValues seeded(const ReproductionMetric& m, const std::string& arm, const std::string& path) const {
    SeededValues x;
    const auto it = runs.find(arm);  // an arm none of whose runs finished (a sweep's failed points) has no values
    if (it == runs.end()) return x;
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const json& metrics = it->second[i];
      try {
        x.values.push_back(m.scale * metric_at(metrics, path));
      } catch (const metric_undefined&) {
        // a run where the metric has no value (e.g. a share of moving dots when none moved): left out of the mean
        // and the test, so that the arm has fewer seeds there
        continue;
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(r.file + ": metric " + m.label + ": " + e.what() + " (arm " + arm + ")");
      }
      x.seeds.push_back(metrics.contains("seed") && metrics["seed"].is_number_unsigned()
                            ? metrics["seed"].get<std::uint64_t>()
                            : std::uint64_t(i));
    }
    return x;
  }

  std::vector<double> values(const ReproductionMetric& m, const std::string& arm, const std::string& path) const {
    return seeded(m, arm, path).values;
  }

  // The metric's counts (successes, trials) pooled over the arm's runs, and how many runs were pooled.
  CountSides pooled_counts(const ReproductionMetric& m, const std::string& arm) const {
    CountSides c;
    const auto it = runs.find(arm);
    if (it == runs.end()) return c;
    const auto count_at = [&](const json& metrics, const std::string& path) {
      const double v = metric_at(metrics, path);
      if (!(v >= 0) || v != std::floor(v))
        throw std::runtime_error(r.file + ": metric " + m.label + ": counts: " + path + " is not a count (arm " + arm +
                                 ")");
      return std::uint64_t(v);
    };
    for (const auto& metrics : it->second) {
      std::uint64_t n = 0;
      for (const auto& t : m.count_trials) n += count_at(metrics, t);
      c.successes += count_at(metrics, m.count_successes);
      c.trials += n;
      ++c.runs;
    }
    return c;  // more successes than trials: count_claim_statistics' error, named with the claim
  }
};

// Welch's test into a row: the difference (none where a side has no value), t, df and p (null where undefined).
void put_welch(json& row, const WelchResult& w) {
  if (std::isfinite(w.difference)) row["difference"] = w.difference;  // none where a side has no value
  row["welch_t"] = std::isfinite(w.t) ? json(w.t) : json(nullptr);
  row["df"] = std::isfinite(w.df) ? json(w.df) : json(nullptr);
  row["p_value"] = std::isfinite(w.p) ? json(w.p) : json(nullptr);
}

// A verdict into a row: whether the paper's direction holds, the verdict and its note (if any).
void put_verdict(json& row, const Verdict& verdict) {
  row["paper_direction_holds"] = verdict.direction_holds;
  row["verdict"] = verdict.verdict;
  if (!verdict.note.empty()) row["note"] = verdict.note;
}

// A claim metric's statistics (claim_statistics.hpp) into its row: the seeds of its sides (or the bound), the paper's
// direction and difference, delta; a metric without a claim or a direction has none.
void put_statistics(json& row, const Reproduction& r, const ReproductionMetric& m, const SeededValues& treatment,
                    const SeededValues* baseline) {
  if (m.claim.empty() || m.direction.empty()) return;
  ClaimSides sides;
  sides.treatment = treatment.values;
  sides.treatment_seeds = treatment.seeds;
  if (baseline) {
    sides.baseline = baseline->values;
    sides.baseline_seeds = baseline->seeds;
  } else {
    sides.bound = m.bound;
  }
  sides.paper_sign = m.direction == "increase" ? 1 : -1;
  sides.alpha = r.alpha;
  std::tie(sides.delta, sides.delta_reason) = smallest_effect_of(r, m);
  sides.paper_difference = paper_difference(r, m);
  sides.estimand = claim_estimand_named(m.estimand);
  sides.estimand_reason = m.estimand_reason;
  sides.range = m.range;
  sides.reading = m.reading;
  try {
    row["statistics"] = claim_statistics(sides);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(r.file + ": claim " + m.claim + ": " + e.what());
  }
}

// A share claim's pooled counts beside its per-seed statistics: the treatment arm's counts pooled over its runs and
// their share, a description with no test (the counted items are not independent trials).
void put_pooled_counts(json& row, const VariantRuns& v, const ReproductionMetric& m) {
  if (!row.contains("statistics")) return;
  CountSides sides = v.pooled_counts(m, m.treatment_arm);
  sides.bound = *m.bound;
  sides.scale = m.scale;
  sides.paper_sign = m.direction == "increase" ? 1 : -1;
  sides.alpha = v.r.alpha;
  std::tie(sides.delta, sides.delta_reason) = smallest_effect_of(v.r, m);
  try {
    const json counted = count_claim_statistics(sides);
    json pooled = {{"successes", counted["successes"]}, {"trials", counted["trials"]}, {"runs", counted["runs"]},
                   {"share", counted.value("share", json(nullptr))}, {"unit_reason", m.count_unit_reason}};
    row["statistics"]["pooled"] = pooled;
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(v.r.file + ": claim " + m.claim + ": " + e.what());
  }
}

// A metric's row: what it claims, and each arm's mean +- std over its seeds next to the paper's value.
json arms_row(const VariantRuns& v, const ReproductionMetric& m) {
  json row = {{"metric", m.label}, {"path", m.path}, {"claim", m.claim}, {"statement", m.statement},
              {"where", m.where.empty() ? v.r.where : m.where},
              {"direction", m.direction}, {"in_table", m.in_variant_table}, {"arms", json::object()}};
  for (const auto& a : v.r.arms) {
    json e = mean_std_entry(v.values(m, a.name, m.path));
    e["label"] = a.label;
    if (m.paper.count(a.name)) e["paper"] = m.paper.at(a.name);
    row["arms"][a.name] = e;
  }
  return row;
}

// The treatment side against a fixed number: a one-sample t-test (Welch's with a constant side) and its verdict.
void put_bound_test(json& row, const VariantRuns& v, const ReproductionMetric& m) {
  const SeededValues t = v.seeded(m, m.treatment_arm, m.treatment_path);
  const auto& ta = t.values;
  json e = mean_std_entry(ta);
  e["arm"] = m.treatment_arm;
  for (const auto& a : v.r.arms)
    if (a.name == m.treatment_arm) e["label"] = a.label;
  e["path"] = m.treatment_path;
  row["treatment"] = e;
  std::ostringstream b;
  b << *m.bound;
  row["baseline"] = {{"arm", "bound"}, {"label", "the bound " + b.str()}, {"path", ""}, {"mean", *m.bound},
                     {"std", 0.0}, {"seeds", json::array()}};
  const auto w = welch_test(ta, {*m.bound, *m.bound});
  put_welch(row, w);
  row["seeds_per_arm"] = ta.size();
  put_verdict(row, judge(m.direction, w, ta.size(), 2, v.r.alpha));  // seeds without spread: no test, as for arms
  put_statistics(row, v.r, m, t, nullptr);
  if (!m.count_successes.empty()) put_pooled_counts(row, v, m);
}

// The label of an arm (its name when the file has no such arm).
std::string arm_label(const Reproduction& r, const std::string& arm) {
  for (const auto& a : r.arms)
    if (a.name == arm) return a.label;
  return arm;
}

// A metric with its own sides: each side's arm, label, path and mean +- std.
void put_metric_sides(json& row, const VariantRuns& v, const ReproductionMetric& m) {
  for (const auto& [side, arm, path] : {std::tuple{"baseline", m.baseline_arm, m.baseline_path},
                                        std::tuple{"treatment", m.treatment_arm, m.treatment_path}}) {
    json e = mean_std_entry(v.values(m, arm, path));
    e["arm"] = arm;
    e["label"] = arm_label(v.r, arm);
    e["path"] = path;
    row[side] = e;
  }
}

// The treatment arm against the baseline arm (the metric's own, else the comparison's): Welch's test and, where the
// metric claims a direction, its verdict. Nothing without a baseline.
void put_arm_test(json& row, const VariantRuns& v, const ReproductionMetric& m) {
  const std::string base_arm = m.baseline_arm.empty() ? v.r.baseline : m.baseline_arm,
                    treat_arm = m.treatment_arm.empty() ? v.r.treatment : m.treatment_arm;
  if (base_arm.empty()) return;
  const SeededValues t = v.seeded(m, treat_arm, m.treatment_path.empty() ? m.path : m.treatment_path),
                     b = v.seeded(m, base_arm, m.baseline_path.empty() ? m.path : m.baseline_path);
  const auto w = welch_test(t.values, b.values);
  put_welch(row, w);
  row["seeds_per_arm"] = std::min(t.values.size(), b.values.size());
  if (!m.direction.empty()) put_verdict(row, judge(m.direction, w, t.values.size(), b.values.size(), v.r.alpha));
  put_statistics(row, v.r, m, t, &b);
}

}  // namespace

json summarize_variant(const Reproduction& r, const ReproductionVariant& v,
                       const std::map<std::string, std::vector<json>>& runs) {
  json out = {{"name", v.name}, {"change", v.change}, {"rows", json::array()}, {"diagnostics", json::array()}};
  const VariantRuns variant{r, runs};
  for (const auto& m : r.metrics) {
    json row = arms_row(variant, m);
    if (m.bound) {
      put_bound_test(row, variant, m);
    } else {
      if (!m.baseline_arm.empty()) put_metric_sides(row, variant, m);  // the metric's own sides
      put_arm_test(row, variant, m);
    }
    if (row.contains("statistics")) {  // a claim: its verdict is its statistics' outcome at the raw p (one rule)
      row["verdict"] = row["statistics"]["outcome"];
      row["note"] = row["statistics"]["outcome_reason"];
    }
    out["rows"].push_back(row);
  }
  for (const auto& m : r.diagnostics) {
    json row = {{"metric", m.label}, {"path", m.path}, {"arms", json::object()}};
    for (const auto& a : r.arms) row["arms"][a.name] = mean_std_entry(variant.values(m, a.name, m.path));
    out["diagnostics"].push_back(row);
  }
  return out;
}

std::string mean_std_text(const json& e, int precision) {
  if (!e.at("mean").is_number()) return "n/a (no run has it)";
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << e.at("mean").get<double>();
  if (e.contains("std") && e["std"].is_number())
    o << " +- " << e["std"].get<double>();
  else
    o << " (1 seed)";
  return o.str();
}

// The command line's test of a row: a claim's deciding interval (or, for a typical seed, its seeds on each side) and
// e-value; a row without a claim has no test.
static std::string test_text(const json& row) {
  if (!row.contains("statistics")) return "no claim: no test";
  const json& s = row["statistics"];
  if (!s.contains("decision")) return s.value("outcome_reason", "no test");
  const json& d = s["decision"];
  std::ostringstream o;
  o << std::setprecision(3) << "anytime " << 100 * (1 - d["level"].get<double>()) << "% ";
  if (d.value("estimand", "mean") == "typical seed") {
    o << "typical seed: " << d.value("paper_side", 0) << " of " << s["per_seed"]["n"].get<std::size_t>()
      << " seeds on the paper's side, " << d.value("other_side", 0) << " on the other";
  } else {
    const auto end = [](const json& x, double none) { return x.is_number() ? x.get<double>() : none; };
    o << (d.value("estimand", "mean") == "bounded mean" ? "betting " : "") << "interval [" << std::showpos
      << end(s["ci_low"], -INFINITY) << ", " << end(s["ci_high"], INFINITY) << std::noshowpos << "] over "
      << s["per_seed"]["n"].get<std::size_t>() << " seeds";
  }
  o << ", E = " << (d["e_value"].is_number() ? d["e_value"].get<double>() : NAN);
  if (s.contains("pooled")) o << "; " << pooled_counts_text(s["pooled"]);
  return o.str();
}

std::vector<ReproductionVariant> selected_variants(const Reproduction& r, const std::vector<std::string>& names) {
  std::vector<ReproductionVariant> all = r.variants;
  if (all.empty()) all.push_back({"", "", {}});
  if (names.empty()) return all;
  std::vector<ReproductionVariant> keep;
  for (const auto& n : names) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const ReproductionVariant& v) { return v.name == n; });
    if (it == all.end()) throw config_error("variant " + n + ": no such variant in " + r.file);
    keep.push_back(*it);
  }
  return keep;
}

Reproduction with_arms(const Reproduction& r, const std::vector<std::string>& names) {
  Reproduction out = r;
  out.arms.clear();
  for (const auto& a : r.arms)
    if (names.empty() || std::find(names.begin(), names.end(), a.name) != names.end()) out.arms.push_back(a);
  if (out.arms.empty()) throw config_error("the arms named match no arm of " + r.file);
  if (out.arms.size() < 2) out.baseline.clear();
  return out;
}

std::map<std::string, std::vector<std::uint64_t>> seeds_of_arms(const std::vector<ReproductionArm>& arms,
                                                                const std::vector<std::uint64_t>& seeds,
                                                                const std::map<std::string, int>& arm_seeds) {
  std::map<std::string, std::size_t> count;
  for (const auto& a : arms) count[a.name] = seeds.size();
  for (const auto& [name, n] : arm_seeds) {
    if (!count.count(name)) throw config_error("--arm-seeds names " + name + ", which is no arm of the reproduction");
    if (n < 1) throw config_error("--arm-seeds " + name + "=" + std::to_string(n) + ": an arm runs at least 1 seed");
    count[name] = std::size_t(n);
  }
  for (bool raised = true; raised;) {  // an arm's starting weights come from the same seed of its init_from arm
    raised = false;
    for (const auto& a : arms)
      if (!a.init_from.empty() && count.count(a.init_from) && count[a.init_from] < count[a.name]) {
        count[a.init_from] = count[a.name];
        raised = true;
      }
  }
  std::map<std::string, std::vector<std::uint64_t>> out;
  for (const auto& a : arms) {
    if (arm_seeds.empty()) {
      out[a.name] = seeds;
      continue;
    }
    for (std::size_t k = 1; k <= count[a.name]; ++k) out[a.name].push_back(k);
  }
  return out;
}

std::vector<ReproductionRun> plan_reproduction_runs(const Reproduction& r, const ReproductionProfile& prof,
                                                    const std::vector<ReproductionVariant>& variants,
                                                    const std::vector<ReproductionArm>& arms,
                                                    const std::vector<std::uint64_t>& seeds,
                                                    const std::vector<std::string>& cli_set, const std::string& out,
                                                    const std::string& repo_root,
                                                    const std::map<std::string, int>& arm_seeds) {
  const auto seeds_of = seeds_of_arms(arms, seeds, arm_seeds);
  std::vector<ReproductionRun> runs;
  for (const auto& v : variants)
    for (const auto& a : arms)
      for (const std::uint64_t k : seeds_of.at(a.name)) {
        std::vector<std::string> set = r.set;
        for (const auto* extra : {&prof.set, &v.set, &a.set, &cli_set}) set.insert(set.end(), extra->begin(), extra->end());
        set.push_back("seed=" + std::to_string(k));
        fs::path dir = fs::absolute(fs::path(out));
        if (!v.name.empty()) dir /= v.name;
        long depends = -1;
        if (!a.init_from.empty()) {  // the same variant and seed of the arm it starts from, which runs first
          for (std::size_t i = 0; i < runs.size(); ++i)
            if (runs[i].variant == v.name && runs[i].arm == a.init_from && runs[i].config.seed == k) depends = long(i);
          if (depends < 0)
            throw config_error("arm " + a.name + " starts from arm " + a.init_from + "'s weights: run that arm too "
                               "(--arms)");
          set.push_back("model.init_run=" + runs[std::size_t(depends)].dir);
        }
        runs.push_back({v.name, a.name, (dir / a.name / ("seed" + std::to_string(k))).string(), set,
                        load_run_config(r.config, set, repo_root), depends});
      }
  return runs;
}

json reproduction_summary(const Reproduction& r, const std::vector<ReproductionVariant>& variants,
                          const std::string& profile, int seeds, const std::vector<std::string>& set,
                          const json& base_config, const std::string& git_revision,
                          const std::map<std::string, std::map<std::string, std::vector<json>>>& runs) {
  json summary = {{"config", {{"reproduction", r.source}, {"profile", profile}, {"seeds", seeds},
                              {"set", set}, {"base_config", base_config}}},
                  {"git_revision", git_revision},
                  {"reproduction", r.id},
                  {"variants", json::array()}};
  static const std::map<std::string, std::vector<json>> none;
  for (const auto& v : variants) {
    const auto it = runs.find(v.name);
    summary["variants"].push_back(summarize_variant(r, v, it == runs.end() ? none : it->second));
  }
  return summary;
}

std::string summary_table_text(const json& summary, const Reproduction& r) {
  std::ostringstream out;
  std::size_t width = 22;  // the metric column: as wide as the longest label and two spaces
  for (const auto& v : summary["variants"])
    for (const auto& row : v["rows"]) width = std::max(width, row["metric"].get<std::string>().size() + 2);
  for (const auto& v : summary["variants"]) {
    if (!v["name"].get<std::string>().empty()) out << "variant " << v["name"].get<std::string>() << "\n";
    out << std::left << std::setw(int(width)) << "metric";
    for (const auto& a : r.arms) out << std::setw(20) << ("ours " + a.name) << std::setw(8) << "paper";
    out << "\n";
    for (const auto& row : v["rows"]) {
      out << std::left << std::setw(int(width)) << row["metric"].get<std::string>();
      for (const auto& a : r.arms) {
        const auto& e = row["arms"][a.name];
        std::ostringstream pp;
        if (e.contains("paper")) pp << std::fixed << std::setprecision(1) << e["paper"].get<double>();
        out << std::setw(20) << mean_std_text(e) << std::setw(8) << (pp.str().empty() ? "-" : pp.str());
      }
      if (row.contains("difference")) {
        std::ostringstream d;
        d << std::fixed << std::showpos << std::setprecision(1) << row["difference"].get<double>() << std::noshowpos;
        const bool sides = row.contains("baseline") && row.contains("treatment");  // a metric's own sides
        auto side = [&](const char* k, const std::string& arm) {
          if (sides && row[k]["arm"] == "bound") return row[k]["label"].get<std::string>();  // a claim's fixed number
          return sides ? row[k]["arm"].get<std::string>() + (row[k]["path"] == row["path"] ? std::string()
                                                                                          : "@" + row[k]["path"].get<std::string>())
                       : arm;
        };
        out << "  " << side("treatment", r.treatment) << " - " << side("baseline", r.baseline) << " " << d.str()
            << " (" << test_text(row) << ")";
        if (row.contains("verdict")) out << " " << row["verdict"].get<std::string>();
      }
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace dmlbench::experiments
