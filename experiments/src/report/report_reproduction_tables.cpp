// A reproduction in the report: side by side with the paper (one row per metric), and its variants (one row each).
#include "report_reproduction_tables.hpp"

#include "report_text.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

using Arms = std::vector<std::pair<std::string, std::string>>;  // name, label

// The mean of the per-seed differences of a claim (paired by seed, or value - bound, over all its seeds), else the
// difference of the compared arms' means, or "-". A description: each claim's decision is in the claims table.
std::string difference_text(const json& row) {
  if (row.contains("statistics") && row["statistics"].contains("per_seed") &&
      row["statistics"]["per_seed"]["mean"].is_number()) {
    const json& p = row["statistics"]["per_seed"];
    return fixed1(p["mean"]) + " over " + std::to_string(p.value("n", 0)) + " seeds";
  }
  return row.contains("difference") ? fixed1(row["difference"]) : std::string("-");
}

void reproduction_header(std::ostringstream& o, const Arms& arms, bool paper) {
  o << "| metric";
  for (const auto& a : arms) o << " | ours, " << a.second;
  for (const auto& a : arms)
    if (paper) o << " | paper, " << a.second;
  o << " | difference (per-seed mean) | verdict |\n|---";
  for (std::size_t i = 0; i < (paper ? 2 : 1) * arms.size() + 2; ++i) o << "|---";
  o << "|\n";
}

void reproduction_row(std::ostringstream& o, const json& row, const Arms& arms, bool paper) {
  o << "| " << row.value("metric", "");
  for (const auto& a : arms) o << " | " << mean_std_text(row["arms"][a.first]);
  for (const auto& a : arms)
    if (paper)
      o << " | " << (row["arms"][a.first].contains("paper") ? fixed1(row["arms"][a.first]["paper"]) : std::string("-"));
  o << " | " << difference_text(row);
  if (row.contains("baseline") && row.contains("treatment")) {  // a metric with its own sides
    o << ": " << row["treatment"].value("label", "") << " at `" << row["treatment"].value("path", "") << "` "
      << mean_std_text(row["treatment"]) << " vs " << row["baseline"].value("label", "");
    if (row["baseline"].value("arm", "") != "bound")  // a fixed number has no path and no spread
      o << " at `" << row["baseline"].value("path", "") << "` " << mean_std_text(row["baseline"]);
  }
  o << " | " << row.value("verdict", "-") << " |\n";
}

// The header of the variants table, from the first variant's metrics and diagnostics.
void variants_header(std::ostringstream& o, const std::vector<json>& metrics, const json& diags) {
  o << "| config | change";
  for (const auto& m : metrics) {
    for (auto it = m["arms"].begin(); it != m["arms"].end(); ++it)
      o << " | " << m.value("metric", "") << ": " << it.value().value("label", it.key());
    o << " | difference (per-seed mean)";
  }
  if (!diags.empty())
    for (auto it = diags[0]["arms"].begin(); it != diags[0]["arms"].end(); ++it)
      o << " | " << diags[0].value("metric", "") << ": " << it.key();
  o << " |\n|---|---";
  for (const auto& m : metrics) for (std::size_t i = 0; i <= m["arms"].size(); ++i) o << "|---";
  if (!diags.empty()) for (std::size_t i = 0; i < diags[0]["arms"].size(); ++i) o << "|---";
  o << "|\n";
}

}  // namespace

std::string reproduction_table_markdown(const json& summary) {
  const json& repro = summary.at("config").at("reproduction");
  const json& v = summary.at("variants").at(0);
  Arms arms;
  for (const auto& a : repro.at("arms")) arms.emplace_back(a.at("name"), a.value("label", a.at("name").get<std::string>()));
  // the paper's columns only where the paper prints a number for some arm (a figure of bars prints none)
  bool paper = false;
  for (const auto& row : v.at("rows"))
    for (const auto& a : arms) paper = paper || row["arms"][a.first].contains("paper");
  std::ostringstream o;
  reproduction_header(o, arms, paper);
  for (const auto& row : v.at("rows")) reproduction_row(o, row, arms, paper);
  for (const auto& d : v.value("diagnostics", json::array())) {
    o << "| " << d.value("metric", "") << " (diagnostic)";
    for (const auto& a : arms) o << " | " << mean_std_text(d["arms"][a.first], 3);
    for (std::size_t i = 0; paper && i < arms.size(); ++i) o << " | -";
    o << " | - | - |\n";
  }
  return o.str();
}

std::string variants_table_markdown(const std::vector<std::pair<std::string, json>>& rows_in) {
  std::ostringstream o;
  bool header = false;
  for (const auto& [label, v] : rows_in) {
    std::vector<json> metrics;
    for (const auto& r : v.at("rows"))
      if (r.contains("in_table") ? r["in_table"].get<bool>() : true) metrics.push_back(r);
    const json diags = v.value("diagnostics", json::array());
    if (!header) variants_header(o, metrics, diags);
    header = true;
    o << "| `" << label << "` | " << markdown_cell(v.value("change", ""));
    for (const auto& m : metrics) {
      for (auto it = m["arms"].begin(); it != m["arms"].end(); ++it) o << " | " << mean_std_text(it.value());
      o << " | " << difference_text(m);
    }
    if (!diags.empty())
      for (auto it = diags[0]["arms"].begin(); it != diags[0]["arms"].end(); ++it)
        o << " | " << mean_std_text(it.value());
    o << " |\n";
  }
  return o.str();
}

}  // namespace dmlbench::experiments
