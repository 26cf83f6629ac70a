// The figures the report's notebooks must draw (notebooks/figures.json): one entry per notebook, its figures.
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

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
  // the runs' large files it reads ("run_files_read": globs relative to the work folder, e.g.
  // "omniglot-trip/*/seed1/embeddings/test*"): the report's stage store keeps these and no other run file over 64 KiB
  std::vector<std::string> run_files_read;
};

// Every notebook's run_files_read.
std::vector<std::string> run_files_read(const std::vector<NotebookSpec>& manifest);

// Throws std::runtime_error for a malformed manifest, a figure that is no plain .png name or one listed twice, or a
// run_files_read that is no glob of one stage's run files (STAGE/ARM/seedN/FILE, the stage without wildcards, no "..").
std::vector<NotebookSpec> read_manifest(const std::string& path);

}  // namespace dmlbench::experiments
