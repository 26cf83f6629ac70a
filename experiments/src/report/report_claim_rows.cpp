// The rows of the report's claims table: from a claims.json (theory, sims) or a reproduction's summary.json, and all
// of them gathered from a report's work folder.
#include "dmlbench/experiments/report_claim_rows.hpp"

#include "dmlbench/experiments/report_io.hpp"
#include "report_text.hpp"

#include <array>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

static std::string str_or(const json& j, const char* key, const std::string& fallback = "") {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

static ClaimRow claim_row_from_claim(const json& c) {
  for (const char* key : {"id", "paper", "equation", "statement", "verdict"})
    if (!c.contains(key) || !c[key].is_string())
      throw std::runtime_error(std::string("claim without a string \"") + key + "\": " + c.dump().substr(0, 120));
  ClaimRow r;
  r.id = c["id"];
  r.paper = c["paper"];
  r.where = c["equation"];
  r.statement = c["statement"];
  r.verdict = c["verdict"];
  std::ostringstream m;
  if (c.contains("measured"))  // a row whose measure is not an error against a tolerance says what it measured
    m << str_or(c, "measured") << " (" << c.value("samples", 0) << " samples)";
  else
    m << "error " << sci1(c.value("max_error", json())) << " (tol " << sci1(c.value("tolerance", json())) << ", "
      << c.value("samples", 0) << " samples)";
  if (c.contains("corrected_error")) m << "; corrected form " << sci1(c["corrected_error"]);
  // a refutation or an erratum: the signed margin by which its counterexample wins, and what it compares
  if (c.contains("margin") && (r.verdict == "refuted" || r.verdict == "erratum"))
    m << "; counterexample wins by " << signed_sci1(c["margin"]) << " (" << str_or(c, "margin_of") << ")";
  r.measured = m.str();
  r.corrected_form = str_or(c, "corrected_form");
  r.witness = str_or(c, "witness");
  r.note = str_or(c, "note");
  return r;
}

std::vector<ClaimRow> claim_rows_from_claims_json(const json& j) {
  if (!j.contains("claims") || !j["claims"].is_array()) throw std::runtime_error("claims file has no \"claims\" array");
  std::vector<ClaimRow> rows;
  for (const auto& c : j["claims"]) rows.push_back(claim_row_from_claim(c));
  return rows;
}

// What a summary row measured: a metric with its own sides names them (a bound's fixed number without path or
// spread), the others list every arm; then the seeds.
static std::string measured_text(const json& row, bool sides) {
  std::ostringstream m;
  std::string sep;
  if (sides)
    for (const char* side : row["baseline"].value("arm", "") == "bound" ? std::array<const char*, 2>{"treatment", "baseline"}
                                                                        : std::array<const char*, 2>{"baseline", "treatment"}) {
      m << sep << row[side].value("label", "");
      if (row[side].value("arm", "") != "bound")  // a claim's fixed number: no path, no spread
        m << " (" << row[side].value("path", "") << ") " << mean_std_text(row[side]);
      sep = " vs ";
    }
  else
    for (auto it = row.at("arms").begin(); it != row.at("arms").end(); ++it) {
      m << sep << it.value().value("label", it.key()) << " " << mean_std_text(it.value());
      sep = ", ";
    }
  m << " (" << row.value("seeds_per_arm", 0) << (row.value("seeds_per_arm", 0) == 1 ? " seed" : " seeds") << ")";
  return m.str();
}

static ClaimRow claim_row_from_summary_row(const json& row, const json& cmp, const std::string& paper,
                                           const std::string& where) {
  // a metric with its own sides ("compare") names them; the others compare the reproduction's arms
  const bool sides = row.contains("baseline") && row.contains("treatment");
  const std::string base = sides ? row["baseline"].value("arm", "") : cmp.value("baseline", ""),
                    treat = sides ? row["treatment"].value("arm", "") : cmp.value("treatment", "");
  ClaimRow r;
  r.id = row["claim"];
  r.paper = paper;
  r.where = row.value("where", where);  // the metric's own where, else its file's
  r.statement = row.value("statement", "");
  r.verdict = row["verdict"];
  const json& arms = row.at("arms");
  if (arms.contains(base) && arms.contains(treat) && arms[base].contains("paper") && arms[treat].contains("paper"))
    r.paper_value = fixed1(arms[base]["paper"]) + " -> " + fixed1(arms[treat]["paper"]);
  r.measured = measured_text(row, sides);
  r.note = row.value("note", "");
  if (row.contains("statistics") && row["statistics"].is_object()) {  // decided again at its adjusted p
    r.statistics = row["statistics"];
    r.verdict = r.statistics.value("outcome", r.verdict);
    r.note = r.statistics.value("outcome_reason", "");
    return r;
  }
  if (r.verdict == "refuted")
    r.witness = treat + " minus " + (base == "bound" ? row["baseline"].value("label", base) : base) + " = " +
                fixed1(row.value("difference", 0.0)) + " over " + std::to_string(row.value("seeds_per_arm", 0)) +
                " seeds per arm";
  return r;
}

std::vector<ClaimRow> claim_rows_from_reproduction_summary(const json& j, const std::string& paper,
                                                           const std::string& where) {
  if (!j.contains("variants") || !j["variants"].is_array() || j["variants"].empty())
    throw std::runtime_error("reproduction summary has no \"variants\"");
  const json& v = j["variants"][0];
  const json& repro = j.at("config").at("reproduction");
  const json cmp = repro.value("comparison", json::object());
  std::vector<ClaimRow> rows;
  for (const auto& row : v.at("rows")) {
    if (row.value("claim", "").empty() || !row.contains("verdict")) continue;
    rows.push_back(claim_row_from_summary_row(row, cmp, paper, where));
  }
  return rows;
}

// The rows of STAGE/claims.json under work, when it exists, added to c.
static void gather_claims_file(ReportClaims& c, const std::string& work, const std::string& stage,
                               const std::string& file, const std::string& layer) {
  const std::string p = work + "/" + stage + "/" + file;
  if (!fs::exists(p)) return;
  const json j = read_json_file(p);
  std::vector<ClaimRow> rs;
  try {
    rs = claim_rows_from_claims_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(p + ": " + e.what());
  }
  for (auto& r : rs) r.layer = layer;
  c.rows.insert(c.rows.end(), rs.begin(), rs.end());
  c.sources[stage] = {{"file", file}, {"git_revision", j.value("git_revision", "")}, {"claims", rs.size()}};
}

// The summary of reproduction r's stage, when it exists, and (where r says so) its claim rows, added to c.
static void gather_summary(ReportClaims& c, const std::string& work, const Reproduction& r) {
  const std::string p = work + "/" + r.stage + "/summary.json";
  if (!fs::exists(p)) return;
  const json j = read_json_file(p);
  c.summaries[r.stage] = j;
  if (!r.claims) return;
  std::vector<ClaimRow> rs;
  try {
    rs = claim_rows_from_reproduction_summary(j, r.paper, r.where);
  } catch (const std::exception& e) {
    throw std::runtime_error(p + ": " + e.what());
  }
  for (auto& row : rs) row.layer = "experiments";
  c.rows.insert(c.rows.end(), rs.begin(), rs.end());
  c.sources[r.stage] = {{"file", "summary.json"}, {"git_revision", j.value("git_revision", "")}, {"claims", rs.size()}};
}

ReportClaims gather_claims(const std::string& work, const std::vector<Reproduction>& reproductions) {
  ReportClaims c;
  gather_claims_file(c, work, "theory-claims", "claims.json", "theory");
  gather_claims_file(c, work, "sims-claims", "claims.json", "sims");
  // every reproduction of this profile: its summary (from its stage) and, where it says so, its claim rows
  for (const auto& r : reproductions) gather_summary(c, work, r);
  if (c.rows.empty()) throw std::runtime_error("no claims to report: no claims.json or summary.json under " + work);
  return c;
}

// The scope file a row's entry belongs in: <layer>/scopes/<PAPER>.json.
static std::string scope_file_of(const ClaimRow& r) {
  return (r.layer.empty() ? std::string("<layer>") : r.layer) + "/scopes/" + r.paper + ".json";
}

std::vector<std::string> attach_claim_scopes(std::vector<ClaimRow>& rows,
                                             const std::map<std::string, ClaimScope>& scopes) {
  std::vector<std::string> missing;
  std::ostringstream wrong;
  for (auto& r : rows) {
    const auto it = scopes.find(r.id);
    if (it == scopes.end()) {
      r.scope = ClaimScope{};
      r.scope.scope = "unstated";
      missing.push_back(r.id + " (" + scope_file_of(r) + ")");
      continue;
    }
    if (it->second.paper != r.paper)
      wrong << " claim " << r.id << " is [" << r.paper << "] but its scope in " << it->second.file << " says ["
            << it->second.paper << "];";
    r.scope = it->second;
  }
  if (!wrong.str().empty()) throw std::runtime_error("scope of the wrong paper:" + wrong.str());
  return missing;
}

const ClaimRow* row_with_id(const std::vector<ClaimRow>& rows, const std::string& id) {
  for (const auto& r : rows)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace dmlbench::experiments
