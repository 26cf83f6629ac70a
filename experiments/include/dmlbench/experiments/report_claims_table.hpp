// The report's claims as Markdown (the claims table, the errata, the refutations, the verdict counts) and as JSON.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::experiments {

std::string claims_table_markdown(const std::vector<ClaimRow>& rows);
std::string errata_markdown(const std::vector<ClaimRow>& rows);      // every erratum: witness and corrected form
// refuted, not-reproducible (theory, sims) and not-reproduced (training), with witness and why
std::string refutations_markdown(const std::vector<ClaimRow>& rows);
// "N claims: n1 verdict1; n2 verdict2;" with the verdicts in alphabetical order; where rows carry scopes, then the
// same counts for the rows on the papers' own statements, for the extensions, and for rows without a scope entry.
std::string verdict_counts_text(const std::vector<ClaimRow>& rows);

// The papers' own rows (as printed or reconstructed) counted per paper, one table row a paper:
// verified / refuted / erratum / not reproduced (theory's not-reproducible and training's not-reproduced) /
// inconclusive, and the extensions in a table of their own, by the paper they concern; rows without a scope entry
// named in a line. "" when no scopes are attached.
std::string paper_tally_markdown(const std::vector<ClaimRow>& rows);
nlohmann::ordered_json claims_json(const std::vector<ClaimRow>& rows);
// A row's assumptions as claims.json and AUDIT.md print them: a decided training row's decision rule first
// (claim_rule_text, generated from its statistics), then its scope entry's.
std::vector<std::string> row_assumptions(const ClaimRow& row);
// AUDIT.md's table: per row the printed statement, what the bench checks, where they differ, what the check
// fixes, where the run deviates, how the statement fares with what is fixed left free, and what changed.
std::string audit_markdown(const std::vector<ClaimRow>& rows);

}  // namespace dmlbench::experiments
