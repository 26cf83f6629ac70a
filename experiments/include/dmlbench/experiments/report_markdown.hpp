// REPORT.md: summary, claims, errata, refutations, each reproduction, what is not run here, figures and stages.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_tuned_verdicts.hpp"
#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/report_kernel_recurrence.hpp"
#include "dmlbench/experiments/report_manifest.hpp"
#include "dmlbench/experiments/report_plan.hpp"
#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// What the stages of one report run left: each stage's record (stage.json), the stages found unchanged in the work
// folder and those restored from the report's stage store (report_stage_store.hpp).
struct StageRecords {
  std::map<std::string, nlohmann::ordered_json> records;
  std::set<std::string> cached, restored;
};

// Everything REPORT.md is made of.
struct ReportContents {
  const ReportConfig& cfg;
  std::string git_revision, generated_at;
  const std::vector<Stage>& stages;
  const StageRecords& done;
  const ReportClaims& claims;
  const std::vector<Reproduction>& reproductions;  // those of the profile, in stage order
  const std::vector<NotebookSpec>& manifest;
  nlohmann::ordered_json previous_claims = nullptr;  // the report folder's claims.json before it is replaced, if any
  const TunedVerdicts* tuned = nullptr;              // the tuned variants' verdicts, if any
  const KernelRecurrence* kernels = nullptr;         // the verdicts under other kernels, if any
};

std::string report_markdown(const ReportContents& c);

// The parts of report_markdown.
std::string report_header_markdown(const ReportConfig& cfg, const std::string& git_revision,
                                   const std::string& generated_at, const std::vector<ClaimRow>& rows);
std::string reproduction_section_markdown(const Reproduction& r, const std::map<std::string, nlohmann::ordered_json>& summaries,
                                          const std::string& source_dir);
std::string not_run_here_markdown(const ReportConfig& cfg);
std::string figures_markdown(const std::vector<NotebookSpec>& manifest,
                             const std::map<std::string, nlohmann::ordered_json>& records, const ReportConfig& cfg);
std::string stages_table_markdown(const std::vector<Stage>& stages, const StageRecords& done, const ReportConfig& cfg);

// The report's claims.json: provenance, the sources of the rows and every row.
nlohmann::ordered_json report_claims_json(const ReportConfig& cfg, const std::string& git_revision,
                                          const ReportClaims& claims, const TunedVerdicts* tuned = nullptr);

}  // namespace dmlbench::experiments
