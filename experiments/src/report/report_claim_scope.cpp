// The claim-scope files: <layer>/scopes/<PAPER>.json, one entry per claim row, read and checked.
#include "dmlbench/experiments/report_claim_scope.hpp"

#include "dmlbench/experiments/hand_typed_result.hpp"

#include "dmlbench/experiments/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const std::vector<std::string>& claim_scope_kinds() {
  static const std::vector<std::string> kinds = {"as-printed", "reconstructed", "variant", "extension"};
  return kinds;
}

bool judges_the_paper(const std::string& scope) { return scope == "as-printed" || scope == "reconstructed"; }

static std::string nonempty_string(const json& j, const char* key, const std::string& where) {
  const std::string s = required_string(j, key, where);
  if (s.find_first_not_of(" \t\n") == std::string::npos)
    throw std::runtime_error(where + ": \"" + key + "\" is empty");
  return s;
}

static std::vector<std::string> string_list(const json& j, const char* key, const std::string& where) {
  const json& a = required_field(j, key, where);
  if (!a.is_array()) throw std::runtime_error(where + ": \"" + key + "\" must be a list of strings");
  std::vector<std::string> out;
  for (const auto& s : a) {
    if (!s.is_string() || s.get<std::string>().empty())
      throw std::runtime_error(where + ": \"" + key + "\" must be a list of non-empty strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// No text of an entry types a run's result (the report prints them from the runs); the audit's
// checks, differs and free cells state no verdict either (the action cell is a change log: "Was: ..." may).
static void refuse_hand_typed_results(const ClaimScope& s, const std::string& where) {
  const auto refuse = [&](const std::string& text, const std::string& key, bool outcome_words) {
    if (const std::string hit = hand_typed_result(text, outcome_words); !hit.empty())
      throw std::runtime_error(where + ": " + key + " types a run's result by hand ('" + hit +
                               "'): the report prints the measured values, the decision rule and the verdict itself");
  };
  for (const auto& a : s.assumptions) refuse(a, "\"assumptions\"", false);
  for (const auto& d : s.deviations) refuse(d, "\"deviations\"", false);
  refuse(s.checks, "audit \"checks\"", true);
  refuse(s.differs, "audit \"differs\"", true);
  refuse(s.free, "audit \"free\"", true);
  refuse(s.action, "audit \"action\"", false);
}

// "premise": {"text", and "row" + "reached_when", or "side" (treatment | baseline) + "at_least"}.
static ClaimPremise parse_premise(const json& p, const std::string& where) {
  const std::string w = where + " premise";
  if (!p.is_object()) throw std::runtime_error(w + ": must be an object");
  check_only_keys(p, {"text", "row", "reached_when", "side", "at_least"}, w);
  ClaimPremise c;
  c.text = nonempty_string(p, "text", w);
  if (p.contains("row") == p.contains("side"))
    throw std::runtime_error(w + ": give either \"row\" (another row's verdict) or \"side\" (a side's mean)");
  if (p.contains("row")) {
    c.row = nonempty_string(p, "row", w);
    c.reached_when = nonempty_string(p, "reached_when", w);
    return c;
  }
  c.side = nonempty_string(p, "side", w);
  if (c.side != "treatment" && c.side != "baseline")
    throw std::runtime_error(w + ": \"side\" must be treatment or baseline, got '" + c.side + "'");
  if (!p.contains("at_least") || !p["at_least"].is_number())
    throw std::runtime_error(w + ": \"at_least\" (the side's least mean that reaches the premise) is required");
  c.at_least = p["at_least"].get<double>();
  return c;
}

// "judged_by": {"rows": [two or more claim ids], "rule": "all" | "most", "where", "statement"}.
static ClaimSentence parse_sentence(const json& j, const std::string& where) {
  const std::string w = where + " judged_by";
  if (!j.is_object()) throw std::runtime_error(w + ": must be an object");
  check_only_keys(j, {"rows", "rule", "where", "statement"}, w);
  ClaimSentence c;
  c.rows = string_list(j, "rows", w);
  if (c.rows.size() < 2) throw std::runtime_error(w + ": a sentence judged in parts names at least two rows");
  c.rule = nonempty_string(j, "rule", w);
  if (c.rule != "all" && c.rule != "most")
    throw std::runtime_error(w + ": \"rule\" must be all or most, got '" + c.rule + "'");
  c.where = nonempty_string(j, "where", w);
  c.statement = nonempty_string(j, "statement", w);
  return c;
}

// One entry of a scope file; `where` = "FILE: row ID".
static ClaimScope parse_entry(const json& e, const std::string& paper, const std::string& layer,
                              const std::string& where) {
  check_only_keys(e, {"id", "scope", "quote", "rebuilt_from", "assumptions", "deviations", "audit", "premise",
                      "judged_by"}, where);
  ClaimScope s;
  s.id = nonempty_string(e, "id", where);
  s.paper = paper;
  s.layer = layer;
  s.scope = nonempty_string(e, "scope", where);
  const auto& kinds = claim_scope_kinds();
  if (std::find(kinds.begin(), kinds.end(), s.scope) == kinds.end())
    throw std::runtime_error(where + ": \"scope\" must be as-printed, reconstructed, variant or extension, got '" +
                             s.scope + "'");
  s.quote = nonempty_string(e, "quote", where);
  s.rebuilt_from = e.contains("rebuilt_from") ? required_string(e, "rebuilt_from", where) : "";
  if (s.scope == "reconstructed" && s.rebuilt_from.empty())
    throw std::runtime_error(where + ": a reconstructed row must say in \"rebuilt_from\" from what it was rebuilt");
  s.assumptions = string_list(e, "assumptions", where);
  s.deviations = string_list(e, "deviations", where);
  const json& audit = required_field(e, "audit", where);
  if (!audit.is_object()) throw std::runtime_error(where + ": \"audit\" must be an object");
  const std::string aw = where + " audit";
  check_only_keys(audit, {"checks", "differs", "free", "action"}, aw);
  s.checks = nonempty_string(audit, "checks", aw);
  s.differs = nonempty_string(audit, "differs", aw);
  s.free = required_string(audit, "free", aw);  // "" where the check fixes nothing the paper leaves free
  s.action = nonempty_string(audit, "action", aw);
  if (e.contains("premise")) s.premise = parse_premise(e["premise"], where);
  if (e.contains("judged_by")) s.sentence = parse_sentence(e["judged_by"], where);
  refuse_hand_typed_results(s, where);
  return s;
}

std::vector<ClaimScope> parse_claim_scope_file(const std::string& text, const std::string& display) {
  json j;
  try {
    j = json::parse(text, nullptr, true, true);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number beyond double
    throw std::runtime_error(display + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw std::runtime_error(display + ": a scope file is a JSON object");
  check_only_keys(j, {"paper", "layer", "rows"}, display);
  const std::string paper = nonempty_string(j, "paper", display), layer = nonempty_string(j, "layer", display);
  if (layer != "theory" && layer != "sims" && layer != "experiments")
    throw std::runtime_error(display + ": \"layer\" must be theory, sims or experiments, got '" + layer + "'");
  const json& rows = required_field(j, "rows", display);
  if (!rows.is_array() || rows.empty()) throw std::runtime_error(display + ": \"rows\" must be a non-empty list");
  std::vector<ClaimScope> out;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string where = display + ": row " + (rows[k].is_object() && rows[k].contains("id") &&
                                                            rows[k]["id"].is_string()
                                                        ? rows[k]["id"].get<std::string>()
                                                        : "#" + std::to_string(k + 1));
    if (!rows[k].is_object()) throw std::runtime_error(where + ": a row is a JSON object");
    out.push_back(parse_entry(rows[k], paper, layer, where));
    out.back().file = display;
  }
  return out;
}

std::map<std::string, ClaimScope> read_claim_scopes(const std::string& source_dir) {
  std::map<std::string, ClaimScope> by_id;
  for (const char* layer : {"theory", "sims", "experiments"}) {
    const fs::path dir = fs::path(source_dir) / layer / "scopes";
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string display = fs::relative(f, source_dir).string();
      std::ifstream in(f);
      std::stringstream text;
      text << in.rdbuf();
      for (auto& s : parse_claim_scope_file(text.str(), display)) {
        if (s.layer != layer)
          throw std::runtime_error(display + ": \"layer\" is '" + s.layer + "' but the file is under " + layer + "/");
        const auto [it, fresh] = by_id.emplace(s.id, s);
        if (!fresh) throw std::runtime_error("claim " + s.id + " has a scope in " + it->second.file + " and in " + display);
      }
    }
  }
  return by_id;
}

}  // namespace dmlbench::experiments
