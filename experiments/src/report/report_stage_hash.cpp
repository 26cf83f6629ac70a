// The report's caching: each stage's config hash (its commands, the sources of the layers it runs, its inputs) and
// whether its outputs in the work folder are current, so that an unchanged stage is not rerun.
#include "dmlbench/experiments/report_stage_hash.hpp"

#include "dmlbench/experiments/content_hash.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_stage_store.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const std::vector<std::string>& report_builder_files() {
  // file-name prefix: report_builder.cpp, report_plan.hpp...; folders: the report library's own sources, and the
  // claims' scope entries (they change what a row says of its paper, never what a stage computes)
  static const std::vector<std::string> files = {"report_", "report/", "scopes/"};
  return files;
}

// The stage's commands without the program, the work folder written $WORK: the same on every machine.
static json commands_json(const Stage& s, const std::string& work) {
  json cmds = json::array();
  for (const auto& c : s.commands) {
    json a = json::array();
    for (std::size_t i = 1; i < c.argv.size(); ++i) {
      std::string v = c.argv[i];
      if (v.rfind(work, 0) == 0) v = "$WORK" + v.substr(work.size());
      a.push_back(v);
    }
    cmds.push_back(a);
  }
  return cmds;
}

const std::vector<std::string>& seed_spending_files() {
  static const std::vector<std::string> files = {"experiments/include/dmlbench/experiments/report_seed_spending.hpp",
                                                 "experiments/src/report/report_seed_spending.cpp"};
  return files;
}

std::vector<std::string> stage_code_skips(const Stage& s) {
  auto skip = report_builder_files();
  skip.push_back("tuned/");  // the tuning studies: each tuned stage hashes its own (its inputs)
  skip.push_back("*.md");    // the layers' documentation: no stage reads it
  // the papers' plug-ins (their entries and theory checks, issue 51): only a stage that runs `theory check` reads them,
  // so a paper added with theory claims reruns that stage and no training stage
  const bool theory_checks = std::any_of(s.commands.begin(), s.commands.end(), [](const StageCommand& c) {
    return std::adjacent_find(c.argv.begin(), c.argv.end(), [](const std::string& a, const std::string& b) {
             return a == "theory" && b == "check";
           }) != c.argv.end();
  });
  if (!theory_checks) skip.insert(skip.end(), {"theory/papers/", "theory/src/claims_"});
  return skip;
}

// The build files and the layers the stage runs (theory <- sims <- experiments), without the report builder.
static std::string code_hash(const Stage& s, const std::string& source_dir) {
  std::vector<std::string> code = {"CMakeLists.txt", "cmake", "apps"};
  code.insert(code.end(), s.code.begin(), s.code.end());
  return tree_hash(source_dir, code, stage_code_skips(s));
}

// A stage that spends seeds by looking: which runs it makes depends on the rule (report_seed_spending, a report_ file
// the code hash leaves out) and on its settings (the family, level and arms the looks decide in).
static json spending_config(const SeedSpending& sp, const std::string& rule_hash) {
  return {{"code", rule_hash},
          {"first", sp.first},
          {"cap", sp.cap},
          {"family", sp.family},
          {"alpha", sp.alpha},
          {"planned_selected", sp.planned_selected},
          {"claim_arms", sp.claim_arms}};
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
  const std::string spending_rule = tree_hash(cfg.source_dir, seed_spending_files(), {});  // read once, for every stage
  for (auto& s : stages) {
    s.config = {{"stage", s.name},
                {"commands", commands_json(s, cfg.work)},
                {"code", s.notebooks ? std::string() : code_hash(s, cfg.source_dir)}};
    if (!s.inputs.is_null()) s.config["inputs"] = fnv1a_hex(s.inputs.dump());
    if (s.spending) s.config["spending"] = spending_config(*s.spending, spending_rule);
    if (s.notebooks) add_notebooks_config(s, cfg, manifest, manifest_path, hash_of);
    s.hash = fnv1a_hex(s.config.dump());
    hash_of[s.name] = s.hash;
  }
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

std::vector<double> stage_estimates(const std::vector<Stage>& stages, const ReportConfig& cfg) {
  std::vector<double> estimate;
  for (const auto& s : stages) {
    double e = s.nominal_seconds;
    const auto rec = cfg.work + "/" + s.name + "/stage.json";
    std::optional<json> j;  // its last run: in the work folder, else the report's stage store
    try {
      j = fs::exists(rec) ? std::optional<json>(read_json_file(rec)) : stored_stage_record(cfg, s);
    } catch (const std::exception&) {
    }
    if (j && j->value("profile", "") == cfg.profile && j->contains("seconds")) e = (*j)["seconds"].get<double>();
    estimate.push_back(stage_selected(cfg, s.name) ? e : 0.0);
  }
  return estimate;
}

}  // namespace dmlbench::experiments
