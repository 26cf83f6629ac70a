// The report's training claims decided over the report's family: every number printed read from each claim's
// anytime-valid interval at the family's level.
#include "dmlbench/experiments/report_training_outcomes.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>
#include <utility>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

// The family rule's name as the report writes it.
std::string method_text(PAdjustment m) {
  return m == PAdjustment::holm ? "Bonferroni on e-values (family-wise error)" : "e-BH (false discovery rate)";
}

// "+1.2" of an interval end; -inf / +inf while too few seeds can decide
std::string end_text(const json& v, const char* none) { return v.is_number() ? signed_fixed1(v) : std::string(none); }

// "; the design decides 3.0 (sd 2.1) by its cap with probability 0.41" of an inconclusive mean
std::string power_text(const json& s) {
  if (!s.contains("design_power")) return "";
  const json& p = s["design_power"];
  std::ostringstream o;
  if (p.value("estimand", "") == "typical seed") {  // exact: the fewest seeds that decide, all on one side
    const std::size_t k = p.value("fewest_seeds", std::size_t(0)), cap = p.value("cap", std::size_t(0));
    o << "; at its level the sign e-process needs " << (k == 0 ? std::string("more than 1000") : std::to_string(k))
      << " seeds, all on one side, to decide"
      << (k == 0 || k > cap ? ": the design's cap of " + std::to_string(cap) + " cannot decide it"
                            : " (the cap is " + std::to_string(cap) + ")");
    return o.str();
  }
  o << "; the design (looks from " << s["stop"].value("first", 0) << " to " << s["stop"].value("cap", 0)
    << " seeds) decides an effect of " << fixed1(p.value("effect", 0.0)) << " at sd " << fixed1(p.value("sd", 0.0))
    << " with probability " << std::fixed << std::setprecision(2) << p.value("power", 0.0) << " (simulated)";
  return o.str();
}

// "[+2.7, +7.3] (anytime-valid interval ...)" or, for a typical seed, "7 of 8 seeds on the paper's side"
std::string reading_text(const json& s, const json& d, std::size_t n) {
  if (d.value("estimand", "mean") == "typical seed")
    return std::to_string(d.value("paper_side", 0)) + " of " + std::to_string(n) + " seeds on the paper's side, " +
           std::to_string(d.value("other_side", 0)) + " on the other (a typical seed";
  return "[" + end_text(s["ci_low"], "-inf") + ", " + end_text(s["ci_high"], "+inf") + "] (" +
         (d.value("estimand", "mean") == "bounded mean" ? "betting interval of a bounded mean"
                                                          : "anytime-valid interval");
}

// "; read at its own stop, 5 of its arms' 8 seeds; all 8 re-read (not the verdict): +1.2 [-0.3, +2.5]"
std::string stop_text(const json& s) {
  if (!s.contains("stop")) return "";
  std::ostringstream o;
  const json& st = s["stop"];
  o << "; read at its own stop";
  if (!s.contains("re_read")) return o.str() + " (" + std::to_string(st.value("seeds", 0)) + " seeds)";
  const json& r = s["re_read"];
  o << ", " << st.value("seeds", 0) << " of its arms' " << st.value("of", 0) << " seeds; all " << st.value("of", 0)
    << " re-read (seeds another claim asked for; not the verdict): " << signed_fixed1(r["difference"]);
  if (r["ci_low"].is_number() || r["ci_high"].is_number())
    o << " [" << end_text(r["ci_low"], "-inf") << ", " << end_text(r["ci_high"], "+inf") << "]";
  else
    o << ", " << r.value("paper_side", 0) << " on the paper's side";
  o << ", read " << r.value("reading", "");
  if (s.contains("holdout")) {
    const json& h = s["holdout"];
    o << "; holdout (seeds its decision never saw): " << h.value("on_decided_side", 0) << " of " << h.value("n", 0)
      << " on the decided side, mean " << signed_fixed1(h["mean"]);
  }
  return o.str();
}

}  // namespace

std::size_t e_bh_selected(std::vector<double> e, double alpha) {
  const std::size_t m = e.size();
  for (auto& x : e)
    if (std::isnan(x)) x = 0;  // no spread: never selected
  std::sort(e.begin(), e.end(), std::greater<double>());
  std::size_t r = 0;
  for (std::size_t k = 1; k <= m; ++k)
    if (e[k - 1] >= double(m) / (alpha * double(k))) r = k;
  return r;
}

