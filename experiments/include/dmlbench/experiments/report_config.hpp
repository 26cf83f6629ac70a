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
  bool allow_dirty = false;         // write the committed reports/ from a tree with uncommitted changes (the report
                                    // then says so)
  std::string multiplicity = "holm";  // holm | bh: the adjustment of the training claims' p (multiplicity.hpp)
  std::vector<std::string> sweeps;  // sweep folders (`dmlbench sweep`) whose reproduction's stage collects them
                                    // (`sweep collect --require-complete`) instead of running `reproduce`
};

}  // namespace dmlbench::experiments
