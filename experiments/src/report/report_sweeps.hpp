// `dmlbench report --sweep DIR`: a reproduction's runs made by `dmlbench sweep` (a cluster's job array) are collected
// into its stage instead of being run again.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/sweep_grid.hpp"

#include <map>
#include <string>

namespace dmlbench::experiments {

// The sweeps of cfg.sweeps by the id of the reproduction each ran. Throws std::runtime_error for a sweep of no
// reproduction, of another profile, two sweeps of one reproduction, or one that changed the profile's runs
// (overrides, seeds, arms or variants).
std::map<std::string, SweepPlan> report_sweeps(const ReportConfig& cfg);

// Makes stage s (of reproduction r) collect the sweep `sp` into summary.json under stage_dir: the command, a nominal
// second, and the finished results (name, size, time) as inputs of its hash. Throws std::runtime_error when the
// sweep ran another version of r's file.
void collect_sweep_in_stage(Stage& s, const Reproduction& r, const SweepPlan& sp, const std::string& self,
                            const std::string& stage_dir);

}  // namespace dmlbench::experiments
