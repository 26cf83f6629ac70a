// A reproduction in the report: side by side with the paper (one row per metric), and its variants (one row each).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

// One row per metric: ours and the paper's per arm, the mean of the per-seed differences of the compared arms and
// the verdict; then the diagnostics.
std::string reproduction_table_markdown(const nlohmann::ordered_json& summary);
// One row per (label, variant of a summary): the metrics marked in_table (each arm and the mean of the per-seed
// differences) and the first diagnostic per arm.
std::string variants_table_markdown(const std::vector<std::pair<std::string, nlohmann::ordered_json>>& variants);

}  // namespace dmlbench::experiments
