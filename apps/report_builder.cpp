// `dmlbench report` run: the planned stages that are not current, each command a child process (the notebooks with
// jupyter), then the report folder assembled. Planning, caching and rendering live in experiments/report_*.
#include "report_builder.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/folder_lock.hpp"
#include "dmlbench/experiments/report_claim_premise.hpp"
#include "dmlbench/experiments/report_claim_stops.hpp"
#include "dmlbench/experiments/report_folder.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/report_kernel_recurrence.hpp"
#include "dmlbench/experiments/report_markdown.hpp"
#include "dmlbench/experiments/report_paper_sheets.hpp"
#include "dmlbench/experiments/report_sentence_rows.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/report_provenance.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/report_stage_estimate.hpp"
#include "dmlbench/experiments/report_stage_hash.hpp"
#include "dmlbench/experiments/report_stage_store.hpp"
#include "dmlbench/experiments/run_stamp.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"


#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::report {

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using Clock = std::chrono::steady_clock;

namespace {

struct SpawnResult {
  int status = -1;
  std::string error;
};

// Runs argv to its end (the shared process runner); stdout and stderr to log_path (appended) when given, else to the
// terminal.
SpawnResult spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  try {
    const auto r = ex::run_and_wait(argv, log_path, true);
    return {r.ok() ? 0 : r.exit_code(), r.description};
  } catch (const std::exception& e) {
    return {-1, e.what()};
  }
}

