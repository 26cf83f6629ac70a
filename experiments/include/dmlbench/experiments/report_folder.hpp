// The report folder: built beside the old one (OUT.new) from the work folder's files, then swapped in, so that the
// previous report stays until the new one is complete.
#pragma once

#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_manifest.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <string>
#include <vector>

namespace dmlbench::experiments {

// Empties `dest` and copies into it every figure of the manifest (from WORK/figures; throws std::runtime_error when
// one is missing), the theory and sims claims files and each reproduction's summary that exist.
void copy_report_files(const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                       const std::vector<Reproduction>& reproductions, const std::string& dest);

// Replaces cfg.out with `built` (through OUT.old, removed afterwards).
void swap_in_report(const std::string& built, const std::string& out);

}  // namespace dmlbench::experiments
