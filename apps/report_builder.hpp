// The report builder behind `dmlbench report`: runs the planned stages (experiments/report_plan.hpp) that are not
// current, executes the notebooks, and assembles REPORT.md (experiments/report_markdown.hpp).
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_claims_table.hpp"
#include "dmlbench/experiments/report_config.hpp"
#include "dmlbench/experiments/content_hash.hpp"
#include "dmlbench/experiments/report_manifest.hpp"

#include <nlohmann/json.hpp>

namespace dmlbench::report {

using json = nlohmann::ordered_json;

// The report's library (experiments/report_*.hpp) under the names the report has always used.
using experiments::ClaimRow;
using experiments::claim_rows_from_claims_json;
using experiments::claim_rows_from_reproduction_summary;
using experiments::claims_json;
using experiments::claims_table_markdown;
using experiments::errata_markdown;
using experiments::FigureSpec;
using experiments::fnv1a_hex;
using experiments::NotebookSpec;
using experiments::read_manifest;
using experiments::refutations_markdown;
using experiments::ReportConfig;
using experiments::tree_hash;

// Runs the stages and assembles the report; returns the process exit status (0 ok, 1 a stage failed).
int run_report(const ReportConfig& cfg);

}  // namespace dmlbench::report
