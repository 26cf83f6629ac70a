// Each decided training verdict under other kernels of the same machine (bench/kernel_recurrence.py).
#include "dmlbench/experiments/report_kernel_recurrence.hpp"

#include "dmlbench/experiments/report_io.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

const std::set<std::string> kVerdicts = {"verified", "direction-only", "refuted", "not-reproduced", "inconclusive"};

bool flips(const std::string& a, const std::string& b) {
  return (a == "verified" && b == "refuted") || (a == "refuted" && b == "verified");
}

// Throws "PATH: why" unless `j` is an object of claim id -> verdict word.
void check_verdicts(const json& j, const std::string& path, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(path + ": " + where + " is not an object of claim -> verdict");
  for (const auto& [id, v] : j.items())
    if (!v.is_string() || !kVerdicts.count(v.get<std::string>()))
      throw std::runtime_error(path + ": " + where + "." + id + " is not a verdict (" + v.dump() + ")");
}

void check_record(const json& r, const std::string& path) {
  if (!r.is_object() || !r.contains("baseline") || !r["baseline"].is_object())
    throw std::runtime_error(path + ": not a kernel recurrence record (no \"baseline\"; bench/kernel_recurrence.py "
                                    "writes one)");
  if (!r["baseline"].contains("stage_hashes") || !r["baseline"]["stage_hashes"].is_object())
    throw std::runtime_error(path + ": baseline has no \"stage_hashes\"");
  check_verdicts(r["baseline"].value("verdicts", json()), path, "baseline.verdicts");
  if (!r.contains("settings") || !r["settings"].is_object() || r["settings"].empty())
    throw std::runtime_error(path + ": no \"settings\"");
  for (const auto& [s, v] : r["settings"].items()) {
    if (s.find('=') == std::string::npos) throw std::runtime_error(path + ": setting \"" + s + "\" is not KEY=VALUE");
    check_verdicts(v.value("verdicts", json()), path, "settings." + s + ".verdicts");
    if (!v.value("stages", json()).is_array() || !v.value("claims", json()).is_array())
      throw std::runtime_error(path + ": setting " + s + " names no \"stages\" and \"claims\" it reran");
  }
}

// "A and B", "A, B and C"
std::string joined(const std::vector<std::string>& v) {
  std::string o;
  for (std::size_t i = 0; i < v.size(); ++i) o += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
  return o;
}

// "; under other kernels: the same under `A=1` (its stage rerun) and `B=2` (the family decided again)", a moved one
// "inconclusive under `B=2` (its stage rerun)", then "(machine-sensitive)" or "(flipped direction)"
std::string kernels_text(const json& k, const std::string& verdict) {
  std::vector<std::string> same, moved;
  for (const auto& [s, v] : k["settings"].items()) {
    const std::string w = v.get<std::string>();
    const bool rerun = std::find(k["rerun_under"].begin(), k["rerun_under"].end(), json(s)) != k["rerun_under"].end();
    const std::string where = "`" + s + "` (" + (rerun ? "its stage rerun" : "the family decided again") + ")";
    if (w == verdict) same.push_back(where);
    else moved.push_back(w + " under " + where);
  }
  std::ostringstream o;
  o << "; under other kernels: ";
  if (!moved.empty()) o << joined(moved) << (same.empty() ? "" : "; ");
  if (!same.empty()) o << "the same under " << joined(same);
  if (k["flipped"].get<bool>()) o << " (flipped direction)";
  else if (k["machine_sensitive"].get<bool>()) o << " (machine-sensitive)";
  return o.str();
}

}  // namespace

KernelRecurrence read_kernel_recurrence(const std::string& path, const std::string& shown_as,
                                        const std::vector<Stage>& stages) {
  KernelRecurrence k{shown_as, read_json_file(path), {}};
  check_record(k.record, path);
  std::map<std::string, std::string> here;
  for (const auto& s : stages) here[s.name] = s.hash;
  for (const auto& [name, h] : k.record["baseline"]["stage_hashes"].items()) {
    const auto it = here.find(name);
    if (it == here.end()) k.stale.push_back("stage " + name + " is not one of this report's");
    else if (it->second != h.get<std::string>())
      k.stale.push_back("stage " + name + ": config hash " + h.get<std::string>() + ", here " + it->second);
  }
  return k;
}

