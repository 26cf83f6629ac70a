// Output of a claims table (theory, sims): terminal table, JSON and Markdown, all stamped with their provenance.
#pragma once

#include "dmlbench/theory/claims.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace dmlbench::app {

nlohmann::ordered_json provenance(const nlohmann::ordered_json& config);
nlohmann::ordered_json to_json(const theory::ClaimResult& r);
std::string sci(double v);
void print_table(const std::vector<theory::ClaimResult>& rs, std::ostream& out);
std::string markdown(const std::string& title, const std::vector<theory::ClaimResult>& rs, const nlohmann::ordered_json& prov);

// Prints the table and writes the optional JSON and Markdown files.
void report_claims(const std::string& title, const std::vector<theory::ClaimResult>& rs, const nlohmann::ordered_json& config,
                   double seconds, const std::string& json_path, const std::string& md_path);

}  // namespace dmlbench::app
