// The report's training claims decided over the report's family: every number printed read from each claim's
// anytime-valid interval at the family's level.
#include "dmlbench/experiments/report_training_outcomes.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

// The family rule's name as the report writes it.
std::string method_text(PAdjustment m) {
  return m == PAdjustment::holm ? "Bonferroni on e-values (family-wise error)" : "e-BH (false discovery rate)";
}

// "+1.2" of an interval end; -inf / +inf while too few seeds can decide
std::string end_text(const json& v, const char* none) { return v.is_number() ? signed_fixed1(v) : std::string(none); }

// "; detectable at 80% power: 3.1; seeds for 10.0: 14" of an inconclusive row, at the deciding level
std::string power_text(const json& s) {
  if (!s.contains("mde")) return "";
  std::ostringstream o;
  o << "; detectable at " << std::lround(s.value("power", 0.8) * 100) << "% power at this level: "
    << (s["mde"].is_number() ? fixed1(s["mde"].get<double>())
                             : std::string(s["per_seed"].value("sd", json(0.0)) == json(0.0) ? "n/a (no spread)"
                                                                                              : "nothing (too few seeds)"))
    << "; seeds for " << fixed1(s.value("effect_to_detect", 0.0)) << ": ";
  const std::string status = s.value("seeds_needed_status", "");
  if (status == "found") o << s["seeds_needed"].get<int>();
  else if (status == "beyond_cap") o << "more than " << claim_seeds_cap;
  else o << "n/a (" << (status == "no_spread" ? "no spread" : "no effect to detect") << ")";
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
  o << "difference " << signed_fixed1(s["difference"]) << " [" << end_text(s["ci_low"], "-inf") << ", "
    << end_text(s["ci_high"], "+inf") << "] (anytime-valid interval over " << s["per_seed"]["n"].get<std::size_t>()
    << " seeds " << s["per_seed"].value("pairing", "") << ", " << claim_level_text(s) << "); E = ";
  if (d["e_value"].is_number()) o << std::setprecision(2) << d["e_value"].get<double>();
  else o << "n/a";
  o << "; delta " << fixed1(s.value("smallest_effect", 0.0));
  if (s.contains("pooled")) o << "; pooled counts (a description): " << pooled_counts_text(s["pooled"]);
  const std::string pos = s.value("paper_position", "none");
  if (pos != "none") o << "; the paper's " << signed_fixed1(s["paper_difference"]) << " lies " << pos << " the interval";
  if (s.value("outcome", "") == "inconclusive") o << power_text(s);
  if (s.contains("recurrence")) {
    const json& b = s["recurrence"]["bootstrap"];
    o << "; recurs in " << std::lround(100 * b["same"].get<double>()) << "% of " << b["resamples"].get<std::size_t>()
      << " resamples of the seeds (flips in " << std::lround(100 * b["flipped"].get<double>()) << "%)";
  }
  return o.str();
}

std::size_t decide_training_claims(std::vector<ClaimRow>& rows, PAdjustment method) {
  std::vector<std::size_t> at;
  std::vector<double> e;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].training() && claim_statistics_testable(rows[i].statistics)) {
      at.push_back(i);
      e.push_back(claim_e_value(rows[i].statistics));
    }
  ClaimFamily family{std::max<std::size_t>(at.size(), 1), 0};
  if (method == PAdjustment::benjamini_hochberg && !at.empty()) {
    const double alpha = rows[at.front()].statistics.value("alpha", 0.05);
    family.selected = std::max<std::size_t>(e_bh_selected(e, alpha), 1);  // R = 0: the level of R = 1, selects none
  }
  for (const std::size_t i : at) rows[i].statistics = claim_statistics_decided(rows[i].statistics, family);
  for (auto& r : rows) {
    if (!r.training()) continue;
    r.verdict = r.statistics.value("outcome", "inconclusive");
    r.note = r.statistics.value("outcome_reason", "");
    r.measured += "; " + training_statistics_text(r.statistics);
    r.witness = r.verdict == "refuted" ? "difference " + signed_fixed1(r.statistics["difference"]) + " [" +
                                             end_text(r.statistics["ci_low"], "-inf") + ", " +
                                             end_text(r.statistics["ci_high"], "+inf") + "], against the paper's direction"
                                       : "";
  }
  return at.size();
}

std::string training_outcome_counts_text(const std::vector<ClaimRow>& rows, PAdjustment method) {
  std::size_t n = 0, family = 0;
  std::map<std::string, int> counts = {{"verified", 0}, {"refuted", 0}, {"not-reproduced", 0}, {"inconclusive", 0}};
  for (const auto& r : rows)
    if (r.training()) {
      ++n;
      ++counts[r.verdict];
      if (r.statistics.contains("decision")) ++family;
    }
  if (n == 0) return "";
  std::ostringstream o;
  o << n << " training claims, each decided on its per-seed differences by an anytime-valid interval at the level of "
    << method_text(method) << " over the " << family << " with at least two seeds (the family):";
  for (const char* k : {"verified", "refuted", "not-reproduced", "inconclusive"}) o << " " << counts[k] << " " << k << ";";
  return o.str();
}

std::string training_outcomes_definition_markdown() {
  return "The four outcomes of a training claim, all read from one interval: the anytime-valid "
         "confidence sequence of the claim's per-seed differences (treatment - baseline paired by seed, or value - "
         "bound; a share claim's per-seed shares), at the family's level (alpha / m, Bonferroni on e-values over the "
         "m training claims of this report with at least two seeds; alpha R / m with e-BH). Seeds may be added to a "
         "claim and the interval looked at after each without raising the error (experiments/src/verdicts/"
         "anytime_t_test.hpp).\n\n"
         "- **verified**: the interval lies on the paper's side of 0.\n"
         "- **refuted**: the interval lies on the other side of 0.\n"
         "- **not-reproduced**: the interval lies inside (-delta, +delta), delta the smallest effect of interest (by "
         "default half the paper's printed difference; where the paper prints no number, the reproduction file states "
         "delta with its reason): the equivalence read at the same level as the difference.\n"
         "- **inconclusive**: neither; the row gives the effect its seeds detect at 80% power at this level and the "
         "seeds that would detect the paper's difference (else delta). Fewer than two seeds, seeds without spread, or "
         "too few seeds for the level (the interval is then the whole line) are inconclusive too.\n";
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
