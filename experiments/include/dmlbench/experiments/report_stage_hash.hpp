// The report's caching: each stage's config hash (its commands, the code set it runs, its inputs) and whether its
// outputs in the work folder are current, so that an unchanged stage is not rerun.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_manifest.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Sets config, hash and code_files of every stage, in order: its commands (work folder written $WORK, --reuse-from
// left out) plus the hash of its code set (code_sets.hpp: the sources its command runs, so that an edit, committed or
// not, reruns exactly the stages that can reach it); a stage that spends seeds adds the seed-spending rule's code set
// (report_seed_spending.cpp and what it calls) and settings; the notebooks stage covers the notebooks, the manifest
// and the hashes of the stages before it instead.
void hash_stages(std::vector<Stage>& stages, const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                 const std::string& manifest_path);

// Why stage s would run again after `record` (a stage.json of its last run): each part of its config that moved, and
// for its code each file "path (changed|added|removed)"; empty where the hashes agree.
std::vector<std::string> stage_hash_changes(const Stage& s, const nlohmann::ordered_json& record);

// The record (stage.json) of stage s in cfg.work when its outputs are current: the same config hash and every
// output present; nothing when it must run (cfg.force, no record, another hash, an output missing, a bad record).
std::optional<nlohmann::ordered_json> current_stage_record(const ReportConfig& cfg, const Stage& s);

}  // namespace dmlbench::experiments
