// Seconds each report stage is expected to take, for the report's ETA: a training stage from the finished runs it
// holds (those its trainer code no longer matches train again, the others are read back), any other from its last run.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Seconds to read one finished run back (its files checked against their hashes, its metrics read): the committed
// report's stages read theirs back at 0.05 to 0.7 s a run on 2 cores; the estimate takes the upper end.
inline constexpr double kReadBackSecondsPerRun = 0.7;

// A training stage's seconds from the finished runs under stage_dir (each folder holding a run_key.json and a
// metrics.json): the wall seconds of the runs whose recorded trainer code is not `trainer_code`, divided by the runs
// it trains at a time (`jobs`), plus the read-back time of every run. Nothing where stage_dir holds no finished run.
// Runs the stage adds (more seeds or arms) and runs whose config changed are not foreseen.
std::optional<double> training_stage_estimate(const std::string& stage_dir, const std::string& trainer_code, int jobs);

// Seconds each stage is expected to take: 0 when not selected, current in cfg.work or restored from the report's stage
// store (the same hash); else, with a last run of this profile (in cfg.work, else in the store), a training stage's
// training_stage_estimate from the runs it holds there (else its last run's seconds) and any other stage's last
// run's seconds; without one, its nominal time.
std::vector<double> stage_estimates(const std::vector<Stage>& stages, const ReportConfig& cfg);

}  // namespace dmlbench::experiments
