// The stages of `dmlbench report` for a profile: which exist, in which order, the commands each runs, its outputs,
// its time estimate and the source layers its hash covers.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_seed_spending.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct StageCommand {
  std::vector<std::string> argv;  // argv[0] is the program
  bool quiet = false;             // output to the stage log instead of the terminal (shown if it fails)
};

struct Stage {
  std::string name, title;
  std::vector<StageCommand> commands;
  std::vector<std::string> outputs;  // relative to the stage folder
  double nominal_seconds = 10;
  int jobs = 1;                      // the runs it trains at a time (its profile's jobs)
  bool notebooks = false;
  std::string code_set;              // the code set it runs (code_sets.hpp), hashed into its config; empty: none
  std::map<std::string, std::string> code_files;  // the files of that set (and of its seed-spending rule) and their
                                                  // hashes: what `report --explain` compares with the last run
  nlohmann::ordered_json config;     // what its hash covers
  std::string hash;
  nlohmann::ordered_json inputs;     // what else its hash covers (a collected sweep's finished results)
  // A reproduction stage whose profile has a seeds_cap above its seeds: after its command (the
  // first look), the report reruns it with one more seed (--seeds n + 1, the finished runs reused) while
  // look_at_stage (report_seed_spending.hpp) finds a claim that more seeds could decide, up to cap.
  std::optional<SeedSpending> spending;
};

// The reproduction files (cfg.reproductions/*.json, sorted by name) that have the report's profile, or (with
// `missing`) those that do not: the report lists them as not run here, with what they need.
std::vector<Reproduction> report_reproductions(const ReportConfig& cfg, bool missing = false);

// The tuned variants of the report's reproductions: in the default profile, each reproduction whose study
// results lie in the folder "tuned" beside cfg.reproductions (tuned/<file stem>.json) has a stage "<stage>-tuned"
// that trains each arm's best settings (tuning_plan.hpp's with_tuned_settings). Throws config_error for results that
// no longer match their reproduction's tuning block.
struct TunedReproduction {
  Reproduction tuned;            // the variant (its stage "<stage>-tuned", the claims' ids unchanged)
  std::string default_stage;     // the reproduction's own stage, whose verdicts it stands beside
  std::string results_file;      // tuned/<stem>.json
  nlohmann::ordered_json results;
  // the trainer code set's hash in this tree (code_sets.hpp), set beside the study's own "trainer_code" (the hash
  // at its search, where `tune` recorded it): whether the tuned runs train the code the study searched
  std::string trainer_code_now;
};
std::vector<TunedReproduction> report_tuned_reproductions(const ReportConfig& cfg);

// The stages in the order they run: theory-claims, theory-figures, sims-claims, sims-phase, sims-minimizers, one per
// reproduction of the profile (collecting its sweep where cfg.sweeps has one), one per tuned variant, figures. Commands run cfg.self and
// write under cfg.work. Throws std::runtime_error for a --sweep the report cannot take (report_sweeps.hpp).
std::vector<Stage> plan_report_stages(const ReportConfig& cfg);

// Where a stage's folder is moved when its hash moves, until the stage has run again: its finished runs are read back
// from there by key (run_key.hpp), never resumed.
std::string previous_stage_dir(const ReportConfig& cfg, const std::string& name);

// Whether --stages selects the stage (no --stages: every stage).
bool stage_selected(const ReportConfig& cfg, const std::string& name);

// argv as one shell-like line: the program "dmlbench" when it is `self`, paths under `root` relative to it, an
// argument holding a space in single quotes.
std::string join_command(const std::vector<std::string>& argv, const std::string& self, const std::string& root);

}  // namespace dmlbench::experiments
