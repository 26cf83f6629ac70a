// Adjusted p-values over a family of tests: Holm's step-down (Holm 1979, controls the family-wise
// error) and Benjamini-Hochberg's step-up (1995, controls the false discovery rate), as statsmodels multipletests
// "holm" and "fdr_bh".
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

enum class PAdjustment { holm, benjamini_hochberg };
// "holm" or "bh"; throws std::invalid_argument naming both for another name.
PAdjustment p_adjustment_named(const std::string& name);
std::string p_adjustment_name(PAdjustment method);

// The adjusted p-values in the input's order: monotone in the raw p (a smaller raw p never gets a larger adjusted p),
// never below the raw p, capped at 1. NaN rule: a NaN entry is a claim with no test (e.g. no spread) and is not a
// member of the family: it stays NaN and the family size m counts only the other entries. Throws
// std::invalid_argument for an entry outside [0, 1] (NaN aside).
std::vector<double> holm_adjusted(const std::vector<double>& p);
std::vector<double> benjamini_hochberg_adjusted(const std::vector<double>& p);
std::vector<double> adjusted_p_values(const std::vector<double>& p, PAdjustment method);

}  // namespace dmlbench::experiments
