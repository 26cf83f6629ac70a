// Where a report comes from: the source tree's revision when it runs, and the rule that the committed
// reports/ is written only from a clean tree unless asked explicitly.
#pragma once

#include "dmlbench/experiments/report_config.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dmlbench::experiments {

// `git describe --always --dirty --abbrev=12` of the tree at source_dir now (index refreshed first, so a file whose
// timestamp changed but not its content is not "dirty"), except that a change under `unwatched` never makes it dirty:
// the report passes its stage store (stage_store_dir: reports/stages for the committed report), which it writes as each
// stage finishes. `unwatched` is absolute or relative to the working directory; empty, or outside the tree, excludes
// nothing. "unknown" where git or the repository is missing.
std::string tree_revision(const std::string& source_dir, const std::string& unwatched = "");
// The machine a stage runs on, for its record (a verdict must not move with the CPU, and a report may be made
// of stages run on several machines): the CPU's model name, its logical cores, the widest vector ISA it runs (avx512f,
// avx2 or neither, from /proc/cpuinfo's flags) and OPENBLAS_CORETYPE, which picks OpenBLAS's kernels ("" when unset).
nlohmann::ordered_json machine_record();
// One line of it: "MODEL, N cores, ISA, OPENBLAS_CORETYPE=X"; "not recorded" for a record without one.
std::string machine_text(const nlohmann::ordered_json& machine);
// True when the revision cannot be regenerated exactly: "-dirty" or "unknown".
bool revision_is_unreproducible(const std::string& revision);
// True when cfg.out is the committed report folder, SOURCE/reports.
bool writes_committed_report(const ReportConfig& cfg);
// Throws std::runtime_error when cfg writes the committed report from an unreproducible revision without
// cfg.allow_dirty, naming the revision and the way out.
void check_report_provenance(const ReportConfig& cfg, const std::string& revision);
// The report header's line on an unreproducible revision ("" for a clean one).
std::string provenance_warning_markdown(const std::string& revision);

}  // namespace dmlbench::experiments
