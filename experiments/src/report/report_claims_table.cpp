// The report's claims as Markdown (the claims table, the errata, the refutations, the verdict counts) and as JSON.
#include "dmlbench/experiments/report_claims_table.hpp"

#include "dmlbench/experiments/report_text.hpp"

#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

// " (extension: ...)" for a row that judges the bench's own comparison, "" for the others.
static std::string scope_tag(const ClaimRow& r) {
  if (r.scope.scope == "extension") return " (extension: the bench's own comparison, counted for no paper)";
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
      << " | **" << r.verdict << "** |\n";
  return o.str();
}

std::string errata_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows)
    if (r.verdict == "erratum") {
      ++n;
      // the row's statement is the claim as the bench judges it (issue 50: not always the printed words); the
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
    if (r.verdict == "refuted" || r.verdict == "not-reproducible" || r.verdict == "not-reproduced") {
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
  return o.str();
}

std::string verdict_counts_text(const std::vector<ClaimRow>& rows) {
  std::vector<const ClaimRow*> all, paper, extension, unstated;
  for (const auto& r : rows) {
    all.push_back(&r);
    if (judges_the_paper(r.scope.scope)) paper.push_back(&r);
    else if (r.scope.scope == "extension") extension.push_back(&r);
    else if (r.scope.scope == "unstated") unstated.push_back(&r);
  }
  std::ostringstream o;
  o << rows.size() << " claims:" << counts_of(all);
  if (paper.size() + extension.size() + unstated.size() == 0) return o.str();  // no scopes attached
  o << " On the papers' own statements (as printed or reconstructed), " << paper.size() << " rows:" << counts_of(paper)
    << " extensions (the bench's own comparisons or stronger forms, counted for or against no paper), "
    << extension.size() << " rows:" << counts_of(extension);
  if (!unstated.empty()) o << " without a scope entry, " << unstated.size() << " rows:" << counts_of(unstated);
  return o.str();
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
    if (!r.scope.scope.empty()) {
      c["scope"] = r.scope.scope;
      if (!r.scope.quote.empty()) c["quote"] = r.scope.quote;
      if (!r.scope.rebuilt_from.empty()) c["rebuilt_from"] = r.scope.rebuilt_from;
      if (!r.scope.id.empty()) {
        c["assumptions"] = r.scope.assumptions;
        c["deviations"] = r.scope.deviations;
      }
    }
    a.push_back(c);
  }
  return a;
}

}  // namespace dmlbench::experiments
