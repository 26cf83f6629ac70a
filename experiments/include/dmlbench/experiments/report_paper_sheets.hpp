// One erratum sheet per paper (reports/papers/<KEY>.md): every row on the paper's own statements (scope as-printed or
// reconstructed) whose verdict is refuted, erratum, contested or premise-not-reached, each with the paper's words and place, the bench's
// reading (its scope, what the check fixes that the paper leaves free, where the run differs), the evidence, what
// would change the verdict and the command that reproduces it; the verified rows in one table at the end. Generated
// from the rows alone, so that every number on a sheet is the report's own.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The verdicts a sheet lists as findings against the paper.
bool sheet_finding(const std::string& verdict);

// The command that reproduces a row: `dmlbench theory check` / `dmlbench sim check` for a theory or sims row, the
// reproduction's `dmlbench reproduce` for a training row (commands: claim id -> that command). "" where none is known.
std::string reproduce_command(const ClaimRow& row, const std::map<std::string, std::string>& commands);

// Per paper key, its sheet's Markdown; papers without a row on their own statements have none. Throws
// std::runtime_error "sheet KEY: row ID: no FIELD" for a finding without its quote, place, reading or command.
// `tuned`: claim id -> what its tuned twin found (tuned_readings), shown beside the finding.
std::map<std::string, std::string> paper_sheets_markdown(const std::vector<ClaimRow>& rows,
                                                         const std::map<std::string, std::string>& commands,
                                                         const std::map<std::string, std::string>& tuned = {});

// The summary's list of sheets: "- [XHN](papers/XHN.md): 2 refuted, 1 erratum; 12 verified" per paper.
std::string paper_sheets_index_markdown(const std::vector<ClaimRow>& rows);

}  // namespace dmlbench::experiments
