// A statement judged on its premise first: premise-not-reached where the bench's run does not reach it.
#include "dmlbench/experiments/report_claim_premise.hpp"

#include "report_text.hpp"

#include <cmath>
#include <stdexcept>

namespace dmlbench::experiments {

PremiseReading read_premise(const ClaimRow& row, const std::vector<ClaimRow>& rows,
                            const std::vector<ClaimRow>& others) {
  const ClaimPremise& p = *row.scope.premise;
  PremiseReading r;
  if (!p.row.empty()) {
    const ClaimRow* other = row_with_id(rows, p.row);
    if (!other) other = row_with_id(others, p.row);
    if (!other) throw std::runtime_error("row " + row.id + ": its premise row " + p.row + " is no claim row");
    r.reached = other->verdict == p.reached_when;
    r.measured = p.row + " is " + other->verdict + " (the premise needs " + p.reached_when + ")";
    return r;
  }
  const auto& side = row.statistics.is_object() ? row.statistics.value(p.side, nlohmann::ordered_json()) : nullptr;
  if (!side.is_object() || !side.value("mean", nlohmann::ordered_json()).is_number())
    throw std::runtime_error("row " + row.id + ": its premise reads the " + p.side + " side's mean, which the row's "
                             "statistics do not hold");
  const double mean = side["mean"].get<double>();
  r.reached = mean >= p.at_least;
  r.measured = "the " + p.side + " arm's mean " + fixed1(mean) + " over " +
               std::to_string(side.value("n", 0)) + " seeds (the premise needs at least " + fixed1(p.at_least) + ")";
  return r;
}

std::vector<std::string> mark_premise_not_reached(std::vector<ClaimRow>& rows, const std::vector<ClaimRow>& others) {
  std::vector<PremiseReading> readings(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)  // read every premise before any verdict moves
    if (rows[i].scope.premise) readings[i] = read_premise(rows[i], rows, others);
  std::vector<std::string> marked;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    if (!r.scope.premise) continue;
    const std::string premise = "premise: " + r.scope.premise->text + "; measured: " + readings[i].measured;
    if (readings[i].reached) {
      r.note = premise + ", reached. " + r.note;
      continue;
    }
    r.note = premise + ", not reached: the statement is not judged (" + r.verdict +
             " read without its premise). " + r.note;
    r.verdict = "premise-not-reached";
    marked.push_back(r.id);
  }
  return marked;
}

}  // namespace dmlbench::experiments
