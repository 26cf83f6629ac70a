// The report's claims as Markdown (the claims table, the errata, the refutations, the verdict counts) and as JSON.
#include "dmlbench/experiments/report_claims_table.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_checked_on.hpp"
#include "dmlbench/experiments/report_kernel_recurrence.hpp"
#include "report_text.hpp"

#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

// " (extension: ...)" for a row that judges the bench's own comparison, "" for the others.
static std::string scope_tag(const ClaimRow& r) {
  if (r.scope.scope == "extension") return " (extension: the bench's own comparison, counted for no paper)";
  if (r.scope.scope == "variant") return " (variant: the bench's version of a printed method, counted for no paper)";
  if (r.scope.scope == "unstated") return " (scope unstated)";
  return "";
}

std::string claims_table_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  o << "| id | paper | where | scope | claim | measured | paper's number | verdict |\n"
       "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    o << "| `" << r.id << "` | " << markdown_cell(r.paper) << " | " << markdown_cell(r.where) << " | "
      << markdown_cell(r.scope.scope) << " | " << markdown_cell(r.statement) << " | " << markdown_cell(r.measured) << " | " << markdown_cell(r.paper_value)
      << " | **" << r.verdict << "**" << (moved_on_other_kernels(r) ? " (machine-sensitive)" : "") << " |\n";
  return o.str();
}

std::string errata_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows)
    if (r.verdict == "erratum") {
      ++n;
      // the row's statement is the claim as the bench judges it (not always the printed words); the
      // reading it fixes beyond the print stands under it
      o << "- **[" << r.paper << " " << r.where << "]** `" << r.id << "`" << scope_tag(r) << ": as judged: " << r.statement;
      for (const auto& d : r.scope.deviations) o << "\n  - the bench's reading: " << d;
      o << "\n  - corrected form: " << (r.corrected_form.empty() ? "(none given)" : r.corrected_form)
        << "\n  - witness: " << (r.witness.empty() ? "(none given)" : r.witness) << "\n";
    }
  if (n == 0) o << "No erratum.\n";
  return o.str();
}

std::string refutations_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows)
    if (r.verdict == "refuted" || r.verdict == "contested" || r.verdict == "premise-not-reached" ||
        r.verdict == "not-reproducible" ||
        r.verdict == "not-reproduced") {
      ++n;
      o << "- **" << r.verdict << "** [" << r.paper << " " << r.where << "] `" << r.id << "`" << scope_tag(r) << ": "
        << r.statement << "\n";
      if (!r.witness.empty()) o << "  - witness: " << r.witness << "\n";
      if (!r.note.empty()) o << "  - " << r.note << "\n";
    }
  if (n == 0) o << "None.\n";
  return o.str();
}

static std::string counts_of(const std::vector<const ClaimRow*>& rows) {
  std::map<std::string, int> counts;
  for (const auto* r : rows) counts[r->verdict]++;
  std::ostringstream o;
  for (const auto& [v, n] : counts) o << " " << n << " " << v << ";";
  if (rows.empty()) o << " none;";
  return o.str();
}

std::string verdict_counts_text(const std::vector<ClaimRow>& rows) {
  std::vector<const ClaimRow*> all, paper, extension, unstated;
  for (const auto& r : rows) {
    all.push_back(&r);
    if (judges_the_paper(r.scope.scope)) paper.push_back(&r);
    else if (r.scope.scope == "extension" || r.scope.scope == "variant") extension.push_back(&r);
    else if (r.scope.scope == "unstated") unstated.push_back(&r);
  }
  std::ostringstream o;
  if (paper.size() + extension.size() + unstated.size() == 0) {  // no scopes attached: every row counted together
    o << rows.size() << " claims:" << counts_of(all);
    return o.str();
  }
  // the headline counts the papers' own rows only; the extensions and all rows follow
  o << paper.size() << " claims on the papers' own statements (as printed or reconstructed):" << counts_of(paper)
    << " apart from them, " << extension.size()
    << " extensions and variants (the bench's own comparisons, stronger forms and versions of a printed method, "
       "counted for or against no paper):"
    << counts_of(extension);
  if (!unstated.empty()) o << " without a scope entry, " << unstated.size() << " rows:" << counts_of(unstated);
  o << " (" << rows.size() << " rows in all).";
  return o.str();
}

