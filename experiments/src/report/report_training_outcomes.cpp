// The report's training claims decided with adjusted p over the report's family (issue 27 items 2 and 6).
#include "dmlbench/experiments/report_training_outcomes.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/count_claim_statistics.hpp"
#include "dmlbench/experiments/report_text.hpp"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

// two significant digits ("0.0036", "0.41"); "n/a" for null
std::string p_text(const json& v) {
  if (!v.is_number()) return "n/a";
  std::ostringstream o;
  o << std::setprecision(2) << v.get<double>();
  return o.str();
}

// The adjustment's name as the report writes it.
std::string method_text(PAdjustment m) { return m == PAdjustment::holm ? "Holm" : "Benjamini-Hochberg"; }

// "; detectable at 80% power: 3.1; seeds per side for 10.0: 4" of an inconclusive row
std::string power_text(const json& s) {
  if (!s.contains("mde")) return "";
  std::ostringstream o;
  o << "; detectable at " << std::lround(s.value("power", 0.8) * 100) << "% power: "
    << (s["mde"].is_number() ? fixed1(s["mde"].get<double>()) : std::string("n/a (no spread)"))
    << "; seeds per side for " << fixed1(s.value("effect_to_detect", 0.0)) << ": ";
  const std::string status = s.value("seeds_needed_status", "");
  if (status == "found") o << s["seeds_needed"].get<int>();
  else if (status == "beyond_cap") o << "more than 100";
  else o << "n/a (" << (status == "no_spread" ? "no spread" : "no effect to detect") << ")";
  return o.str();
}

}  // namespace

std::string training_statistics_text(const json& s, PAdjustment method) {
  std::ostringstream o;
  if (!s.contains("p") || !s["p"].is_number()) {
    o << s.value("outcome_reason", "no test");  // "1 seed: no test ...", "no spread: ...", "no values: ..."
    if (s.contains("difference")) o << "; difference " << signed_fixed1(s["difference"]);
    return o.str() + power_text(s);
  }
  const bool counts = s.value("test", "") == "binomial";
  o << "difference " << signed_fixed1(s["difference"]) << " [" << signed_fixed1(s["ci_low"]) << ", " << signed_fixed1(s["ci_high"])
    << "] (" << std::lround((1 - s.value("alpha", 0.05)) * 100) << (counts ? "% Clopper-Pearson CI" : "% CI")
    << "); p = " << p_text(s["p"]);
  if (counts)
    o << " (exact binomial, " << pooled_counts_text(s) << ")";
  if (s.contains("p_adjusted")) o << "; adjusted p = " << p_text(s["p_adjusted"]) << " (" << method_text(method) << ")";
  o << "; delta " << fixed1(s.value("smallest_effect", 0.0)) << ", TOST p = " << p_text(s.value("p_tost", json()));
  const std::string pos = s.value("paper_position", "none");
  if (pos != "none") o << "; the paper's " << signed_fixed1(s["paper_difference"]) << " lies " << pos << " the interval";
  if (s.value("outcome", "") == "inconclusive") o << power_text(s);
  return o.str();
}

std::size_t decide_training_claims(std::vector<ClaimRow>& rows, PAdjustment method) {
  std::vector<double> p;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].training() && rows[i].statistics.contains("p") && rows[i].statistics["p"].is_number()) {
      p.push_back(rows[i].statistics["p"].get<double>());
      at.push_back(i);
    }
  const std::vector<double> adjusted = adjusted_p_values(p, method);
  for (std::size_t k = 0; k < at.size(); ++k)
    rows[at[k]].statistics = claim_statistics_adjusted(rows[at[k]].statistics, adjusted[k]);
  for (auto& r : rows) {
    if (!r.training()) continue;
    r.verdict = r.statistics.value("outcome", "inconclusive");
    r.note = r.statistics.value("outcome_reason", "");
    r.measured += "; " + training_statistics_text(r.statistics, method);
    r.witness = r.verdict == "refuted" ? "difference " + signed_fixed1(r.statistics["difference"]) + " [" +
                                             signed_fixed1(r.statistics["ci_low"]) + ", " + signed_fixed1(r.statistics["ci_high"]) +
                                             "], against the paper's direction"
                                       : "";
  }
  return p.size();
}

std::string training_outcome_counts_text(const std::vector<ClaimRow>& rows, PAdjustment method) {
  std::size_t n = 0, family = 0;
  std::map<std::string, int> counts = {{"verified", 0}, {"refuted", 0}, {"not-reproduced", 0}, {"inconclusive", 0}};
  for (const auto& r : rows)
    if (r.training()) {
      ++n;
      ++counts[r.verdict];
      if (r.statistics.contains("p_adjusted")) ++family;
    }
  if (n == 0) return "";
  std::ostringstream o;
  o << n << " training claims, decided by their p adjusted with " << method_text(method) << " over the " << family
    << " that have a p (the family):";
  for (const char* k : {"verified", "refuted", "not-reproduced", "inconclusive"}) o << " " << counts[k] << " " << k << ";";
  return o.str();
}

std::string training_outcomes_definition_markdown() {
  return "The four outcomes of a training claim (issue 27), each read at the claim's p adjusted over the family of "
         "every training claim of this report:\n\n"
         "- **verified**: the difference is significant after adjustment (adjusted p < alpha) in the paper's "
         "direction.\n"
         "- **refuted**: the difference is significant after adjustment against the paper's direction.\n"
         "- **not-reproduced**: not significant, and two one-sided tests at the same alpha (TOST) show the difference "
         "smaller than the smallest effect of interest delta (by default half the paper's printed difference; where "
         "the paper prints no number, the reproduction file states delta with its reason).\n"
         "- **inconclusive**: neither; the row gives the minimum detectable effect at 80% power and the seeds per side "
         "that would detect the paper's difference (else delta). One seed, or seeds without spread, admit no test and "
         "are inconclusive too.\n";
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