std::string duration(double s) {
  std::ostringstream o;
  if (s < 90)
    o << std::fixed << std::setprecision(0) << s << " s";
  else
    o << std::fixed << std::setprecision(1) << s / 60 << " min";
  return o.str();
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What the stages of one report run share.
struct Run {
  const ReportConfig& cfg;
  std::string root, manifest_path, revision;
  std::vector<NotebookSpec> manifest;
  std::vector<ex::Stage> stages;
  std::vector<double> estimate;  // seconds left per stage (0 once done, cached or not selected)
  ex::StageRecords done;
  Clock::time_point t_start;
};

// The notebooks manifest, every notebook it names present.
std::vector<NotebookSpec> checked_manifest(const ReportConfig& cfg, const std::string& manifest_path) {
  auto manifest = read_manifest(manifest_path);
  for (const auto& nb : manifest)
    if (!fs::exists(cfg.notebooks + "/" + nb.notebook))
      throw std::runtime_error(manifest_path + " names " + nb.notebook + ", which is not in " + cfg.notebooks);
  return manifest;
}

void check_stage_names(const std::vector<ex::Stage>& stages, const ReportConfig& cfg) {
  std::set<std::string> known;
  for (const auto& s : stages) known.insert(s.name);
  for (const auto& o : cfg.only)
    if (!known.count(o)) throw std::runtime_error("--stages: no stage named '" + o + "'");
}

double seconds_left(const Run& run, std::size_t from) {
  double left = 0;
  for (std::size_t q = from; q < run.stages.size(); ++q) left += run.estimate[q];
  return left;
}

// Executes every notebook into DIR/executed; each must draw its figures into DIR. Returns the commands run.
json run_notebooks(const Run& run, const std::string& dir, const std::string& log) {
  const auto& cfg = run.cfg;
  json printed = json::array();
  fs::create_directories(dir + "/executed");
  setenv("DMLBENCH_RUNS", cfg.work.c_str(), 1);
  setenv("DMLBENCH_FIGURES", dir.c_str(), 1);
  setenv("MPLBACKEND", "Agg", 1);
  setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1", 1);  // silences ipykernel's frozen-modules debugger warning
  for (const auto& nb : run.manifest) {
    const std::vector<std::string> argv = {cfg.jupyter, "nbconvert", "--to", "notebook", "--execute",
                                           "--ExecutePreprocessor.timeout=1800", "--output-dir", dir + "/executed",
                                           "--output", nb.notebook, cfg.notebooks + "/" + nb.notebook};
    std::cerr << "[report]   notebook " << nb.notebook << std::endl;
    const auto r = spawn(argv, log);
    printed.push_back(ex::join_command(argv, cfg.self, run.root));
    if (r.status != 0)
      throw std::runtime_error("notebook " + nb.notebook + " failed to execute (" + r.error +
                               "); its error is shown above. Output so far:\n" + ex::file_tail(log, 15));
    for (const auto& f : nb.figures)
      if (!fs::exists(dir + "/" + f.file))
        throw std::runtime_error("notebook " + nb.notebook + " ran but did not draw " + f.file + " (listed in " +
                                 run.manifest_path + ")");
  }
  return printed;
}

// Runs the stage's commands in order; each must succeed, then every output must exist. Returns the commands run.
json run_commands(const Run& run, const ex::Stage& s, const std::string& dir, const std::string& log) {
  json printed = json::array();
  for (std::size_t c = 0; c < s.commands.size(); ++c) {
    const auto& cmd = s.commands[c];
    const std::string line = ex::join_command(cmd.argv, run.cfg.self, run.root);
    printed.push_back(line);
    if (s.commands.size() > 3) std::cerr << "[report]   " << c + 1 << "/" << s.commands.size() << " " << line << std::endl;
    const auto r = spawn(cmd.argv, cmd.quiet ? log : "");
    if (r.status != 0)
      throw std::runtime_error("`" + line + "` failed (" + r.error + ")" +
                               (cmd.quiet ? ". Its output:\n" + ex::file_tail(log, 15) : std::string()));
  }
  for (const auto& o : s.outputs)
    if (!fs::exists(dir + "/" + o)) throw std::runtime_error("the stage ran but wrote no " + dir + "/" + o);
  return printed;
}

// A stage with seed spending, after its first look, reruns its reproduce command with one
// more seed for the arms of the claims that more seeds could decide (the finished runs are read again, not retrained)
// while such a claim is undecided at the planned family's level, up to its cap. The commands run are appended to
// `printed`.
void spend_seeds(const ex::Stage& s, const std::string& dir, json& printed, const Run& run) {
  const auto& sp = *s.spending;
  ex::spend_seeds(
      sp, [&] { return ex::read_json_file(dir + "/summary.json"); },
      [&](const ex::SeedPlan& plan) {
        auto argv = s.commands.front().argv;
        const auto more = plan.arguments();
        argv.insert(argv.end(), more.begin(), more.end());
        const std::string line = ex::join_command(argv, run.cfg.self, run.root);
        printed.push_back(line);
        std::cerr << "[report]   seeds by arm, at most " << sp.cap << " each: " << line << std::endl;
        const auto r = spawn(argv, "");
        if (r.status != 0) throw std::runtime_error("`" + line + "` failed (" + r.error + ")");
      },
      [&](const ex::SeedLook& look) { std::cerr << "[report]   " << ex::seed_look_text(look, sp.level()) << std::endl; });
}

// Readies the stage folder; returns its log. The outputs of another config are moved aside (previous_stage_dir), where
// the runs they hold are read back by key (run_key.hpp), never resumed: nothing stale is resumed, and a change that
// leaves a run's key as it was trains nothing again. A run of this same config that was killed keeps its outputs and
// resumes.
std::string prepare_stage_dir(const Run& run, const ex::Stage& s, const std::string& dir) {
  const std::string marker = dir + "/stage_hash.txt";
  if (fs::exists(dir) && (!fs::exists(marker) || ex::read_text_file(marker) != s.hash + "\n")) {
    // beside any earlier outputs still held there (a run of another config that was cut short)
    const fs::path prev = ex::previous_stage_dir(run.cfg, s.name);
    int n = 1;
    while (fs::exists(prev / std::to_string(n))) ++n;
    fs::create_directories(prev);
    fs::rename(dir, prev / std::to_string(n));
  }
  fs::create_directories(dir);
  fs::remove(dir + "/stage.json");
  ex::write_file_atomically(marker, s.hash + "\n");
  const std::string log = dir + "/log.txt";
  { std::ofstream(log, std::ios::trunc) << "# stage " << s.name << " " << ex::utc_now_text() << "\n"; }
  return log;
}

// The record of a stage's last run, in the work folder or else in the report's stage store; null where there is none.
json last_record(const ReportConfig& cfg, const ex::Stage& s) {
  for (const fs::path& rec : {fs::path(cfg.work) / s.name / "stage.json", fs::path(ex::stage_store_dir(cfg)) / s.name / "stage.json"})
    try {
      if (fs::exists(rec)) return ex::read_json_file(rec.string());
    } catch (const std::exception&) {
    }
  return json();
}

// One line: why stage s runs again (the parts of its config and the code files that moved since its last run).
std::string why_text(const ReportConfig& cfg, const ex::Stage& s) {
  const json rec = last_record(cfg, s);
  if (rec.is_null()) return "no earlier run";
  const auto why = ex::stage_hash_changes(s, rec);
  std::string text;
  for (std::size_t i = 0; i < why.size() && i < 6; ++i) text += (i ? "; " : "") + why[i];
  if (why.size() > 6) text += "; and " + std::to_string(why.size() - 6) + " more";
  return text.empty() ? "its outputs are incomplete" : text;
}

// Runs stage k (it is selected and not current) and writes its record.
void execute_stage(Run& run, std::size_t k) {
  const auto& s = run.stages[k];
  const std::string dir = run.cfg.work + "/" + s.name;
  // what its outputs cost when first made: a stage that reads its runs back runs in seconds, yet its runs took what
  // they took to train, so it stays in the store as long as they would have kept it there
  const json before = last_record(run.cfg, s);
  const double earlier = before.is_object() ? before.value("cost_seconds", before.value("seconds", 0.0)) : 0.0;
  const std::string log = prepare_stage_dir(run, s, dir);
  const auto t0 = Clock::now();
  if (s.notebooks)
    for (const auto& o : s.outputs) fs::remove(dir + "/" + o);
  json printed = s.notebooks ? run_notebooks(run, dir, log) : run_commands(run, s, dir, log);
  if (s.spending) spend_seeds(s, dir, printed, run);
  const double secs = seconds_since(t0);
  run.estimate[k] = 0;
  json j = {{"stage", s.name},          {"title", s.title},       {"profile", run.cfg.profile}, {"config_hash", s.hash},
            {"git_revision", run.revision}, {"finished", ex::utc_now_text()}, {"seconds", secs},           {"commands", printed},
            {"machine", ex::machine_record()}, {"config", s.config}, {"code_files", s.code_files}};
  const double cost = std::max(secs, earlier);
  j["cost_seconds"] = cost;
  ex::write_file_atomically(dir + "/stage.json", j.dump(2) + "\n");
  fs::remove_all(ex::previous_stage_dir(run.cfg, s.name));  // every run it held that this config has is read back
  if (ex::worth_storing(run.cfg, cost)) ex::save_stage(run.cfg, s, ex::run_files_read(run.manifest));  // a later session or machine restores it
  run.done.records[s.name] = j;
  std::cerr << "[report] stage " << s.name << " done in " << duration(secs) << "; elapsed "
            << duration(seconds_since(run.t_start)) << ", ETA " << duration(seconds_left(run, k + 1)) << std::endl;
}

// Stage k: used as it is when not selected, skipped when current, else run.
void run_stage(Run& run, std::size_t k) {
  const auto& s = run.stages[k];
  const std::string dir = run.cfg.work + "/" + s.name, rec = dir + "/stage.json";
  std::ostringstream head;
  head << "[report] stage " << k + 1 << "/" << run.stages.size() + 1 << " " << s.name << ": ";
  if (!ex::stage_selected(run.cfg, s.name)) {
    if (!ex::current_stage_record(run.cfg, s)) ex::restore_stage(run.cfg, s);
    if (fs::exists(rec)) run.done.records[s.name] = ex::read_json_file(rec);
    std::cerr << head.str() << "not selected, outputs in " << dir << " used as they are\n";
    return;
  }
  if (auto current = ex::current_stage_record(run.cfg, s)) {
    // one that finished before the report folder held its copy (another folder, an older store) is stored now
    if (!ex::stored_stage_record(run.cfg, s) &&
        ex::worth_storing(run.cfg, current->value("cost_seconds", current->value("seconds", 0.0))))
      ex::save_stage(run.cfg, s, ex::run_files_read(run.manifest));
    run.done.records[s.name] = *current;
    run.done.cached.insert(s.name);
    run.estimate[k] = 0;
    std::cerr << head.str() << "unchanged (config hash " << s.hash << "), not rerun\n";
    return;
  }
  if (auto stored = ex::restore_stage(run.cfg, s)) {  // run before, by this report or on another machine
    run.done.records[s.name] = *stored;
    run.done.restored.insert(s.name);
    run.estimate[k] = 0;
    std::cerr << head.str() << "restored from " << ex::stage_store_dir(run.cfg) << " (config hash " << s.hash
              << ", run at " << stored->value("git_revision", "?") << "), not rerun\n";
    return;
  }
  std::cerr << head.str() << s.title << " (estimate " << duration(run.estimate[k]) << ", report ETA "
            << duration(seconds_left(run, k)) << ")\n[report]   runs because: " << why_text(run.cfg, s) << std::endl;
  execute_stage(run, k);
}

// Each paper's erratum sheet (report_paper_sheets.hpp) into out_new/papers/.
void write_paper_sheets(const ReportConfig& cfg, const std::vector<ex::Reproduction>& repros,
                        const std::vector<ex::ClaimRow>& rows, const ex::TunedVerdicts& tuned,
                        const std::string& out_new) {
  std::map<std::string, std::string> commands;
  for (const auto& r : repros)  // the reproduction whose rows enter the claims table, not a probe of the same claims
    for (const auto& m : r.metrics)
      if (r.claims && !m.claim.empty())
        commands[m.claim] = "dmlbench reproduce --file " + fs::relative(r.file, cfg.source_dir).generic_string() +
                            " --profile " + cfg.profile + " --out <dir>";
  for (const auto& r : rows)  // a sentence judged from its parts: the command that runs them
    if (r.scope.sentence && commands.count(r.scope.sentence->rows.front()))
      commands[r.id] = commands.at(r.scope.sentence->rows.front());
  fs::create_directories(out_new + "/papers");
  for (const auto& [paper, md] : ex::paper_sheets_markdown(rows, commands, ex::tuned_readings(tuned, rows)))
    ex::write_file_atomically(out_new + "/papers/" + paper + ".md", md);
}

// Writes the report into out_new from the work folder's claims, summaries and figures, then swaps it in.
void assemble(const Run& run, const std::string& out_new) {
  const auto& cfg = run.cfg;
  std::cerr << "[report] stage " << run.stages.size() + 1 << "/" << run.stages.size() + 1 << " report: assembling "
            << cfg.out << "/REPORT.md" << std::endl;
  const auto repros = ex::report_reproductions(cfg);
  auto claims = ex::gather_claims(cfg.work, repros);
  // scopes first: the papers' own rows are decided as a family of their own (training_family_of)
  const auto scopes = ex::read_claim_scopes(cfg.source_dir);
  const auto unscoped = ex::attach_claim_scopes(claims.rows, scopes);
  const std::size_t stopped = ex::read_claims_at_their_stops(claims.rows, claims.summaries, run.stages);
  std::cerr << "[report] each training claim read at its own stop: " << stopped
            << " before the seeds their arms hold (the later seeds a labelled re-read)\n";
  ex::decide_training_claims(claims.rows, ex::p_adjustment_named(cfg.multiplicity));  // the report's family
  std::optional<ex::KernelRecurrence> kernels;  // the verdicts under other kernels
  if (!cfg.kernel_recurrence.empty()) {
    kernels = ex::read_kernel_recurrence(cfg.kernel_recurrence,
                                         fs::relative(cfg.kernel_recurrence, cfg.source_dir).string(), run.stages);
    const auto sensitive = ex::attach_kernel_recurrence(claims.rows, *kernels);
    std::cerr << "[report] verdicts under other kernels (" << kernels->file << "): "
              << (kernels->current() ? std::to_string(sensitive.size()) + " machine-sensitive" : "stale, not shown")
              << "\n";
  }
  auto tuned = ex::gather_tuned_verdicts(cfg.work, ex::report_tuned_reproductions(cfg),
                                         ex::p_adjustment_named(cfg.multiplicity), run.stages);  // their own family
  ex::mark_tuned_premises(tuned, claims.rows);  // a tuned twin judged on its premise as its default row is
  const auto contested = ex::mark_contested(claims.rows, tuned);  // a direction that turns under equal tuning
  std::cerr << "[report] contested (a direction that turns with both arms tuned alike): " << contested.size() << "\n";
  const auto premised = ex::mark_premise_not_reached(claims.rows);  // a statement whose premise the runs do not reach
  std::cerr << "[report] premise not reached: " << premised.size() << "\n";
  const auto sentences = ex::add_sentence_rows(claims.rows, scopes);  // a sentence checked in parts, judged once
  std::cerr << "[report] sentences judged from their parts: " << sentences.size() << "\n";
  if (!unscoped.empty()) {
    std::string list;
    for (const auto& u : unscoped) list += (list.empty() ? "" : ", ") + u;
    if (ex::writes_committed_report(cfg))
      throw std::runtime_error(std::to_string(unscoped.size()) + " claim rows have no scope entry: " + list);
    std::cerr << "[report] warning: " << unscoped.size() << " claim rows have no scope entry (shown as unstated): "
              << list << "\n";
  }
  // the tree may have changed while it ran
  ex::check_report_provenance(cfg, ex::tree_revision(cfg.source_dir, ex::stage_store_dir(cfg)));
  auto copied = repros;  // the reproductions' summaries, and the tuned variants' beside them
  for (const auto& t : tuned.studies) copied.push_back(t.tuned);
  ex::copy_report_files(cfg, run.manifest, copied, out_new);
  ex::carry_stage_store(cfg, run.stages, out_new);
  // the previous claims.json, before it is replaced: the verdicts that moved
  const json previous = fs::exists(cfg.out + "/claims.json") ? ex::read_json_file(cfg.out + "/claims.json") : json();
  const ex::ReportContents contents{cfg,    run.revision, ex::utc_now_text(), run.stages, run.done,           claims,
                                    repros, run.manifest, previous,           &tuned,     kernels ? &*kernels : nullptr};
  ex::write_file_atomically(out_new + "/REPORT.md", ex::report_markdown(contents));
  ex::write_file_atomically(out_new + "/claims.json", ex::report_claims_json(cfg, run.revision, claims, &tuned).dump(2) + "\n");
  ex::write_file_atomically(out_new + "/AUDIT.md", ex::audit_markdown(claims.rows));
  write_paper_sheets(cfg, repros, claims.rows, tuned, out_new);
  ex::swap_in_report(out_new, cfg.out);  // the old report stays until the new one is complete
}

// `report --explain`: each stage's state against its last run (work folder, then stage store), nothing run.
int explain_report(const Run& run) {
  for (const auto& s : run.stages) {
    std::cout << s.name << ": ";
    if (!ex::stage_selected(run.cfg, s.name))
      std::cout << "not selected\n";
    else if (ex::current_stage_record(run.cfg, s))
      std::cout << "current (config hash " << s.hash << ")\n";
    else if (ex::stored_stage_record(run.cfg, s))
      std::cout << "restored from " << ex::stage_store_dir(run.cfg) << " (config hash " << s.hash << ")\n";
    else
      std::cout << "runs (config hash " << s.hash << "): " << why_text(run.cfg, s) << "\n";
  }
  std::cout << "report: assembled from the stages (its own code is read at every run)\n";
  return 0;
}

}  // namespace

