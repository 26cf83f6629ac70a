// The report's training claims decided with adjusted p (issue 27 items 2 and 6): the family is every training claim
// row of the report that has a p; Holm's adjustment by default, Benjamini-Hochberg as an option (multiplicity.hpp);
// each row's outcome (verified / refuted / not-reproduced / inconclusive) is read at its adjusted p, and the rows
// whose verdict moved against the previous claims.json are listed.
#pragma once

#include "dmlbench/experiments/multiplicity.hpp"
#include "dmlbench/experiments/report_claim_rows.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::experiments {

// Adjusts the p of every training row that has one over that family, decides each training row again at its
// adjusted p (its verdict the outcome, its note the reason, its measured text followed by the difference [CI], p,
// adjusted p, and for an inconclusive row the minimum detectable effect and the seeds needed), and returns the family
// size. Rows that are not training rows are left as they are.
std::size_t decide_training_claims(std::vector<ClaimRow>& rows, PAdjustment method);

// "difference +5.0 [+2.7, +7.3] (95% CI); p = 0.0036; adjusted p = 0.011 (holm); ..." of one decided row's statistics.
std::string training_statistics_text(const nlohmann::ordered_json& statistics, PAdjustment method);

// "N training claims (p adjusted by Holm over the M with a p): a verified; b refuted; c not-reproduced; d
// inconclusive." ("" without training rows).
std::string training_outcome_counts_text(const std::vector<ClaimRow>& rows, PAdjustment method);

// The four outcomes defined, one short paragraph each (REPORT.md; the README holds the same text).
std::string training_outcomes_definition_markdown();

// The training rows whose verdict differs from the same id's in the previous claims.json (the report's, before it is
// replaced): a table of id, old and new verdict and why; "" when `previous` holds no claims.
std::string moved_verdicts_markdown(const nlohmann::ordered_json& previous, const std::vector<ClaimRow>& rows);

}  // namespace dmlbench::experiments
