// The stages of `dmlbench report` for a profile: which exist, in which order, the commands each runs, its outputs,
// its time estimate and the source layers its hash covers.
#include "dmlbench/experiments/report_plan.hpp"

#include "dmlbench/experiments/code_sets.hpp"
#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/report_stage_store.hpp"
#include "report_sweeps.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

namespace {

Stage make_stage(std::string name, std::string title, std::vector<std::string> outputs, double nominal_seconds) {
  Stage s;
  s.name = std::move(name);
  s.title = std::move(title);
  s.outputs = std::move(outputs);
  s.nominal_seconds = nominal_seconds;
  return s;
}

std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// The folder of stage `name` under the work folder.
std::string stage_dir(const ReportConfig& cfg, const std::string& name) { return cfg.work + "/" + name; }

// `theory check` or `sim check` (layer "theory" or "sim"): claims.json and CLAIMS.md.
Stage claims_stage(const ReportConfig& cfg, const char* name, const std::string& title, const char* layer, double seconds) {
  Stage s = make_stage(name, title, {"claims.json", "CLAIMS.md"}, seconds);
  s.commands.push_back({{cfg.self, layer, "check", "--json", stage_dir(cfg, s.name) + "/claims.json", "--markdown",
                         stage_dir(cfg, s.name) + "/CLAIMS.md"}, true});
  return s;
}

Stage theory_figures_stage(const ReportConfig& cfg) {
  Stage s = make_stage("theory-figures", "[XHN] Delta S maps and vector fields, L2nd surface, [XGS] projection strength", {}, 5);
  const std::string dir = stage_dir(cfg, s.name), &x = cfg.self;
  for (const char* loss : {"l1st", "vanilla", "l2nd"})
    for (double g : {0.2, 0.5, 0.8})
      for (double p : {0.4, 0.8}) {
        const std::string f = std::string("field_") + loss + "_g" + num(g) + "_p" + num(p) + ".csv";
        s.commands.push_back({{x, "theory", "field", "--loss", loss, "--gamma", num(g), "--entanglement", num(p),
                               "--lr", "0.1", "--grid", "100", "--out", dir + "/" + f}, true});
        s.outputs.push_back(f);
      }
  s.commands.push_back({{x, "theory", "surface", "--grid", "41", "--out", dir + "/l2nd_surface.csv"}, true});
  s.commands.push_back({{x, "theory", "projection", "--points", "201", "--out", dir + "/projection.csv"}, true});
  s.outputs.insert(s.outputs.end(), {"l2nd_surface.csv", "projection.csv"});
  return s;
}

Stage sims_phase_stage(const ReportConfig& cfg) {
  const bool quick = cfg.profile == "quick";
  Stage s = make_stage("sims-phase", "[LCC] collapse phase diagrams: all positives vs EPS", {}, quick ? 5 : 200);
  const std::vector<std::string> classes = quick ? std::vector<std::string>{"2"} : std::vector<std::string>{"2", "3"};
  const std::vector<std::string> ns = quick ? std::vector<std::string>{"12", "24"} : std::vector<std::string>{"12", "24", "48"};
  const std::vector<std::string> noise =
      quick ? std::vector<std::string>{"0.55", "0.7", "0.9"}
            : std::vector<std::string>{"0.55", "0.6", "0.65", "0.7", "0.8", "0.9", "1.0"};
  for (auto [sampling, triples] : {std::pair{"all", "distinct"}, std::pair{"eps", "distinct"}, std::pair{"all", "all"}}) {
    const std::string f = std::string("phase_") + sampling + "_" + triples + ".csv";
    std::vector<std::string> a = {cfg.self, "sim", "phase", "--loss", "triplet", "--sampling", sampling, "--triples",
                                  triples, "--restarts", quick ? "2" : "4", "--classes"};
    a.insert(a.end(), classes.begin(), classes.end());
    a.push_back("--n");
    a.insert(a.end(), ns.begin(), ns.end());
    a.push_back("--p-correct");
    a.insert(a.end(), noise.begin(), noise.end());
    a.insert(a.end(), {"--out", stage_dir(cfg, s.name) + "/" + f});
    s.commands.push_back({a, false});
    s.outputs.push_back(f);
  }
  return s;
}

Stage sims_minimizers_stage(const ReportConfig& cfg) {
  const bool quick = cfg.profile == "quick";
  Stage s = make_stage("sims-minimizers", "[LCC] minimizers found: all positives vs EPS", {}, quick ? 5 : 20);
  for (const char* sampling : {"all", "eps"}) {
    const std::string f = std::string("minimizers_") + sampling + ".json";
    s.commands.push_back({{cfg.self, "sim", "collapse", "--loss", "triplet", "--sampling", sampling, "--triples",
                           "distinct", "--n", quick ? "12" : "24", "--classes", "2", "--p-correct", "0.8", "--dim", "2",
                           "--restarts", "4", "--seed", "1", "--out", stage_dir(cfg, s.name) + "/" + f}, true});
    s.outputs.push_back(f);
  }
  return s;
}

// What a reproduction stage reads besides its code: the reproduction file, the run config it names and the profile's
// design file (their text).
nlohmann::ordered_json reproduction_inputs(const Reproduction& r, const std::string& profile) {
  nlohmann::ordered_json in = {{"reproduction", read_text_file(r.file)}, {"config", read_text_file(r.config)}};
  if (const auto& p = r.profiles.at(profile); !p.design.empty()) in["design"] = p.design_text;
  return in;
}

// A reproduce command that reads back the finished runs of its keys from the stage's previous outputs (moved aside
// when its hash moved) and from the report's stage store, before it trains any.
std::vector<std::string> with_run_stores(std::vector<std::string> argv, const ReportConfig& cfg, const std::string& stage) {
  argv.insert(argv.end(), {"--reuse-from", previous_stage_dir(cfg, stage), "--reuse-from", stage_store_dir(cfg)});
  return argv;
}

// The stage's seed spending where its profile has looks (a seeds_cap above its seeds, or a design file): the family planned
// over `family`. A cap below the fewest seeds that can decide at the family's level is refused (it would spend seeds
// that decide nothing).
void plan_seed_spending(Stage& s, const Reproduction& r, const ReproductionProfile& prof,
                        const std::vector<Reproduction>& family, const std::string& multiplicity) {
  if (!prof.has_looks()) return;
  const std::size_t m = std::max<std::size_t>(planned_family_size(family), 1);
  // seeds by arm: a look gives the next seed only to the arms of the claims still waiting
  const double share = prof.planned_selected_share > 0 ? prof.planned_selected_share : kPlannedSelectedShare;
  const SeedSpending spending{prof.seeds, prof.cap(), m, r.alpha, planned_selected(multiplicity, m, share),
                              claim_arms(r), prof.g > 0 ? prof.g : default_anytime_g};
  const std::size_t least = first_decidable_seeds(spending.level(), spending.g);
  if (least == 0 || std::size_t(prof.cap()) < least) {
    std::ostringstream o;
    o << r.file << ": profile seeds_cap " << prof.cap() << " is below " << least
      << ", the fewest seeds whose anytime interval can decide at level " << r.alpha;
    if (spending.planned_selected > 0) o << " x " << spending.planned_selected;
    o << " / " << spending.family << " (the report's family";
    if (spending.planned_selected > 0) o << ", e-BH's planned selection";
    o << "): raise it";
    throw config_error(o.str());
  }
  s.spending = spending;
  s.nominal_seconds = prof.estimate_seconds * double(prof.cap()) / double(prof.seeds);  // at most
}

// One stage per reproduction file of the profile: its runs (or its collected sweep) and its verdicts.
void add_reproduction_stages(std::vector<Stage>& st, const ReportConfig& cfg) {
  const auto swept = report_sweeps(cfg);
  std::set<std::string> used;
  const auto family = report_reproductions(cfg);
  for (const auto& r : family) {
    Stage s = make_stage(r.stage, r.title, {"summary.json"}, r.profiles.at(cfg.profile).estimate_seconds);
    s.jobs = r.profiles.at(cfg.profile).jobs;
    if (const auto it = swept.find(r.id); it != swept.end()) {
      collect_sweep_in_stage(s, r, it->second, cfg.self, stage_dir(cfg, s.name));
      used.insert(r.id);
    } else {
      s.commands.push_back({with_run_stores({cfg.self, "reproduce", "--file", r.file, "--profile", cfg.profile,
                                             "--out", stage_dir(cfg, s.name), "--resume"}, cfg, s.name), false});
      plan_seed_spending(s, r, r.profiles.at(cfg.profile), family, cfg.multiplicity);
    }
    s.code_set = "training";
    if (s.inputs.is_array()) s.inputs = {{"sweep", s.inputs}};  // a collected sweep's results, beside its files
    const auto inputs = reproduction_inputs(r, cfg.profile);
    for (const auto& [k, v] : inputs.items()) s.inputs[k] = v;
    st.push_back(s);
  }
  const auto tuned = report_tuned_reproductions(cfg);
  std::vector<Reproduction> tuned_family;
  for (const auto& t : tuned) tuned_family.push_back(t.tuned);
  for (const auto& t : tuned) {  // each arm's best settings of its committed study
    Stage s = make_stage(t.tuned.stage, t.tuned.title, {"summary.json"},
                         t.tuned.profiles.at(cfg.profile).estimate_seconds);
    s.jobs = t.tuned.profiles.at(cfg.profile).jobs;
    s.commands.push_back({with_run_stores({cfg.self, "reproduce", "--file", t.tuned.file, "--profile", cfg.profile,
                                           "--out", stage_dir(cfg, s.name), "--resume", "--tuned", t.results_file},
                                          cfg, s.name), false});
    plan_seed_spending(s, t.tuned, t.tuned.profiles.at(cfg.profile), tuned_family, cfg.multiplicity);
    s.code_set = "training";
    s.inputs = reproduction_inputs(t.tuned, cfg.profile);
    s.inputs["tuned"] = t.results;  // its own study
    st.push_back(s);
  }
  for (const auto& [rid, sp] : swept)
    if (!used.count(rid))
      throw std::runtime_error("--sweep " + sp.dir + ": its reproduction " + rid + " is no stage of the " + cfg.profile +
                               " report (its file is not in --reproductions, or has no " + cfg.profile + " profile)");
}

}  // namespace