int run_report(const ReportConfig& cfg) {
  Run run{cfg, fs::path(cfg.notebooks).parent_path().string(), cfg.notebooks + "/figures.json",
          ex::tree_revision(cfg.source_dir, ex::stage_store_dir(cfg)), {}, {}, {}, {}, Clock::now()};
  run.manifest = checked_manifest(cfg, run.manifest_path);
  run.stages = ex::plan_report_stages(cfg);
  check_stage_names(run.stages, cfg);
  ex::hash_stages(run.stages, cfg, run.manifest, run.manifest_path);
  run.estimate = ex::stage_estimates(run.stages, cfg);
  if (cfg.explain) return explain_report(run);
  ex::check_report_provenance(cfg, run.revision);  // before any stage runs
  // one report at a time into a work folder and into an output folder, from before the first write; the
  // output is replaced by a rename, so its lock file lies beside it
  const auto work_lock = ex::FolderLock::take(cfg.work);
  const auto out_lock = ex::FolderLock::take(cfg.out, {ex::lock_file_beside(cfg.out)});
  const std::string out_new = cfg.out + ".new";
  try {
    for (std::size_t k = 0; k < run.stages.size(); ++k) run_stage(run, k);
    assemble(run, out_new);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(out_new, ec);
    std::cerr << "dmlbench: error: report failed: " << e.what() << "\n[report] the previous report in " << cfg.out
              << " is left as it was\n";
    return 1;
  }
  std::cerr << "[report] wrote " << cfg.out << "/REPORT.md in " << duration(seconds_since(run.t_start)) << "\n";
  return 0;
}

}  // namespace dmlbench::report
