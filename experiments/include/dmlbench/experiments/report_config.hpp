// The settings of one `dmlbench report` run: profile, folders, the executable that runs the stages, the selection.
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

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
  bool explain = false;             // run nothing: say for each stage whether it is current and, if not, why
  bool allow_dirty = false;         // write the committed reports/ from a tree with uncommitted changes (the report
                                    // then says so)
  // bh | holm: the training claims' family rule, e-BH (false discovery rate; the default: its
  // seed spending decides more claims for fewer seeds, bench/README.md) or Bonferroni on e-values (family-wise error)
  std::string multiplicity = "bh";
  double store_min_seconds = 60;    // a finished stage that ran at least this long is kept in OUT/stages
                                    // (report_stage_store.hpp)
  // bench/kernel_recurrence.py's record of this report's verdicts under other kernels, shown beside
  // each row while it is current (report_kernel_recurrence.hpp); empty: none
  std::string kernel_recurrence;
  std::vector<std::string> sweeps;  // sweep folders (`dmlbench sweep`) whose reproduction's stage collects them
                                    // (`sweep collect --require-complete`) instead of running `reproduce`
};

}  // namespace dmlbench::experiments