std::vector<Reproduction> report_reproductions(const ReportConfig& cfg, bool missing) {
  std::vector<std::string> files;
  if (fs::is_directory(cfg.reproductions))
    for (const auto& e : fs::directory_iterator(cfg.reproductions))
      if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<Reproduction> out;
  for (const auto& f : files) {
    auto r = read_reproduction(f, cfg.source_dir);
    if (r.profiles.count(cfg.profile) != (missing ? 1u : 0u)) out.push_back(std::move(r));
  }
  return out;
}

std::vector<TunedReproduction> report_tuned_reproductions(const ReportConfig& cfg) {
  std::vector<TunedReproduction> out;
  if (cfg.profile != "default") return out;  // the studies tuned the default setup; quick stays quick
  const fs::path dir = fs::path(cfg.reproductions).parent_path() / "tuned";
  for (const auto& r : report_reproductions(cfg)) {
    const fs::path file = dir / (fs::path(r.file).stem().string() + ".json");
    if (!fs::exists(file)) continue;
    TunedReproduction t;
    t.results_file = file.string();
    t.results = read_json_file(t.results_file, "the tuning results");
    t.tuned = with_tuned_settings(r, t.results, t.results_file, cfg.source_dir);
    t.default_stage = r.stage;
    t.trainer_code_now = code_fingerprint(cfg.source_dir, "trainer").hash;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Stage> plan_report_stages(const ReportConfig& cfg) {
  std::vector<Stage> st;
  // the papers each layer checks, from the registry (theory/papers/)
  st.push_back(claims_stage(cfg, "theory-claims", "theory checks (" + theory::paper_keys_text("theory") + ")", "theory", 3));
  st.push_back(theory_figures_stage(cfg));
  st.push_back(claims_stage(cfg, "sims-claims", "class-collapse checks (" + theory::paper_keys_text("sims") + ")", "sim", 20));
  st.push_back(sims_phase_stage(cfg));
  st.push_back(sims_minimizers_stage(cfg));
  add_reproduction_stages(st, cfg);
  Stage figures = make_stage("figures", "figures: the notebooks, executed headlessly", {}, 60);
  figures.notebooks = true;
  st.push_back(figures);
  for (auto& s : st) {  // the code each stage runs (code_sets.hpp)
    if (s.name.rfind("theory", 0) == 0) s.code_set = "theory";
    if (s.name.rfind("sims", 0) == 0) s.code_set = "sims";
  }
  return st;
}

std::string previous_stage_dir(const ReportConfig& cfg, const std::string& name) {
  return cfg.work + "/.previous/" + name;
}

bool stage_selected(const ReportConfig& cfg, const std::string& name) {
  return cfg.only.empty() || std::find(cfg.only.begin(), cfg.only.end(), name) != cfg.only.end();
}

std::string join_command(const std::vector<std::string>& argv, const std::string& self, const std::string& root) {
  std::string s;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string a = i == 0 && argv[i] == self ? std::string("dmlbench") : argv[i];
    if (!root.empty() && a.rfind(root + "/", 0) == 0) a = a.substr(root.size() + 1);
    if (i) s += ' ';
    s += a.find(' ') != std::string::npos ? "'" + a + "'" : a;
  }
  return s;
}

}  // namespace dmlbench::experiments
