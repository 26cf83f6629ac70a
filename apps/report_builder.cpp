#include "report_builder.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/sweep_grid.hpp"
#include "dmlbench/experiments/sweep_state.hpp"

#include <sys/wait.h>

#include <chrono>
#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::report {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------------------------ claims rows

static std::string sci(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return "n/a";
  std::ostringstream o;
  o << std::scientific << std::setprecision(1) << v.get<double>();
  return o.str();
}

static std::string fixed1(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << v;
  return o.str();
}

static std::string str_or(const json& j, const char* key, const std::string& fallback = "") {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::vector<ClaimRow> claim_rows_from_claims_json(const json& j) {
  if (!j.contains("claims") || !j["claims"].is_array())
    throw std::runtime_error("claims file has no \"claims\" array");
  std::vector<ClaimRow> rows;
  for (const auto& c : j["claims"]) {
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
    m << "error " << sci(c.value("max_error", json())) << " (tol " << sci(c.value("tolerance", json())) << ", "
      << c.value("samples", 0) << " samples)";
    if (c.contains("corrected_error")) m << "; corrected form " << sci(c["corrected_error"]);
    r.measured = m.str();
    r.corrected_form = str_or(c, "corrected_form");
    r.witness = str_or(c, "witness");
    r.note = str_or(c, "note");
    rows.push_back(std::move(r));
  }
  return rows;
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
    // a metric with its own sides ("compare") names them; the others compare the reproduction's arms
    const bool sides = row.contains("baseline") && row.contains("treatment");
    const std::string base = sides ? row["baseline"].value("arm", "") : cmp.value("baseline", ""),
                      treat = sides ? row["treatment"].value("arm", "") : cmp.value("treatment", "");
    ClaimRow r;
    r.id = row["claim"];
    r.paper = paper;
    r.where = where;
    r.statement = row.value("statement", "");
    r.verdict = row["verdict"];
    const json& arms = row.at("arms");
    if (arms.contains(base) && arms.contains(treat) && arms[base].contains("paper") && arms[treat].contains("paper"))
      r.paper_value = fixed1(arms[base]["paper"]) + " -> " + fixed1(arms[treat]["paper"]);
    std::ostringstream m;
    std::string sep;
    if (sides)
      for (const char* side : row["baseline"].value("arm", "") == "bound" ? std::array<const char*, 2>{"treatment", "baseline"}
                                                                          : std::array<const char*, 2>{"baseline", "treatment"}) {
        m << sep << row[side].value("label", "");
        if (row[side].value("arm", "") != "bound")  // a claim's fixed number: no path, no spread
          m << " (" << row[side].value("path", "") << ") " << experiments::mean_std_text(row[side]);
        sep = " vs ";
      }
    else
      for (auto it = arms.begin(); it != arms.end(); ++it) {
        m << sep << it.value().value("label", it.key()) << " " << experiments::mean_std_text(it.value());
        sep = ", ";
      }
    m << " (" << row.value("seeds_per_arm", 0) << (row.value("seeds_per_arm", 0) == 1 ? " seed" : " seeds") << "); Welch "
      << experiments::p_value_text(row);
    r.measured = m.str();
    r.note = row.value("note", "");
    if (r.verdict == "refuted")
      r.witness = treat + " minus " + (base == "bound" ? row["baseline"].value("label", base) : base) + " = " +
                  fixed1(row.value("difference", 0.0)) + " over " +
                  std::to_string(row.value("seeds_per_arm", 0)) + " seeds per arm";
    rows.push_back(std::move(r));
  }
  return rows;
}

static std::string cell(std::string s) {  // one Markdown table cell: no pipes, no newlines
  for (auto& ch : s)
    if (ch == '\n') ch = ' ';
  std::string o;
  for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return o.empty() ? "-" : o;
}

std::string claims_table_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  o << "| id | paper | where | claim | measured | paper's number | verdict |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    o << "| `" << r.id << "` | " << cell(r.paper) << " | " << cell(r.where) << " | " << cell(r.statement) << " | "
      << cell(r.measured) << " | " << cell(r.paper_value) << " | **" << r.verdict << "** |\n";
  return o.str();
}

std::string errata_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows)
    if (r.verdict == "erratum") {
      ++n;
      o << "- **[" << r.paper << " " << r.where << "]** `" << r.id << "`: printed: " << r.statement
        << "\n  - corrected form: " << (r.corrected_form.empty() ? "(none given)" : r.corrected_form)
        << "\n  - witness: " << (r.witness.empty() ? "(none given)" : r.witness) << "\n";
    }
  if (n == 0) o << "No erratum.\n";
  return o.str();
}

std::string refutations_markdown(const std::vector<ClaimRow>& rows) {
  std::ostringstream o;
  int n = 0;
  for (const auto& r : rows)
    if (r.verdict == "refuted" || r.verdict == "not-reproducible") {
      ++n;
      o << "- **" << r.verdict << "** [" << r.paper << " " << r.where << "] `" << r.id << "`: " << r.statement << "\n";
      if (!r.witness.empty()) o << "  - witness: " << r.witness << "\n";
      if (!r.note.empty()) o << "  - " << r.note << "\n";
    }
  if (n == 0) o << "None.\n";
  return o.str();
}

