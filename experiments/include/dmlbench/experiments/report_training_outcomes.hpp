// The report's training claims decided over one family: the family is
// every training claim row of the report with per-seed differences of at least two seeds; each is decided by its
// anytime-valid interval (claim_statistics.hpp) at the family's level: Bonferroni on e-values by default ("holm":
// family-wise error, as Holm's was), e-BH as the option ("bh": false discovery rate, as Benjamini-Hochberg's was).
// The rows whose verdict moved against the previous claims.json are listed.
#pragma once

#include "dmlbench/experiments/multiplicity.hpp"
#include "dmlbench/experiments/report_claim_rows.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::experiments {

// The family a training row is decided in: "the papers' own statements" (scope as-printed or reconstructed) or
// "extensions and variants" (every other row, and every row before scopes are attached). The rows that count for or
// against a paper form their own family, so that the false discovery rate e-BH controls is over them alone; the
// bench's own comparisons are decided apart and cannot raise or lower the level the papers' rows are read at.
std::string training_family_of(const ClaimRow& r);

// Decides every training row with per-seed differences at its family's level (training_family_of) (its verdict the outcome, its note the
// reason, its measured text followed by the difference [deciding interval], the level, the e-value, delta, and for an
// inconclusive row the effect detectable at this level and the seeds needed), and returns the family size. Rows that
// are not training rows are left as they are.
// with_design_power false leaves out the simulated power of inconclusive rows (for simulations of many reports).
std::size_t decide_training_claims(std::vector<ClaimRow>& rows, PAdjustment method, bool with_design_power = true);

// e-BH's R over the family's e-values (Wang and Ramdas 2022): the largest k whose k-th largest e-value is at least
// m / (alpha k); 0 if none. A NaN e-value (no spread) is never selected.
std::size_t e_bh_selected(std::vector<double> e, double alpha);

// "difference +5.0 [+2.7, +7.3] (anytime-valid interval over 12 seeds by seed, level 0.05 / 75 (Bonferroni) =
// 0.00067); E = 3.1e+04; delta 2.5; ..." of one decided row's statistics.
std::string training_statistics_text(const nlohmann::ordered_json& statistics);

// "N training claims, each decided ... over the M with at least two seeds (the family): a verified; b refuted; c
// not-reproduced; d inconclusive;" ("" without training rows).
std::string training_outcome_counts_text(const std::vector<ClaimRow>& rows, PAdjustment method);

// The four outcomes defined, one short paragraph each (REPORT.md; docs/verdicts.md explains them too).
std::string training_outcomes_definition_markdown();

// The training rows whose verdict differs from the same id's in the previous claims.json (the report's, before it is
// replaced): a table of id, old and new verdict and why; "" when `previous` holds no claims.
std::string moved_verdicts_markdown(const nlohmann::ordered_json& previous, const std::vector<ClaimRow>& rows);

}  // namespace dmlbench::experiments