std::vector<std::string> attach_kernel_recurrence(std::vector<ClaimRow>& rows, KernelRecurrence& k) {
  if (!k.current()) return {};
  const json& base = k.record["baseline"]["verdicts"];
  for (const auto& r : rows)
    if (r.training() && base.contains(r.id) && base[r.id].get<std::string>() != r.verdict)
      k.stale.push_back("claim " + r.id + ": baseline " + base[r.id].get<std::string>() + ", here " + r.verdict);
  if (!k.current()) return {};
  std::vector<std::string> sensitive;
  for (auto& r : rows) {
    if (!r.training() || !base.contains(r.id) || !r.statistics.contains("decision")) continue;
    json kern = {{"settings", json::object()}, {"rerun_under", json::array()}, {"flipped", false},
                 {"machine_sensitive", false}};
    for (const auto& [s, v] : k.record["settings"].items()) {
      const std::string w = v["verdicts"].value(r.id, r.verdict);
      kern["settings"][s] = w;
      const json& claims = v["claims"];
      if (std::find(claims.begin(), claims.end(), json(r.id)) != claims.end()) kern["rerun_under"].push_back(s);
      if (flips(r.verdict, w)) kern["flipped"] = true;
      else if (w != r.verdict) kern["machine_sensitive"] = true;
    }
    r.statistics["recurrence"]["kernels"] = kern;
    r.measured += kernels_text(kern, r.verdict);
    if (moved_on_other_kernels(r)) sensitive.push_back(r.id);
  }
  return sensitive;
}

bool moved_on_other_kernels(const ClaimRow& r) {
  if (!r.training() || !r.statistics.contains("recurrence") || !r.statistics["recurrence"].contains("kernels"))
    return false;
  const json& k = r.statistics["recurrence"]["kernels"];
  return k.value("machine_sensitive", false) || k.value("flipped", false);
}

std::string kernel_recurrence_markdown(const KernelRecurrence& k, const std::vector<ClaimRow>& rows) {
  if (k.file.empty()) return "";
  std::ostringstream o;
  o << "## Verdicts on other kernels\n\n";
  if (!k.current()) {
    o << "`" << k.file << "` (bench/kernel_recurrence.py) was made from other evidence than this report's, so no row "
      << "shows it: " << joined(k.stale) << ". Rerun it on this report's work folder.\n\n";
    return o.str();
  }
  const json& r = k.record;
  std::vector<std::string> settings;
  o << "From `" << k.file << "` (`bench/kernel_recurrence.py`), on "
    << r["baseline"].value("machine", std::string("the report's machine"))
    << ": under each setting below, the stages it names were trained again from seed 1 with their seed spending, and "
       "every training claim was decided again over the whole family. Each training row of the family says in its "
       "measured cell what it became under each setting. A verdict that flips direction (verified <-> refuted) fails "
       "the script; one that moves otherwise is **machine-sensitive**.\n\n| setting | stages trained again | seconds |\n|---|---|---|\n";
  for (const auto& [s, v] : r["settings"].items()) {
    settings.push_back("`" + s + "`");
    std::vector<std::string> stages;
    double secs = 0;
    for (const auto& st : v["stages"]) stages.push_back("`" + st.get<std::string>() + "`");
    const json seconds = v.value("seconds", json::object());
    for (const auto& [st, t] : seconds.items()) secs += t.is_number() ? t.get<double>() : 0;
    o << "| `" << s << "` | " << joined(stages) << " | " << std::lround(secs) << " |\n";
  }
  o << "\n";
  std::size_t n = 0, rerun = 0;
  std::vector<const ClaimRow*> moved;
  for (const auto& row : rows) {
    if (!row.training() || !row.statistics.contains("recurrence") || !row.statistics["recurrence"].contains("kernels"))
      continue;
    ++n;
    const json& kern = row.statistics["recurrence"]["kernels"];
    rerun += kern["rerun_under"].empty() ? 0 : 1;
    if (moved_on_other_kernels(row)) moved.push_back(&row);
  }
  o << n << " training rows of the family compared, " << rerun << " of them from a stage trained again under some setting; "
    << moved.size() << " moved under some setting.\n\n";
  if (moved.empty()) return o.str();
  o << "| id | verdict here |";
  for (const auto& s : settings) o << " " << s << " |";
  o << "\n|---|---|";
  for (std::size_t i = 0; i < settings.size(); ++i) o << "---|";
  o << "\n";
  for (const auto* row : moved) {
    o << "| `" << row->id << "` | " << row->verdict << " |";
    for (const auto& [s, v] : row->statistics["recurrence"]["kernels"]["settings"].items())
      o << " " << v.get<std::string>() << " |";
    o << "\n";
  }
  return o.str() + "\n";
}

}  // namespace dmlbench::experiments
