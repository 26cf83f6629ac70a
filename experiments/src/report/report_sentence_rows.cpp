// One sentence of a paper judged once, from the parts the bench checks it in.
#include "dmlbench/experiments/report_sentence_rows.hpp"

#include <algorithm>
#include <stdexcept>

namespace dmlbench::experiments {

std::string sentence_verdict(const std::vector<std::string>& part_verdicts, const std::string& rule) {
  if (part_verdicts.empty()) throw std::invalid_argument("a sentence needs parts");
  std::size_t verified = 0, refuted = 0;
  for (const auto& v : part_verdicts) {
    verified += v == "verified";
    refuted += v == "refuted";
  }
  const std::size_t k = part_verdicts.size();
  if (rule == "all") return verified == k ? "verified" : refuted > 0 ? "refuted" : "inconclusive";
  if (rule == "most") return 2 * verified > k ? "verified" : 2 * refuted >= k ? "refuted" : "inconclusive";
  throw std::invalid_argument("a sentence's rule is all or most, got '" + rule + "'");
}

std::vector<std::string> add_sentence_rows(std::vector<ClaimRow>& rows, const std::map<std::string, ClaimScope>& scopes) {
  std::vector<ClaimRow> added;
  for (const auto& [id, scope] : scopes) {
    if (!scope.sentence) continue;
    const ClaimSentence& s = *scope.sentence;
    if (std::none_of(s.rows.begin(), s.rows.end(), [&](const auto& part) { return row_with_id(rows, part); }))
      continue;  // a report without the stage of its parts (a profile or fixture that leaves it out)
    std::vector<std::string> verdicts;
    std::string parts;
    for (const auto& part : s.rows) {
      const ClaimRow* r = row_with_id(rows, part);
      if (!r) throw std::runtime_error("sentence " + id + ": its part " + part + " is no claim row");
      if (r->paper != scope.paper)
        throw std::runtime_error("sentence " + id + ": its part " + part + " is a row of [" + r->paper + "]");
      if (r->scope.scope != "extension")
        throw std::runtime_error("sentence " + id + ": its part " + part + " must be an extension (the sentence is "
                                 "judged once, by its own row), not " + r->scope.scope);
      verdicts.push_back(r->verdict);
      parts += (parts.empty() ? "" : "; ") + part + ": " + r->verdict;
    }
    ClaimRow row;
    row.id = id;
    row.paper = scope.paper;
    row.where = s.where;
    row.statement = s.statement;
    row.layer = scope.layer;
    row.scope = scope;
    row.verdict = sentence_verdict(verdicts, s.rule);
    row.measured = "its parts: " + parts + " (rule: " +
                   (s.rule == "all" ? std::string("every part") : std::string("more than half of the parts")) + ")";
    row.note = "the sentence judged once, from the rows that check it in parts (extensions, each decided in its "
               "family)";
    added.push_back(row);
  }
  std::vector<std::string> ids;
  for (auto& r : added) {
    ids.push_back(r.id);
    rows.push_back(std::move(r));
  }
  return ids;
}

}  // namespace dmlbench::experiments
