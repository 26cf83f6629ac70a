// The report builder behind `dmlbench report`: stages with config hashes, notebook execution, REPORT.md assembly.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::report {

using json = nlohmann::ordered_json;

// One row of the report's claims table, from a claims.json (theory, sims) or a training summary ([LCC] Table 1).
struct ClaimRow {
  std::string id, paper, where, statement;  // where: "eq 19", "Thm 1", "Table 1"
  std::string measured;                     // what the bench measured: error vs tolerance, or mean +- std
  std::string paper_value;                  // the paper's printed number, where it prints one
  std::string verdict;                      // verified | refuted | erratum | not-reproducible
  std::string corrected_form, witness, note;
};

// Rows of a claims.json written by `theory check` or `sim check`; throws on a malformed file.
std::vector<ClaimRow> claim_rows_from_claims_json(const json& j);
// Rows of a reproduction's summary.json (`dmlbench reproduce`): one per metric of its first variant that names a
// claim, with the verdict the reproduction's test gave (reproduction.hpp: verified, refuted, not-reproducible).
std::vector<ClaimRow> claim_rows_from_reproduction_summary(const json& summary, const std::string& paper,
                                                           const std::string& where);

std::string claims_table_markdown(const std::vector<ClaimRow>& rows);
std::string errata_markdown(const std::vector<ClaimRow>& rows);      // every erratum: witness and corrected form
std::string refutations_markdown(const std::vector<ClaimRow>& rows); // refuted and not-reproducible, with witness/why
json claims_json(const std::vector<ClaimRow>& rows);

// FNV-1a 64-bit of text, as 16 hex digits: the hash each stage's outputs carry.
std::string fnv1a_hex(const std::string& text);
// FNV-1a of the relative paths and contents of every file under the given paths of root (sorted, so stable);
// files whose name starts with one of `skip` are left out.
std::string tree_hash(const std::string& root, const std::vector<std::string>& paths,
                      const std::vector<std::string>& skip = {});

// A figure the notebooks must draw, from notebooks/figures.json.
struct FigureSpec {
  std::string file;                 // PNG name under figures/
  std::string paper;                // the paper figure it reproduces, e.g. "[XHN] Fig 2"
  std::string caption;
  std::vector<std::string> inputs;  // stages whose outputs it reads
  std::vector<std::string> command_filter;  // substrings picking the commands of those stages that made it
};
struct NotebookSpec {
  std::string notebook;             // file name under the notebooks folder
  std::vector<FigureSpec> figures;
};
std::vector<NotebookSpec> read_manifest(const std::string& path);

struct ReportConfig {
  std::string profile = "default";  // quick | default | full
  std::string out;                  // the report folder (replaced only when every stage succeeded)
  std::string work;                 // stage outputs, kept between runs for caching
  std::string notebooks;            // notebooks folder with figures.json
  std::string reproductions;        // experiments/reproductions: one stage per file that has this profile
  std::string jupyter = "/usr/bin/jupyter";
  std::string self;                 // the dmlbench executable that runs the stages
  std::string source_dir;           // the repository: the code each stage runs is hashed from its sources
  std::vector<std::string> only;    // run only these stages (the rest must be cached in work)
  bool force = false;               // rerun every stage even when its hash is unchanged
  std::vector<std::string> sweeps;  // sweep folders (`dmlbench sweep`) whose reproduction's stage collects them
                                    // (`sweep collect --require-complete`) instead of running `reproduce`
};

// Runs the stages and assembles the report; returns the process exit status (0 ok, 1 a stage failed).
int run_report(const ReportConfig& cfg);

}  // namespace dmlbench::report
