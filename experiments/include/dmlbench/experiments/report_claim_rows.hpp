// The rows of the report's claims table: from a claims.json (theory, sims) or a reproduction's summary.json, and all
// of them gathered from a report's work folder.
#pragma once

#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// One row of the report's claims table, from a claims.json (theory, sims) or a training summary ([LCC] Table 1).
struct ClaimRow {
  std::string id, paper, where, statement;  // where: "eq 19", "Thm 1", "Table 1"
  std::string measured;                     // what the bench measured: error vs tolerance, or mean +- std
  std::string paper_value;                  // the paper's printed number, where it prints one
  std::string verdict;                      // verified | refuted | erratum | not-reproducible
  std::string corrected_form, witness, note;
  std::string layer;  // theory | sims | experiments: the stage that made the row (gather_claims sets it)
  ClaimScope scope;  // what the row judges against the paper's text (attach_claim_scopes); empty id: none attached
  // A training claim (from a summary row with "statistics", claim_statistics.hpp): its test's inputs and results,
  // decided again at the adjusted p by decide_training_claims; null for theory and sims rows and old summaries.
  nlohmann::ordered_json statistics;
  bool training() const { return statistics.is_object(); }
};

// The row with this id, or nullptr.
const ClaimRow* row_with_id(const std::vector<ClaimRow>& rows, const std::string& id);

// Rows of a claims.json written by `theory check` or `sim check`; throws on a malformed file.
std::vector<ClaimRow> claim_rows_from_claims_json(const nlohmann::ordered_json& j);
// Rows of a reproduction's summary.json (`dmlbench reproduce`): one per metric of its first variant that names a
// claim, with the verdict the reproduction's test gave (reproduction.hpp: verified, refuted, not-reproducible).
std::vector<ClaimRow> claim_rows_from_reproduction_summary(const nlohmann::ordered_json& summary,
                                                           const std::string& paper, const std::string& where);

// Every claim row a report's work folder holds, in the report's order: theory-claims, sims-claims, then the
// reproductions (in the order given) whose file says they carry claims.
struct ReportClaims {
  std::vector<ClaimRow> rows;
  nlohmann::ordered_json sources = nlohmann::ordered_json::object();  // stage -> file, git revision, claim count
  std::map<std::string, nlohmann::ordered_json> summaries;            // reproduction stage -> its summary.json
};
// Throws std::runtime_error "PATH: why" for a malformed file, and when the work folder holds no claim at all.
ReportClaims gather_claims(const std::string& work, const std::vector<Reproduction>& reproductions);
// Gives every row its scope entry (read_claim_scopes); a row without one keeps scope "unstated". Returns those rows,
// each as "ID (the file its entry belongs in: <layer>/scopes/<PAPER>.json)". Throws std::runtime_error for an entry
// whose paper differs from its row's.
std::vector<std::string> attach_claim_scopes(std::vector<ClaimRow>& rows,
                                             const std::map<std::string, ClaimScope>& scopes);

}  // namespace dmlbench::experiments
