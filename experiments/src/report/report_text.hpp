// Text pieces shared by the report's Markdown tables: a safe table cell and a number with one decimal.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace dmlbench::experiments {

// One Markdown table cell: newlines become spaces, pipes are escaped, an empty cell is "-".
std::string markdown_cell(std::string s);
// v with one decimal ("42.0"), as the papers print their tables.
std::string fixed1(double v);
// A JSON number in scientific notation with one decimal ("2.2e-16"); a string as it is; anything else "n/a".
std::string sci1(const nlohmann::ordered_json& v);
// The same with its sign always written ("+2.0e-04"): a signed margin.
std::string signed_sci1(const nlohmann::ordered_json& v);
// "+5.0" / "-0.3": one decimal with its sign; "n/a" for a non-number
std::string signed_fixed1(const nlohmann::ordered_json& v);

}  // namespace dmlbench::experiments
