// The report's caching: each stage's config hash (its commands, the code set it runs, its inputs) and whether its
// outputs in the work folder are current, so that an unchanged stage is not rerun.
#include "dmlbench/experiments/report_stage_hash.hpp"

#include "dmlbench/experiments/code_sets.hpp"
#include "dmlbench/experiments/content_hash.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_stage_store.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The stage's commands without the program, the work folder written $WORK and the repository ${SOURCE}: the same in
// every checkout on every machine. Where a command reads finished runs back from (--reuse-from) is left out: a run
// read back is the run trained.
static json commands_json(const Stage& s, const std::string& work, const std::string& source) {
  json cmds = json::array();
  for (const auto& c : s.commands) {
    json a = json::array();
    for (std::size_t i = 1; i < c.argv.size(); ++i) {
      if (c.argv[i] == "--reuse-from" && i + 1 < c.argv.size()) {
        ++i;
        continue;
      }
      std::string v = c.argv[i];
      if (v.rfind(work, 0) == 0)
        v = "$WORK" + v.substr(work.size());
      else if (!source.empty() && v.rfind(source + "/", 0) == 0)
        v = "${SOURCE}" + v.substr(source.size());
      a.push_back(v);
    }
    cmds.push_back(a);
  }
  return cmds;
}

// A stage that spends seeds by looking: which runs it makes depends on the rule (report_seed_spending.cpp and the
// statistics it calls) and on its settings (the family, level and arms the looks decide in).
static json spending_config(const SeedSpending& sp, const std::string& rule_hash) {
  return {{"code", rule_hash},
          {"first", sp.first},
          {"cap", sp.cap},
          {"family", sp.family},
          {"alpha", sp.alpha},
          {"planned_selected", sp.planned_selected},
          {"claim_arms", sp.claim_arms},
          {"g", sp.g}};
}

// The notebooks stage: the notebooks, the manifest, the hashes of the stages it reads; its outputs the figures.
static void add_notebooks_config(Stage& s, const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                                 const std::string& manifest_path, const std::map<std::string, std::string>& hash_of) {
  json nbs = json::object();
  for (const auto& nb : manifest) nbs[nb.notebook] = fnv1a_hex(read_text_file(cfg.notebooks + "/" + nb.notebook));
  s.config["notebooks"] = nbs;
  s.config["manifest"] = fnv1a_hex(read_text_file(manifest_path));
  json ups = json::object();
  for (const auto& [n, h] : hash_of) ups[n] = h;
  s.config["inputs"] = ups;
  for (const auto& nb : manifest)
    for (const auto& f : nb.figures) s.outputs.push_back(f.file);
}

void hash_stages(std::vector<Stage>& stages, const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                 const std::string& manifest_path) {
  std::map<std::string, std::string> hash_of;
  std::map<std::string, CodeFingerprint> sets;  // each code set read once, for every stage that runs it
  const auto fingerprint = [&](const CodeSetRoots& roots) -> const CodeFingerprint& {
    auto it = sets.find(roots.name);
    if (it == sets.end()) it = sets.emplace(roots.name, code_fingerprint(cfg.source_dir, roots)).first;
    return it->second;
  };
  for (auto& s : stages) {
    s.config = {{"stage", s.name}, {"commands", commands_json(s, cfg.work, cfg.source_dir)}, {"code", std::string()}};
    s.code_files.clear();
    if (!s.notebooks && !s.code_set.empty()) {
      const auto& fp = fingerprint(code_set_roots(s.code_set));
      s.config["code"] = fp.hash;
      s.code_files = fp.files;
    }
    if (!s.inputs.is_null()) s.config["inputs"] = fnv1a_hex(s.inputs.dump());
    if (s.spending) {
      const auto& rule = fingerprint(code_set_roots("seed-spending"));
      s.config["spending"] = spending_config(*s.spending, rule.hash);
      for (const auto& [f, h] : rule.files) s.code_files["seed spending: " + f] = h;
    }
    if (s.notebooks) add_notebooks_config(s, cfg, manifest, manifest_path, hash_of);
    s.hash = fnv1a_hex(s.config.dump());
    hash_of[s.name] = s.hash;
  }
}

namespace {

// The entries of two JSON objects (file or stage -> hash) whose values differ, each "<prefix><name> changed".
void changed_entries(const json& before, const json& after, const std::string& prefix, std::vector<std::string>& why) {
  if (!after.is_object()) return;
  for (const auto& [k, v] : after.items())
    if (!before.is_object() || before.value(k, json()) != v) why.push_back(prefix + k + " changed");
}

json without_code(json spending) {
  if (spending.is_object()) spending.erase("code");
  return spending;
}

}  // namespace

std::vector<std::string> stage_hash_changes(const Stage& s, const json& record) {
  const json before = record.value("config", json());
  if (!before.is_object()) return {"no record of its last run"};
  std::vector<std::string> why;
  if (before.value("commands", json()) != s.config.value("commands", json())) why.push_back("its commands changed");
  if (s.notebooks) {
    changed_entries(before.value("inputs", json()), s.config.value("inputs", json()), "stage ", why);
    changed_entries(before.value("notebooks", json()), s.config.value("notebooks", json()), "notebooks/", why);
    if (before.value("manifest", json()) != s.config.value("manifest", json())) why.push_back("notebooks/figures.json changed");
  } else if (before.value("inputs", json()) != s.config.value("inputs", json())) {
    why.push_back("its inputs changed (its reproduction file, run config, tuning study or collected sweep)");
  }
  const json sp_before = before.value("spending", json()), sp_now = s.config.value("spending", json());
  if (without_code(sp_before) != without_code(sp_now)) why.push_back("its seed-spending settings changed");
  const auto code_of = [](const json& sp) { return sp.is_object() ? sp.value("code", "") : std::string(); };
  if (before.value("code", "") != s.config.value("code", "") || code_of(sp_before) != code_of(sp_now)) {
    std::map<std::string, std::string> old_files;
    if (record.contains("code_files") && record["code_files"].is_object())
      for (const auto& [f, h] : record["code_files"].items())
        if (h.is_string()) old_files[f] = h.get<std::string>();
    if (old_files.empty()) why.push_back("its code changed (its last run recorded no file list)");
    for (const auto& f : old_files.empty() ? std::vector<std::string>{} : fingerprint_changes(old_files, s.code_files))
      why.push_back(f);
  }
  if (why.empty() && record.value("config_hash", "") != s.hash) why.push_back("its config changed");
  return why;
}

std::optional<json> current_stage_record(const ReportConfig& cfg, const Stage& s) {
  const std::string dir = cfg.work + "/" + s.name, rec = dir + "/stage.json";
  if (cfg.force || !fs::exists(rec)) return std::nullopt;
  try {
    const json j = read_json_file(rec);
    bool up_to_date = j.value("config_hash", "") == s.hash;
    for (const auto& o : s.outputs) up_to_date = up_to_date && fs::exists(dir + "/" + o);
    if (up_to_date) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace dmlbench::experiments
