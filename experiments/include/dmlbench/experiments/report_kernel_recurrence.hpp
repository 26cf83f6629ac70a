// Whether each decided training verdict recurs on other numerics of the same machine. The record is
// bench/kernel_recurrence.py's JSON: under each kernel setting (OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA) some of the
// report's training stages trained again, every training claim decided again over the whole family, and each claim's
// verdict per setting.
// The report shows it beside each row only while the record belongs to the report: the same config hash for every
// stage it names, and the same baseline verdict for every training row.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::experiments {

struct KernelRecurrence {
  std::string file;                // as the report names it (relative to the repository)
  nlohmann::ordered_json record;   // bench/kernel_recurrence.py's JSON
  std::vector<std::string> stale;  // why it is not this report's ("stage X: config hash A, here B"); empty: current
  bool current() const { return stale.empty(); }
};

// Reads and checks a record against the report's stages (their hashes). Throws std::runtime_error "PATH: why" for a
// file that is not such a record (no "baseline", a setting without "verdicts", a verdict that is not a word).
KernelRecurrence read_kernel_recurrence(const std::string& path, const std::string& shown_as,
                                        const std::vector<Stage>& stages);

// For a current record: every training row of the family gets statistics.recurrence.kernels ({"settings": {setting:
// verdict}, "rerun_under": the settings that trained its stage again, "flipped", "machine_sensitive"}) and its
// measured text says it; a row whose verdict under a setting is
// another decided direction is "flipped", one that falls to or rises from undecided (or moves to not-reproduced)
// "machine_sensitive". A row whose verdict differs from the record's baseline makes the record stale (it judged other
// evidence), and nothing is attached. Returns the rows marked machine-sensitive.
std::vector<std::string> attach_kernel_recurrence(std::vector<ClaimRow>& rows, KernelRecurrence& k);

// Whether attach_kernel_recurrence found the row's verdict moved (machine-sensitive) or flipped under some setting:
// the claims table marks it, claims.json says it, and the report's section lists it.
bool moved_on_other_kernels(const ClaimRow& r);

// REPORT.md's section: the settings, the machine, the stages rerun, and every verdict that moved ("" without a record).
std::string kernel_recurrence_markdown(const KernelRecurrence& k, const std::vector<ClaimRow>& rows);

}  // namespace dmlbench::experiments
