// The report's design of looks, read from one file (experiments/report_design.json): the first look's seeds, the cap,
// the share of the family e-BH's looks plan to select, and the anytime t-test's prior variance g (the minimax g of
// those looks, anytime_prior_variance.hpp), with the record of the simulation that chose them
// (report_design_choice.hpp).
#pragma once

#include <string>

namespace dmlbench::experiments {

struct ReportDesign {
  double alpha = 0.05;                // the claims' alpha the looks were designed at
  int first_look = 0;                 // the first look's seeds of every arm
  int cap = 0;                        // the most seeds an arm gets
  double planned_selected_share = 0;  // e-BH's looks decide at alpha x this share (R planned = share x m)
  double g = 0;                       // the anytime t-test's prior variance: the minimax g of these looks
  std::string file;                   // where it was read, as given
  std::string text;                   // the file's text (a stage hash reads it)
};

// The design in `path` ("alpha" defaults to 0.05). Throws config_error (one line naming the file) for a missing or
// unreadable file, a missing or mistyped key, 2 <= first_look <= cap not holding, alpha or the share outside (0, 1],
// or a g that is not the minimax g of the looks at alpha x share to 0.5% (g is derived, not chosen: a file whose looks
// moved must carry their g).
ReportDesign read_report_design(const std::string& path);

}  // namespace dmlbench::experiments
