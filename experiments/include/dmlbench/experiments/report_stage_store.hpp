// The report's stage store: each finished stage's outputs kept in the report folder (OUT/stages/),
// less its training checkpoints and with this machine's folders written as placeholders, and restored into a work
// folder whose copy is missing or stale when the config hash matches: a regeneration split over sessions or machines
// runs each stage once, and the committed report carries the per-seed evidence it was decided on.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// OUT/stages: the store of the report written to cfg.out.
std::string stage_store_dir(const ReportConfig& cfg);

// The store's record of stage s when it holds s under s's config hash (its stage.json, written last), else nothing.
std::optional<nlohmann::ordered_json> stored_stage_record(const ReportConfig& cfg, const Stage& s);

// Whether a stage that ran for `seconds` is stored: from cfg.store_min_seconds up (a minute by default). A quicker
// stage costs less to rerun than to carry (the [XHN] fields of theory-figures are 16 MB of CSV written in a second).
bool worth_storing(const ReportConfig& cfg, double seconds);

// Whether a file of stage `stage` (its path relative to the stage folder, `bytes` long) travels with the store: never a
// training checkpoint (*.pt and its manifest checkpoint.json, re-made only by rerunning), a lock, a partial write
// (*.tmp) or the stage's log; in a run's folder (a path through seedN/), no file over kLargeRunFile (embeddings, class
// trees, scatter logs: up to 6 MB a run; the verdicts come from each run's metrics.json) but those `kept` names (globs
// relative to the work folder: the notebooks' run_files_read).
constexpr std::uintmax_t kLargeRunFile = 64 * 1024;
bool stored_stage_file(const std::string& stage, const std::string& relative_path, std::uintmax_t bytes,
                       const std::vector<std::string>& kept = {});

// This machine's folders in a stored text file: cfg.work as ${WORK}, then cfg.source_dir as ${SOURCE} (save), and back
// (restore). A text file is one whose name ends in .json, .csv, .txt, .md or .tsv; other files are copied as they are.
std::string placeholders_for_paths(std::string text, const ReportConfig& cfg);
std::string paths_for_placeholders(std::string text, const ReportConfig& cfg);

// Copies the finished stage's folder (cfg.work/NAME, its stage.json written last) into the store, replacing an older
// copy. Throws std::runtime_error naming the file when one cannot be copied.
void save_stage(const ReportConfig& cfg, const Stage& s, const std::vector<std::string>& kept_run_files = {});

// When the store holds stage s under its config hash (stage.json written last, so a partial copy never matches) and
// every output, copies it into cfg.work/NAME (replacing what is there) and returns its record; nothing otherwise, or
// with cfg.force.
std::optional<nlohmann::ordered_json> restore_stage(const ReportConfig& cfg, const Stage& s);

// Copies into DEST/stages the stored copy of every stage of `stages` whose hash matches (a stale copy is dropped), so
// that the new report folder carries exactly the stages it was made from.
void carry_stage_store(const ReportConfig& cfg, const std::vector<Stage>& stages, const std::string& dest);

}  // namespace dmlbench::experiments