std::string training_statistics_text(const json& s) {
  std::ostringstream o;
  if (!s.contains("decision")) {
    o << s.value("outcome_reason", "no test");  // "1 seed: no test ...", "no values: ..."
    if (s.contains("per_seed") && s["per_seed"]["mean"].is_number()) o << "; difference " << signed_fixed1(s["per_seed"]["mean"]);
    return o.str();
  }
  const json& d = s["decision"];
  const std::size_t n = s["per_seed"]["n"].get<std::size_t>();
  if (d.value("estimand", "mean") == "typical seed")
    o << reading_text(s, d, n) << ", " << s["per_seed"].value("pairing", "") << ", " << claim_level_text(s)
      << "); E = ";
  else
    o << "difference " << signed_fixed1(s["difference"]) << " " << reading_text(s, d, n) << " over " << n
      << " seeds " << s["per_seed"].value("pairing", "") << ", " << claim_level_text(s) << "); E = ";
  if (d["e_value"].is_number()) o << std::setprecision(2) << d["e_value"].get<double>();
  else o << "n/a";
  if (d.value("estimand", "mean") != "typical seed") o << "; delta " << fixed1(s.value("smallest_effect", 0.0));
  o << stop_text(s);
  if (s.contains("pooled")) o << "; pooled counts (a description): " << pooled_counts_text(s["pooled"]);
  const std::string pos = s.value("paper_position", "none");
  if (pos != "none") o << "; the paper's " << signed_fixed1(s["paper_difference"]) << " lies " << pos << " the interval";
  if (s.value("outcome", "") == "inconclusive") o << power_text(s);
  return o.str();
}

namespace {

// "difference -2.1 [-3.5, -0.7], against the paper's direction", or a typical seed's counts
std::string refuted_witness(const json& s) {
  const json& d = s["decision"];
  if (d.value("estimand", "mean") == "typical seed")
    return std::to_string(d.value("other_side", 0)) + " of " + std::to_string(s["per_seed"].value("n", 0)) +
           " seeds against the paper's direction (E = " + fixed1(d.value("e_value", 0.0)) + ")";
  return "difference " + signed_fixed1(s["difference"]) + " [" + end_text(s["ci_low"], "-inf") + ", " +
         end_text(s["ci_high"], "+inf") + "], against the paper's direction";
}

}  // namespace

std::string training_family_of(const ClaimRow& r) {
  return judges_the_paper(r.scope.scope) ? "the papers' own statements" : "extensions and variants";
}

namespace {

// Decides the rows `at` (testable training rows) as one family.
void decide_family(std::vector<ClaimRow>& rows, const std::vector<std::size_t>& at, PAdjustment method,
                   bool named, bool with_design_power) {
  std::vector<double> e;
  for (const std::size_t i : at) e.push_back(claim_e_value(rows[i].statistics));
  ClaimFamily family{std::max<std::size_t>(at.size(), 1), 0};
  if (method == PAdjustment::benjamini_hochberg && !at.empty()) {
    const double alpha = rows[at.front()].statistics.value("alpha", 0.05);
    family.selected = std::max<std::size_t>(e_bh_selected(e, alpha), 1);  // R = 0: the level of R = 1, selects none
  }
  for (const std::size_t i : at) {
    rows[i].statistics = claim_statistics_decided(rows[i].statistics, family, with_design_power);
    if (named) rows[i].statistics["decision"]["family"] = training_family_of(rows[i]);
  }
}

}  // namespace

std::size_t decide_training_claims(std::vector<ClaimRow>& rows, PAdjustment method, bool with_design_power) {
  std::map<std::string, std::vector<std::size_t>> families;
  std::size_t testable = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].training() && claim_statistics_testable(rows[i].statistics)) {
      families[training_family_of(rows[i])].push_back(i);
      ++testable;
    }
  for (const auto& [name, at] : families) decide_family(rows, at, method, families.size() > 1, with_design_power);
  for (auto& r : rows) {
    if (!r.training()) continue;
    r.verdict = r.statistics.value("outcome", "inconclusive");
    r.note = r.statistics.value("outcome_reason", "");
    r.measured += "; " + training_statistics_text(r.statistics);
    r.witness = r.verdict == "refuted" ? refuted_witness(r.statistics) : "";
  }
  return testable;
}

namespace {

// " Holdout: 12 decided rows have seeds after their stop (another claim's on a shared arm), which their decisions never
// saw; in 10 of them most of those seeds lie on the decided side." ("" where none has)
std::string holdout_counts_text(const std::vector<ClaimRow>& rows) {
  std::size_t with = 0, agree = 0;
  for (const auto& r : rows)
    if (r.training() && r.statistics.contains("holdout")) {
      const json& h = r.statistics["holdout"];
      ++with;
      agree += 2 * h.value("on_decided_side", std::size_t(0)) > h.value("n", std::size_t(0));
    }
  if (with == 0) return "";
  return " Holdout: " + std::to_string(with) + " decided rows have seeds after their stop (another claim's on a shared "
         "arm), which their decisions never saw; in " + std::to_string(agree) + " of them most of those seeds lie on "
         "the decided side (a description, no test).";
}

}  // namespace

