// The report's caching: each stage's config hash (its commands, the sources of the layers it runs, its inputs) and
// whether its outputs in the work folder are current, so that an unchanged stage is not rerun.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_manifest.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Files of the report builder itself (apps/report_*, experiments' report_*): not inputs of any stage's code hash.
const std::vector<std::string>& report_builder_files();
// The seed-spending rule's files (report_seed_spending.{hpp,cpp}): a report_ file, but it decides which runs a stage
// with `spending` makes, so such a stage's config carries their hash and its spending settings (issue 49 item 3).
const std::vector<std::string>& seed_spending_files();
// What a stage's code hash leaves out (tree_hash's skip): the report builder's files, the tuning studies, the
// documentation, and, for every stage that does not run `theory check`, the papers' plug-ins (theory/papers/ and the
// papers' theory checks theory/src/claims_*), so that adding a paper's theory claims reruns no training stage.
std::vector<std::string> stage_code_skips(const Stage& s);

// Sets config and hash of every stage, in order: its commands (work folder written $WORK) plus the hash of the
// sources of the layers it runs (so an edit reruns exactly the stages it can change, committed or not); a stage that
// spends seeds adds the seed-spending rule's code and settings (seed_spending_files); the notebooks stage covers the
// notebooks, the manifest and the hashes of the stages before it instead.
void hash_stages(std::vector<Stage>& stages, const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                 const std::string& manifest_path);

// The record (stage.json) of stage s in cfg.work when its outputs are current: the same config hash and every
// output present; nothing when it must run (cfg.force, no record, another hash, an output missing, a bad record).
std::optional<nlohmann::ordered_json> current_stage_record(const ReportConfig& cfg, const Stage& s);

// Seconds each stage is expected to take: its last run of this profile (in cfg.work, else in the report's stage store),
// else its nominal time; 0 when not selected.
std::vector<double> stage_estimates(const std::vector<Stage>& stages, const ReportConfig& cfg);

}  // namespace dmlbench::experiments