namespace {

// One table of verdict counts, a row per paper.
std::string tally_table(const std::map<std::string, std::map<std::string, int>>& by_paper) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> columns = {
      {"verified", {"verified"}}, {"direction only", {"direction-only"}}, {"refuted", {"refuted"}},
      {"contested", {"contested"}}, {"premise not reached", {"premise-not-reached"}}, {"erratum", {"erratum"}},
      {"not reproduced", {"not-reproducible", "not-reproduced"}}, {"inconclusive", {"inconclusive"}}};
  std::ostringstream o;
  o << "| paper | rows |";
  for (const auto& c : columns) o << " " << c.first << " |";
  o << " other |\n|---|---|";
  for (std::size_t k = 0; k <= columns.size(); ++k) o << "---|";
  o << "\n";
  for (const auto& [paper, counts] : by_paper) {
    int total = 0, known = 0;
    for (const auto& [v, n] : counts) total += n;
    o << "| [" << paper << "] | " << total << " |";
    for (const auto& c : columns) {
      int n = 0;
      for (const auto& v : c.second)
        if (counts.count(v)) n += counts.at(v);
      known += n;
      o << " " << n << " |";
    }
    o << " " << total - known << " |\n";
  }
  return o.str();
}

}  // namespace

std::string paper_tally_markdown(const std::vector<ClaimRow>& rows) {
  std::map<std::string, std::map<std::string, int>> papers, extensions;
  std::vector<std::string> unstated;
  for (const auto& r : rows) {
    if (judges_the_paper(r.scope.scope)) papers[r.paper][r.verdict]++;
    else if (r.scope.scope == "extension" || r.scope.scope == "variant") extensions[r.paper][r.verdict]++;
    else if (r.scope.scope == "unstated") unstated.push_back(r.id);
  }
  if (papers.empty() && extensions.empty() && unstated.empty()) return "";
  std::ostringstream o;
  o << "Each paper's own statements (as printed, or reconstructed where the print is lost), counted for or against "
       "that paper:\n\n"
    << tally_table(papers) << "\nThe extensions and variants (the bench's own comparisons, stronger forms, sets the "
                               "paper does not name, and the bench's versions of a printed method), by the paper they "
                               "concern, counted for or against none:\n\n"
    << (extensions.empty() ? std::string("None.\n") : tally_table(extensions));
  if (!unstated.empty()) {
    o << "\nRows without a scope entry (counted in neither):";
    for (const auto& id : unstated) o << " `" << id << "`";
    o << "\n";
  }
  return o.str();
}

std::vector<std::string> row_assumptions(const ClaimRow& row) {
  std::vector<std::string> a;
  if (row.training())
    if (std::string rule = claim_rule_text(row.statistics); !rule.empty()) a.push_back(std::move(rule));
  a.insert(a.end(), row.scope.assumptions.begin(), row.scope.assumptions.end());
  return a;
}

json claims_json(const std::vector<ClaimRow>& rows) {
  json a = json::array();
  for (const auto& r : rows) {
    json c = {{"id", r.id},       {"paper", r.paper},         {"where", r.where},         {"statement", r.statement},
              {"measured", r.measured}, {"paper_value", r.paper_value}, {"verdict", r.verdict}};
    if (!r.corrected_form.empty()) c["corrected_form"] = r.corrected_form;
    if (!r.witness.empty()) c["witness"] = r.witness;
    if (!r.note.empty()) c["note"] = r.note;
    if (r.training()) c["statistics"] = r.statistics;  // difference, CI, p, adjusted p, TOST, power, outcome
    if (moved_on_other_kernels(r)) c["machine_sensitive"] = true;
    if (!r.scope.scope.empty()) {
      c["scope"] = r.scope.scope;
      if (!r.scope.quote.empty()) c["quote"] = r.scope.quote;
      if (!r.scope.rebuilt_from.empty()) c["rebuilt_from"] = r.scope.rebuilt_from;
      if (!r.scope.id.empty()) {
        c["assumptions"] = row_assumptions(r);
        c["deviations"] = r.scope.deviations;
        c["checked_on"] = checked_on(r).text;
      }
    }
    a.push_back(c);
  }
  return a;
}

}  // namespace dmlbench::experiments