std::string training_outcome_counts_text(const std::vector<ClaimRow>& rows, PAdjustment method) {
  struct Counts {
    std::size_t n = 0, family = 0;
    std::map<std::string, int> by;
  };
  std::map<std::string, Counts> families;
  std::size_t n = 0;
  for (const auto& r : rows)
    if (r.training()) {
      ++n;
      Counts& c = families[training_family_of(r)];
      ++c.n;
      ++c.by[r.verdict];
      if (r.statistics.contains("decision")) ++c.family;
    }
  if (n == 0) return "";
  std::ostringstream o;
  o << n << " training claims, each decided on its per-seed differences by the test of its estimand at its own stop, "
    << "at the level of " << method_text(method) << " within its family (the guarantee is over the claims each "
    << "family selects)";
  const bool split = families.size() > 1 || !families.count("extensions and variants");
  if (!split) o << ", one family of the " << families.begin()->second.family << " with at least two seeds:";
  for (const auto& [name, c] : families) {
    if (split)
      o << "; " << name << ": " << c.n << " rows, a family of the " << c.family << " with at least two seeds"
        << (name == "the papers' own statements" ? " (the rows that count for or against a paper are controlled "
                                                   "among themselves)" : "") << ":";
    // every outcome with its count; the counting rules' marks (contested, premise-not-reached) only where they occur
    for (const auto& [k, always] : std::vector<std::pair<std::string, bool>>{
             {"verified", true}, {"direction-only", true}, {"refuted", true}, {"contested", false},
             {"premise-not-reached", false}, {"not-reproduced", true}, {"inconclusive", true}})
      if (always || c.by.count(k)) o << " " << (c.by.count(k) ? c.by.at(k) : 0) << " " << k << ";";
  }
  return o.str() + holdout_counts_text(rows);
}

std::string training_outcomes_definition_markdown() {
  return "The five outcomes of a training claim, all read from one test of what the claim judges (its estimand, "
         "experiments/include/dmlbench/experiments/claim_test.hpp) on its per-seed differences (treatment - baseline "
         "paired by seed, or value - bound), at the claim's own stop in the design of looks, at the family's level "
         "(alpha / m, Bonferroni on e-values over the m training claims of this report with at least two seeds; alpha "
         "R / m with e-BH, whose guarantee is the false discovery rate over the claims it selects). The mean of a "
         "continuous metric is read from the anytime-valid t interval, a bounded mean from the betting interval, and "
         "a typical seed (more than half of the seeds on a side) from the e-process of the per-seed signs.\n\n"
         "- **verified**: the interval lies on the paper's side of 0 and not inside (-delta, +delta); for a typical "
         "seed: the e-value reaches 1/level with more seeds on the paper's side.\n"
         "- **direction-only**: the interval lies on the paper's side of 0 but inside (-delta, +delta): the direction "
         "holds, the effect is smaller than the smallest of interest. Counted apart from verified.\n"
         "- **refuted**: the interval lies on the other side of 0 (a typical seed: more seeds there).\n"
         "- **not-reproduced**: the interval holds 0 and lies inside (-delta, +delta), delta the smallest effect of "
         "interest (by default half the paper's printed difference; where the paper prints no number, the "
         "reproduction file states delta with its reason). A typical seed has no such reading.\n"
         "- **inconclusive**: none of these; an inconclusive mean gives the chance that the design decides the "
         "paper's difference (else delta) by its cap at its spread, simulated. Fewer than two seeds, seeds without "
         "spread (for the t-test), or too few seeds for the level are inconclusive too.\n";
}

std::string moved_verdicts_markdown(const json& previous, const std::vector<ClaimRow>& rows) {
  if (!previous.is_object() || !previous.contains("claims") || !previous["claims"].is_array()) return "";
  std::map<std::string, std::string> old;
  for (const auto& c : previous["claims"])
    if (c.contains("id") && c.contains("verdict")) old[c["id"].get<std::string>()] = c["verdict"].get<std::string>();
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows) {
    if (!r.training()) continue;
    const auto it = old.find(r.id);
    if (it == old.end() || it->second == r.verdict) continue;
    ++n;
    o << "| `" << r.id << "` | " << it->second << " | **" << r.verdict << "** | " << markdown_cell(r.note) << " |\n";
  }
  std::ostringstream md;
  md << "## Verdicts that moved\n\nTraining claims whose verdict differs from the previous `claims.json` of this "
        "report folder: "
     << n << " rows.\n\n";
  if (n > 0) md << "| id | old | new | why |\n|---|---|---|---|\n" << o.str();
  return md.str() + "\n";
}

}  // namespace dmlbench::experiments