json claims_json(const std::vector<ClaimRow>& rows) {
  json a = json::array();
  for (const auto& r : rows) {
    json c = {{"id", r.id},       {"paper", r.paper},         {"where", r.where},         {"statement", r.statement},
              {"measured", r.measured}, {"paper_value", r.paper_value}, {"verdict", r.verdict}};
    if (!r.corrected_form.empty()) c["corrected_form"] = r.corrected_form;
    if (!r.witness.empty()) c["witness"] = r.witness;
    if (!r.note.empty()) c["note"] = r.note;
    a.push_back(c);
  }
  return a;
}

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis 0xcbf29ce484222325
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  std::ostringstream o;
  o << std::hex << std::setw(16) << std::setfill('0') << h;
  return o.str();
}

std::string tree_hash(const std::string& root, const std::vector<std::string>& paths,
                      const std::vector<std::string>& skip) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    const fs::path full = fs::path(root) / p;
    if (fs::is_regular_file(full)) files.push_back(p);
    if (!fs::is_directory(full)) continue;
    for (const auto& e : fs::recursive_directory_iterator(full))
      if (e.is_regular_file()) files.push_back(fs::relative(e.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) {
    const std::string name = fs::path(f).filename().string();
    bool skipped = false;
    for (const auto& s : skip) skipped = skipped || name.rfind(s, 0) == 0;
    if (skipped) continue;
    std::ifstream in(fs::path(root) / f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    all += f + '\0' + fnv1a_hex(text.str()) + '\n';
  }
  return fnv1a_hex(all);
}

// ------------------------------------------------------------------------------------------------ manifest

static std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

static json read_json(const std::string& path) {
  try {
    return json::parse(read_text(path));
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

std::vector<NotebookSpec> read_manifest(const std::string& path) {
  const json j = read_json(path);
  if (!j.contains("notebooks") || !j["notebooks"].is_array())
    throw std::runtime_error(path + ": no \"notebooks\" array");
  std::vector<NotebookSpec> out;
  std::set<std::string> files;
  for (const auto& nb : j["notebooks"]) {
    NotebookSpec s;
    s.notebook = nb.at("notebook");
    for (const auto& f : nb.at("figures")) {
      FigureSpec fig;
      fig.file = f.at("file");
      fig.paper = f.at("paper");
      fig.caption = f.at("caption");
      fig.inputs = f.value("inputs", std::vector<std::string>{});
      fig.command_filter = f.value("commands", std::vector<std::string>{});
      if (fig.file.find('/') != std::string::npos || fig.file.size() < 5 ||
          fig.file.substr(fig.file.size() - 4) != ".png")
        throw std::runtime_error(path + ": figure \"" + fig.file + "\" must be a plain .png file name");
      if (!files.insert(fig.file).second) throw std::runtime_error(path + ": figure " + fig.file + " listed twice");
      s.figures.push_back(std::move(fig));
    }
    out.push_back(std::move(s));
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ stages

namespace {

struct Command {
  std::vector<std::string> argv;  // argv[0] is the program
  bool quiet = false;             // output to the stage log instead of the terminal (shown if it fails)
};

struct Stage {
  std::string name, title;
  std::vector<Command> commands;
  std::vector<std::string> outputs;  // relative to the stage folder
  double nominal_seconds = 10;
  bool notebooks = false;
  std::vector<std::string> code;     // source folders of the code it runs (hashed into its config)
  json config;                       // what its hash covers
  std::string hash;
  json inputs;                       // what else its hash covers (a collected sweep's finished results)
};

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

// The reproduction files (experiments/reproductions/*.json, sorted by name) that have the report's profile, or (with
// `missing`) those that do not: the report lists them as not run here, with what they need.
std::vector<experiments::Reproduction> reproductions(const ReportConfig& cfg, bool missing = false) {
  std::vector<std::string> files;
  if (fs::is_directory(cfg.reproductions))
    for (const auto& e : fs::directory_iterator(cfg.reproductions))
      if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<experiments::Reproduction> out;
  for (const auto& f : files) {
    auto r = experiments::read_reproduction(f, cfg.source_dir);
    if (r.profiles.count(cfg.profile) != (missing ? 1u : 0u)) out.push_back(std::move(r));
  }
  return out;
}

// The reproductions this profile does not run: no numbers, only what each needs and the command that runs it.
std::string not_run_here_markdown(const ReportConfig& cfg) {
  std::vector<experiments::Reproduction> skipped;
  for (auto& r : reproductions(cfg, true))  // those that say what they need; the others are left out of this profile
    if (!r.needs.empty()) skipped.push_back(std::move(r));
  if (skipped.empty()) return "";
  std::ostringstream o;
  o << "## Not run here\n\nThese reproductions have no " << cfg.profile
    << " profile: they need data or a device this machine does not have, and the report shows no number for them. "
       "Each runs with the command given where its data and a GPU are.\n\n"
       "| reproduction | paper | claims | needs | command |\n|---|---|---|---|---|\n";
  for (const auto& r : skipped) {
    std::string claims;
    for (const auto& m : r.metrics)
      if (!m.claim.empty()) claims += (claims.empty() ? "`" : ", `") + m.claim + "`";
    const std::string file = fs::relative(r.file, cfg.source_dir).string();
    o << "| " << cell(r.title) << " (`" << file << "`) | [" << r.paper << "] " << cell(r.where) << " | "
      << (claims.empty() ? std::string("-") : claims) << " | " << cell(r.needs)
      << " | `dmlbench reproduce --file " << file << " --profile " << r.profiles.begin()->first << " --out <dir>` |\n";
  }
  return o.str() + "\n";
}

std::vector<Stage> plan(const ReportConfig& cfg) {
  const bool quick = cfg.profile == "quick";
  const std::string& x = cfg.self;
  auto dir = [&](const std::string& n) { return cfg.work + "/" + n; };
  std::vector<Stage> st;

  {
    Stage s = make_stage("theory-claims", "theory checks ([XHN], [XHN-A], [XGS], [HTL])", {"claims.json", "CLAIMS.md"}, 3);
    s.commands.push_back({{x, "theory", "check", "--json", dir(s.name) + "/claims.json", "--markdown",
                           dir(s.name) + "/CLAIMS.md"}, true});
    st.push_back(s);
  }
  {
    Stage s = make_stage("theory-figures", "[XHN] Delta S maps and vector fields, L2nd surface, [XGS] projection strength", {}, 5);
    for (const char* loss : {"l1st", "vanilla", "l2nd"})
      for (double g : {0.2, 0.5, 0.8})
        for (double p : {0.4, 0.8}) {
          const std::string f = std::string("field_") + loss + "_g" + num(g) + "_p" + num(p) + ".csv";
          s.commands.push_back({{x, "theory", "field", "--loss", loss, "--gamma", num(g), "--entanglement", num(p),
                                 "--lr", "0.1", "--grid", "100", "--out", dir(s.name) + "/" + f}, true});
          s.outputs.push_back(f);
        }
    s.commands.push_back({{x, "theory", "surface", "--grid", "41", "--out", dir(s.name) + "/l2nd_surface.csv"}, true});
    s.commands.push_back({{x, "theory", "projection", "--points", "201", "--out", dir(s.name) + "/projection.csv"}, true});
    s.outputs.insert(s.outputs.end(), {"l2nd_surface.csv", "projection.csv"});
    st.push_back(s);
  }
  {
    Stage s = make_stage("sims-claims", "class-collapse checks ([LCC])", {"claims.json", "CLAIMS.md"}, 20);
    s.commands.push_back({{x, "sim", "check", "--json", dir(s.name) + "/claims.json", "--markdown",
                           dir(s.name) + "/CLAIMS.md"}, true});
    st.push_back(s);
  }
  {
    Stage s = make_stage("sims-phase", "[LCC] collapse phase diagrams: all positives vs EPS", {}, quick ? 5 : 400);
    const std::vector<std::string> classes = quick ? std::vector<std::string>{"2"} : std::vector<std::string>{"2", "3"};
    const std::vector<std::string> ns = quick ? std::vector<std::string>{"12", "24"} : std::vector<std::string>{"12", "24", "48"};
    const std::vector<std::string> noise =
        quick ? std::vector<std::string>{"0.55", "0.7", "0.9"}
              : std::vector<std::string>{"0.55", "0.6", "0.65", "0.7", "0.8", "0.9", "1.0"};
    for (auto [sampling, triples] : {std::pair{"all", "distinct"}, std::pair{"eps", "distinct"}, std::pair{"all", "all"}}) {
      const std::string f = std::string("phase_") + sampling + "_" + triples + ".csv";
      std::vector<std::string> a = {x, "sim", "phase", "--loss", "triplet", "--sampling", sampling, "--triples", triples,
                                    "--restarts", quick ? "2" : "4", "--classes"};
      a.insert(a.end(), classes.begin(), classes.end());
      a.push_back("--n");
      a.insert(a.end(), ns.begin(), ns.end());
      a.push_back("--p-correct");
      a.insert(a.end(), noise.begin(), noise.end());
      a.insert(a.end(), {"--out", dir(s.name) + "/" + f});
      s.commands.push_back({a, false});
      s.outputs.push_back(f);
    }
    st.push_back(s);
  }
  {
    Stage s = make_stage("sims-minimizers", "[LCC] minimizers found: all positives vs EPS", {}, quick ? 5 : 20);
    for (const char* sampling : {"all", "eps"}) {
      const std::string f = std::string("minimizers_") + sampling + ".json";
      s.commands.push_back({{x, "sim", "collapse", "--loss", "triplet", "--sampling", sampling, "--triples", "distinct",
                             "--n", quick ? "12" : "24", "--classes", "2", "--p-correct", "0.8", "--dim", "2", "--restarts",
                             "4", "--seed", "1", "--out", dir(s.name) + "/" + f}, true});
      s.outputs.push_back(f);
    }
    st.push_back(s);
  }
  // --sweep DIR: a reproduction's runs made by `dmlbench sweep` (a cluster's job array) are collected, not rerun
  std::map<std::string, experiments::SweepPlan> swept;  // reproduction id -> its sweep
  for (const auto& d : cfg.sweeps) {
    auto sp = experiments::read_sweep_plan(d, cfg.source_dir);
    if (!sp.grid.reproduction)
      throw std::runtime_error("--sweep " + d + ": the sweep " + sp.grid.name + " runs no reproduction file, so no stage "
                               "of the report can take it");
    const auto& rid = sp.grid.reproduction->id;
    if (sp.grid.profile != cfg.profile)
      throw std::runtime_error("--sweep " + d + " ran " + rid + "'s " + sp.grid.profile + " profile; this report is the " +
                               cfg.profile + " profile");
    if (swept.count(rid)) throw std::runtime_error("--sweep: two sweeps of " + rid);
    // the report states what the profile runs: a sweep that changed it (overrides, seeds, a subset) is not that
    std::vector<std::uint64_t> profile_seeds;
    for (int k = 1; k <= sp.grid.reproduction->profiles.at(sp.grid.profile).seeds; ++k) profile_seeds.push_back(k);
    if (!sp.grid.set.empty() || !sp.cli_set.empty() || sp.grid.seeds != profile_seeds || !sp.grid.arm_names.empty() ||
        !sp.grid.variant_names.empty())
      throw std::runtime_error("--sweep " + d + " changed " + rid + "'s " + cfg.profile + " profile (overrides, seeds, "
                               "arms or variants): the report shows the profile's runs; `dmlbench sweep collect` "
                               "summarises this sweep on its own");
    swept.emplace(rid, std::move(sp));
  }
  std::set<std::string> used;
  for (const auto& r : reproductions(cfg)) {  // one stage per reproduction file: its runs and its verdicts
    Stage s = make_stage(r.stage, r.title, {"summary.json"}, r.profiles.at(cfg.profile).estimate_seconds);
    if (const auto it = swept.find(r.id); it != swept.end()) {
      const auto& sp = it->second;
      if (sp.grid.reproduction->source != r.source)
        throw std::runtime_error("--sweep " + sp.dir + " ran another version of " + r.file + " than the one here");
      s.commands.push_back({{x, "sweep", "collect", sp.dir, "--require-complete", "--out", dir(s.name) + "/summary.json"},
                            false});
      s.nominal_seconds = 1;
      s.inputs = json::array();  // the finished results the summary is made of: rerun when one changes
      for (const auto& p : sp.points) {
        const fs::path f = fs::path(experiments::point_dir(sp, p)) / p.result;
        std::error_code ec;
        const auto t = fs::last_write_time(f, ec);
        s.inputs.push_back({p.name, ec ? -1 : (long long)fs::file_size(f, ec),
                            ec ? 0 : (long long)t.time_since_epoch().count()});
      }
      s.code = {"theory", "sims", "experiments"};
      st.push_back(s);
      used.insert(r.id);
      continue;
    }
    s.commands.push_back({{x, "reproduce", "--file", r.file, "--profile", cfg.profile, "--out", dir(s.name), "--resume"},
                          false});
    s.code = {"theory", "sims", "experiments"};
    st.push_back(s);
  }
  for (const auto& [rid, sp] : swept)
    if (!used.count(rid))
      throw std::runtime_error("--sweep " + sp.dir + ": its reproduction " + rid + " is no stage of the " + cfg.profile +
                               " report (its file is not in --reproductions, or has no " + cfg.profile + " profile)");
  {
    Stage s = make_stage("figures", "figures: the notebooks, executed headlessly", {}, 60);
    s.notebooks = true;
    st.push_back(s);
  }
  for (auto& s : st) {  // the layers whose code each stage runs (layers depend one way: theory <- sims <- experiments)
    if (s.name.rfind("theory", 0) == 0) s.code = {"theory"};
    if (s.name.rfind("sims", 0) == 0) s.code = {"theory", "sims"};
  }
  return st;
}

struct SpawnResult {
  int status = -1;
  std::string error;
};

// Runs argv to its end; stdout and stderr to log_path (appended) when given, else to the terminal.
SpawnResult spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = 0;
  try {
    pid = experiments::start_process(argv, log_path, true);
  } catch (const std::exception& e) {
    return {-1, e.what()};
  }
  int ws = 0;
  if (waitpid(pid, &ws, 0) < 0) return {-1, "waitpid failed"};
  const std::string why = experiments::exit_description(ws);
  return {why.empty() ? 0 : WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, why};
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string duration(double s) {
  std::ostringstream o;
  if (s < 90)
    o << std::fixed << std::setprecision(0) << s << " s";
  else
    o << std::fixed << std::setprecision(1) << s / 60 << " min";
  return o.str();
}

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

// ------------------------------------------------------------------------------------------------ run

static std::string figures_section(const std::vector<NotebookSpec>& manifest, const std::map<std::string, json>& done,
                                   const ReportConfig& cfg) {
  std::ostringstream o;
  for (const auto& nb : manifest)
    for (const auto& f : nb.figures) {
      o << "### " << f.paper << ": " << f.file << "\n\n![" << f.paper << "](figures/" << f.file << ")\n\n*" << f.caption
        << "* Drawn by `notebooks/" << nb.notebook << "` from:\n";
      for (const auto& in : f.inputs) {
        const auto it = done.find(in);
        if (it == done.end()) {
          o << "- stage `" << in << "` (no record in " << cfg.work << ")\n";
          continue;
        }
        o << "- stage `" << in << "` (config hash `" << it->second.value("config_hash", "") << "`):\n";
        for (const auto& c : it->second.value("commands", json::array())) {
          const std::string cmd = c.get<std::string>();
          bool keep = f.command_filter.empty();
          for (const auto& sub : f.command_filter) keep = keep || cmd.find(sub) != std::string::npos;
          if (keep) o << "  `" << cmd << "`\n";
        }
      }
      o << "\n";
    }
  return o.str();
}

// A reproduction side by side with the paper: one row per metric, ours and the paper's per arm, the difference of
// the compared arms with Welch's p and the verdict.
static std::string reproduction_table(const json& summary) {
  const json& repro = summary.at("config").at("reproduction");
  const json& v = summary.at("variants").at(0);
  std::vector<std::pair<std::string, std::string>> arms;
  for (const auto& a : repro.at("arms")) arms.emplace_back(a.at("name"), a.value("label", a.at("name").get<std::string>()));
  // the paper's columns only where the paper prints a number for some arm (a figure of bars prints none)
  bool paper = false;
  for (const auto& row : v.at("rows"))
    for (const auto& a : arms) paper = paper || row["arms"][a.first].contains("paper");
  std::ostringstream o;
  o << "| metric";
  for (const auto& a : arms) o << " | ours, " << a.second;
  for (const auto& a : arms)
    if (paper) o << " | paper, " << a.second;
  o << " | difference (Welch) | verdict |\n|---";
  for (std::size_t i = 0; i < (paper ? 2 : 1) * arms.size() + 2; ++i) o << "|---";
  o << "|\n";
  for (const auto& row : v.at("rows")) {
    o << "| " << row.value("metric", "");
    for (const auto& a : arms) o << " | " << experiments::mean_std_text(row["arms"][a.first]);
    for (const auto& a : arms)
      if (paper)
        o << " | " << (row["arms"][a.first].contains("paper") ? fixed1(row["arms"][a.first]["paper"]) : std::string("-"));
    o << " | " << (row.contains("difference") ? fixed1(row["difference"]) + " (" + experiments::p_value_text(row) + ")"
                                              : std::string("-"));
    if (row.contains("baseline") && row.contains("treatment")) {  // a metric with its own sides
      o << ": " << row["treatment"].value("label", "") << " at `" << row["treatment"].value("path", "") << "` "
        << experiments::mean_std_text(row["treatment"]) << " vs " << row["baseline"].value("label", "");
      if (row["baseline"].value("arm", "") != "bound")  // a fixed number has no path and no spread
        o << " at `" << row["baseline"].value("path", "") << "` " << experiments::mean_std_text(row["baseline"]);
    }
    o << " | " << row.value("verdict", "-") << " |\n";
  }
  for (const auto& d : v.value("diagnostics", json::array())) {
    o << "| " << d.value("metric", "") << " (diagnostic)";
    for (const auto& a : arms) o << " | " << experiments::mean_std_text(d["arms"][a.first], 3);
    for (std::size_t i = 0; paper && i < arms.size(); ++i) o << " | -";
    o << " | - | - |\n";
  }
  return o.str();
}

// Variants of a reproduction (a config with one thing changed), one row each: the metrics marked in_variant_table
// (each arm and the difference with Welch's p) and the first diagnostic per arm.
static std::string variants_table(const std::vector<std::pair<std::string, json>>& rows_in) {
  std::ostringstream o;
  bool header = false;
  for (const auto& [label, v] : rows_in) {
    std::vector<json> metrics;
    for (const auto& r : v.at("rows"))
      if (r.contains("in_table") ? r["in_table"].get<bool>() : true) metrics.push_back(r);
    if (!header) {
      o << "| config | change";
      for (const auto& m : metrics) {
        for (auto it = m["arms"].begin(); it != m["arms"].end(); ++it)
          o << " | " << m.value("metric", "") << ": " << it.value().value("label", it.key());
        o << " | difference (p)";
      }
      const json diags = v.value("diagnostics", json::array());
      if (!diags.empty())
        for (auto it = diags[0]["arms"].begin(); it != diags[0]["arms"].end(); ++it)
          o << " | " << diags[0].value("metric", "") << ": " << it.key();
      o << " |\n|---|---";
      for (const auto& m : metrics) for (std::size_t i = 0; i <= m["arms"].size(); ++i) o << "|---";
      if (!diags.empty()) for (std::size_t i = 0; i < diags[0]["arms"].size(); ++i) o << "|---";
      o << "|\n";
      header = true;
    }
    o << "| `" << label << "` | " << cell(v.value("change", ""));
    for (const auto& m : metrics) {
      for (auto it = m["arms"].begin(); it != m["arms"].end(); ++it) o << " | " << experiments::mean_std_text(it.value());
      o << " | " << (m.contains("difference") ? fixed1(m["difference"]) + " (" + experiments::p_value_text(m) + ")"
                                              : std::string("-"));
    }
    const json diags = v.value("diagnostics", json::array());
    if (!diags.empty())
      for (auto it = diags[0]["arms"].begin(); it != diags[0]["arms"].end(); ++it)
        o << " | " << experiments::mean_std_text(it.value());
    o << " |\n";
  }
  return o.str();
}

int run_report(const ReportConfig& cfg) {
  const auto t_start = std::chrono::steady_clock::now();
  const std::string root = fs::path(cfg.notebooks).parent_path().string();
  const std::string manifest_path = cfg.notebooks + "/figures.json";
  const auto manifest = read_manifest(manifest_path);
  for (const auto& nb : manifest)
    if (!fs::exists(cfg.notebooks + "/" + nb.notebook))
      throw std::runtime_error(manifest_path + " names " + nb.notebook + ", which is not in " + cfg.notebooks);

  auto stages = plan(cfg);
  std::set<std::string> known;
  for (const auto& s : stages) known.insert(s.name);
  for (const auto& o : cfg.only)
    if (!known.count(o)) throw std::runtime_error("--stages: no stage named '" + o + "'");
  const std::string revision = DMLBENCH_GIT_REV;

  // Hashes: a stage's config is its commands (work folder abstracted) plus the hash of the sources of the layers it
  // runs (so an edit reruns exactly the stages it can change, committed or not); the figures stage also covers the
  // notebooks, the manifest and the hashes of the stages it reads. The report builder itself is not an input.
  const std::vector<std::string> build_files = {"CMakeLists.txt", "cmake", "apps"};
  const std::vector<std::string> not_inputs = {"report_builder", "report_command"};
  std::map<std::string, std::string> hash_of;
  for (auto& s : stages) {
    json cmds = json::array();
    for (const auto& c : s.commands) {
      json a = json::array();
      for (std::size_t i = 1; i < c.argv.size(); ++i) {
        std::string v = c.argv[i];
        if (v.rfind(cfg.work, 0) == 0) v = "$WORK" + v.substr(cfg.work.size());
        a.push_back(v);
      }
      cmds.push_back(a);
    }
    std::vector<std::string> code = build_files;
    code.insert(code.end(), s.code.begin(), s.code.end());
    s.config = {{"stage", s.name}, {"commands", cmds},
                {"code", s.notebooks ? std::string() : tree_hash(cfg.source_dir, code, not_inputs)}};
    if (!s.inputs.is_null()) s.config["inputs"] = fnv1a_hex(s.inputs.dump());
    if (s.notebooks) {
      json nbs = json::object();
      for (const auto& nb : manifest) nbs[nb.notebook] = fnv1a_hex(read_text(cfg.notebooks + "/" + nb.notebook));
      s.config["notebooks"] = nbs;
      s.config["manifest"] = fnv1a_hex(read_text(manifest_path));
      json ups = json::object();
      for (const auto& [n, h] : hash_of) ups[n] = h;
      s.config["inputs"] = ups;
      for (const auto& nb : manifest)
        for (const auto& f : nb.figures) s.outputs.push_back(f.file);
    }
    s.hash = fnv1a_hex(s.config.dump());
    hash_of[s.name] = s.hash;
  }

  auto selected = [&](const Stage& s) {
    return cfg.only.empty() || std::find(cfg.only.begin(), cfg.only.end(), s.name) != cfg.only.end();
  };
  std::vector<double> estimate;
  for (const auto& s : stages) {
    double e = s.nominal_seconds;
    const auto rec = cfg.work + "/" + s.name + "/stage.json";
    if (fs::exists(rec)) {
      try {
        const json j = read_json(rec);
        if (j.value("profile", "") == cfg.profile && j.contains("seconds")) e = j["seconds"].get<double>();
      } catch (const std::exception&) {
      }
    }
    estimate.push_back(selected(s) ? e : 0.0);
  }

  const std::size_t total = stages.size() + 1;
  std::map<std::string, json> records;
  std::map<std::string, bool> cached;
  const std::string out_new = cfg.out + ".new", out_old = cfg.out + ".old";
  try {
    for (std::size_t k = 0; k < stages.size(); ++k) {
      auto& s = stages[k];
      const std::string dir = cfg.work + "/" + s.name;
      const std::string rec = dir + "/stage.json";
      std::ostringstream head;
      head << "[report] stage " << k + 1 << "/" << total << " " << s.name << ": ";
      if (!selected(s)) {
        if (fs::exists(rec)) records[s.name] = read_json(rec);
        std::cerr << head.str() << "not selected, outputs in " << dir << " used as they are\n";
        continue;
      }
      bool up_to_date = false;
      if (!cfg.force && fs::exists(rec)) {
        try {
          const json j = read_json(rec);
          up_to_date = j.value("config_hash", "") == s.hash;
          for (const auto& o : s.outputs) up_to_date = up_to_date && fs::exists(dir + "/" + o);
          if (up_to_date) records[s.name] = j;
        } catch (const std::exception&) {
          up_to_date = false;
        }
      }
      if (up_to_date) {
        cached[s.name] = true;
        estimate[k] = 0;
        std::cerr << head.str() << "unchanged (config hash " << s.hash << "), not rerun\n";
        continue;
      }
      double left = 0;
      for (std::size_t q = k; q < stages.size(); ++q) left += estimate[q];
      std::cerr << head.str() << s.title << " (estimate " << duration(estimate[k]) << ", report ETA "
                << duration(left) << ")" << std::endl;
      // Outputs of another config are removed first, so that nothing stale (a training checkpoint, say) is resumed;
      // a run of this same config that was killed keeps its outputs and resumes.
      const std::string marker = dir + "/stage_hash.txt";
      if (fs::exists(dir) && (!fs::exists(marker) || read_text(marker) != s.hash + "\n")) fs::remove_all(dir);
      fs::create_directories(dir);
      fs::remove(rec);
      experiments::write_file_atomically(marker, s.hash + "\n");
      const std::string log = dir + "/log.txt";
      { std::ofstream(log, std::ios::trunc) << "# stage " << s.name << " " << now_iso() << "\n"; }
      const auto t0 = std::chrono::steady_clock::now();
      json printed = json::array();
      if (s.notebooks) {
        fs::create_directories(dir + "/executed");
        for (const auto& o : s.outputs) fs::remove(dir + "/" + o);
        setenv("DMLBENCH_RUNS", cfg.work.c_str(), 1);
        setenv("DMLBENCH_FIGURES", dir.c_str(), 1);
        setenv("MPLBACKEND", "Agg", 1);
        setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1", 1);  // silences ipykernel's frozen-modules debugger warning
        for (const auto& nb : manifest) {
          const std::vector<std::string> argv = {cfg.jupyter, "nbconvert", "--to", "notebook", "--execute",
                                                 "--ExecutePreprocessor.timeout=1800", "--output-dir", dir + "/executed",
                                                 "--output", nb.notebook, cfg.notebooks + "/" + nb.notebook};
          std::cerr << "[report]   notebook " << nb.notebook << std::endl;
          const auto r = spawn(argv, log);
          printed.push_back(join_command(argv, cfg.self, root));
          if (r.status != 0)
            throw Failure("notebook " + nb.notebook + " failed to execute (" + r.error +
                          "); its error is shown above. Output so far:\n" + experiments::file_tail(log, 15));
          for (const auto& f : nb.figures)
            if (!fs::exists(dir + "/" + f.file))
              throw Failure("notebook " + nb.notebook + " ran but did not draw " + f.file + " (listed in " +
                            manifest_path + ")");
        }
      } else {
        for (std::size_t c = 0; c < s.commands.size(); ++c) {
          const auto& cmd = s.commands[c];
          const std::string line = join_command(cmd.argv, cfg.self, root);
          printed.push_back(line);
          if (s.commands.size() > 3)
            std::cerr << "[report]   " << c + 1 << "/" << s.commands.size() << " " << line << std::endl;
          const auto r = spawn(cmd.argv, cmd.quiet ? log : "");
          if (r.status != 0)
            throw Failure("`" + line + "` failed (" + r.error + ")" +
                          (cmd.quiet ? ". Its output:\n" + experiments::file_tail(log, 15) : std::string()));
        }
        for (const auto& o : s.outputs)
          if (!fs::exists(dir + "/" + o)) throw Failure("the stage ran but wrote no " + dir + "/" + o);
      }
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      estimate[k] = 0;
      json j = {{"stage", s.name},      {"title", s.title},       {"profile", cfg.profile}, {"config_hash", s.hash},
                {"git_revision", revision}, {"finished", now_iso()}, {"seconds", secs},       {"commands", printed},
                {"config", s.config}};
      experiments::write_file_atomically(rec, j.dump(2) + "\n");
      records[s.name] = j;
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      double rest = 0;
      for (std::size_t q = k + 1; q < stages.size(); ++q) rest += estimate[q];
      std::cerr << "[report] stage " << s.name << " done in " << duration(secs) << "; elapsed " << duration(el)
                << ", ETA " << duration(rest) << std::endl;
    }

    // --- assemble ------------------------------------------------------------------------------------------------
    std::cerr << "[report] stage " << total << "/" << total << " report: assembling " << cfg.out << "/REPORT.md"
              << std::endl;
    std::vector<ClaimRow> rows;
    json sources = json::object();
    auto add_claims = [&](const std::string& stage, const std::string& file) {
      const std::string p = cfg.work + "/" + stage + "/" + file;
      if (!fs::exists(p)) return json();
      const json j = read_json(p);
      std::vector<ClaimRow> rs;
      try {
        rs = claim_rows_from_claims_json(j);
      } catch (const std::exception& e) {
        throw Failure(p + ": " + e.what());
      }
      rows.insert(rows.end(), rs.begin(), rs.end());
      sources[stage] = {{"file", file}, {"git_revision", j.value("git_revision", "")}, {"claims", rs.size()}};
      return j;
    };
    add_claims("theory-claims", "claims.json");
    add_claims("sims-claims", "claims.json");
    // every reproduction of this profile: its summary (from its stage) and, where it says so, its claim rows
    const auto repros = reproductions(cfg);
    std::map<std::string, json> summaries;
    for (const auto& r : repros) {
      const std::string p = cfg.work + "/" + r.stage + "/summary.json";
      if (!fs::exists(p)) continue;
      const json j = read_json(p);
      summaries[r.stage] = j;
      if (!r.claims) continue;
      std::vector<ClaimRow> rs;
      try {
        rs = claim_rows_from_reproduction_summary(j, r.paper, r.where);
      } catch (const std::exception& e) {
        throw Failure(p + ": " + e.what());
      }
      rows.insert(rows.end(), rs.begin(), rs.end());
      sources[r.stage] = {{"file", "summary.json"}, {"git_revision", j.value("git_revision", "")}, {"claims", rs.size()}};
    }
    if (rows.empty()) throw Failure("no claims to report: no claims.json or summary.json under " + cfg.work);

    fs::remove_all(out_new);
    fs::create_directories(out_new + "/figures");
    for (const auto& nb : manifest)
      for (const auto& f : nb.figures) {
        const std::string src = cfg.work + "/figures/" + f.file;
        if (!fs::exists(src)) throw Failure("figure " + f.file + " is missing from " + cfg.work + "/figures");
        fs::copy_file(src, out_new + "/figures/" + f.file, fs::copy_options::overwrite_existing);
      }
    std::vector<std::tuple<std::string, std::string, std::string>> copies = {
        {"theory-claims", "CLAIMS.md", "theory/CLAIMS.md"},
        {"theory-claims", "claims.json", "theory/claims.json"},
        {"sims-claims", "CLAIMS.md", "sims/CLAIMS.md"},
        {"sims-claims", "claims.json", "sims/claims.json"}};
    for (const auto& r : repros)
      copies.emplace_back(r.stage, "summary.json", "experiments/" + r.stage + "_summary.json");
    for (const auto& [stage, file, dest] : copies) {
      const std::string src = cfg.work + "/" + stage + "/" + file;
      if (!fs::exists(src)) continue;
      fs::create_directories(fs::path(out_new + "/" + dest).parent_path());
      fs::copy_file(src, out_new + "/" + dest, fs::copy_options::overwrite_existing);
    }

    std::map<std::string, int> counts;
    for (const auto& r : rows) counts[r.verdict]++;
    std::ostringstream md;
    md << "# dmlbench report\n\nGenerated by `dmlbench report --profile " << cfg.profile << "` (git " << revision
       << ") on " << now_iso() << ". Do not edit: rerun `bash scripts/run_main.sh"
       << (cfg.profile == "quick" ? " --quick" : "") << "`.\n";
    if (cfg.profile == "quick")
      md << "\n**Quick profile:** one seed per experiment and a small phase sweep; experiment rows have no significance "
            "test. The default profile reproduces the full set.\n";
    md << "\n## Summary\n\n" << rows.size() << " claims:";
    for (const auto& [v, n] : counts) md << " " << n << " " << v << ";";
    md << " every row below is generated from the runs' JSON (`claims.json` beside this file).\n\n";
    md << "## Claims\n\n" << claims_table_markdown(rows) << "\n";
    md << "## Errata\n\nEvery printed equation the bench found wrong, with the witness and the corrected form.\n\n"
       << errata_markdown(rows) << "\n";
    md << "## Refuted and not reproduced\n\n" << refutations_markdown(rows) << "\n";
    for (const auto& r : repros) {  // each reproduction side by side with the paper, and its variants
      const auto it = summaries.find(r.stage);
      if (it == summaries.end()) continue;
      const json& sm = it->second;
      md << "## " << r.title << "\n\nReproduction `" << fs::relative(r.file, cfg.source_dir).string() << "` (stage `"
         << r.stage << "`, profile " << sm["config"].value("profile", "") << ", " << sm["config"].value("seeds", 0)
         << " seeds per arm; mean +- std over seeds, Welch's test of "
         << (r.treatment.empty() ? std::string("-") : r.treatment + " minus " + r.baseline) << "). Run config `"
         << fs::relative(r.config, cfg.source_dir).string() << "`, resolved: `"
         << sm["config"].value("base_config", json::object()).dump() << "`.";
      if (r.source.contains("note")) md << " " << r.source["note"].get<std::string>();
      if (sm.contains("sweep"))
        md << " The runs were made by `dmlbench sweep` (" << sm["sweep"].value("points", 0) << " points of the sweep "
           << sm["sweep"].value("name", std::string()) << ", in `" << sm["sweep"].value("dir", std::string())
           << "`; a Slurm job array or `--local`) and collected with `dmlbench sweep collect`.";
      md << "\n\n";
      if (r.variants.empty()) {
        md << reproduction_table(sm) << "\n";
        continue;
      }
      std::vector<std::pair<std::string, json>> vrows;
      const auto base = summaries.find(r.compare_with);
      if (base != summaries.end()) {
        json v0 = base->second["variants"][0];
        v0["change"] = "the config of stage " + r.compare_with + " as it is";
        vrows.emplace_back(r.compare_with, v0);
      }
      for (const auto& v : sm["variants"]) vrows.emplace_back(v.value("name", ""), v);
      md << "One row per variant: the config with one thing changed.\n\n" << variants_table(vrows) << "\n";
    }
    md << not_run_here_markdown(cfg);
    md << "## Figures\n\n" << figures_section(manifest, records, cfg);
    md << "## Stages\n\nEach stage's outputs carry the hash of the config that made it (`stage.json` in its folder "
          "under the work directory); a stage whose hash is unchanged is not rerun.\n\n"
          "| stage | config hash | seconds | this run |\n|---|---|---|---|\n";
    for (const auto& s : stages) {
      const auto it = records.find(s.name);
      if (it == records.end()) continue;
      md << "| " << s.name << " | `" << it->second.value("config_hash", "") << "` | " << std::fixed
         << std::setprecision(1) << it->second.value("seconds", 0.0) << " | "
         << (!selected(s) ? "not selected" : cached.count(s.name) ? "cached" : "ran") << " |\n";
    }
    experiments::write_file_atomically(out_new + "/REPORT.md", md.str());
    json cj = {{"config", {{"command", "report"}, {"profile", cfg.profile}}}, {"git_revision", revision},
               {"tool", "dmlbench"}, {"sources", sources}, {"claims", claims_json(rows)}};
    experiments::write_file_atomically(out_new + "/claims.json", cj.dump(2) + "\n");

    // Swap in the new report: the old one stays until the new one is complete.
    fs::remove_all(out_old);
    if (fs::exists(cfg.out)) fs::rename(cfg.out, out_old);
    fs::rename(out_new, cfg.out);
    fs::remove_all(out_old);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(out_new, ec);
    std::cerr << "dmlbench: error: report failed: " << e.what() << "\n[report] the previous report in " << cfg.out
              << " is left as it was\n";
    return 1;
  }
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::cerr << "[report] wrote " << cfg.out << "/REPORT.md in " << duration(el) << "\n";
  return 0;
}

}  // namespace dmlbench::report
