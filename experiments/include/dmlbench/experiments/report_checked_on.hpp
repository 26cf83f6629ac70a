// What a verdict covers: the domain and settings its check ran on, and whether the paper's statement covers more than
// that (the counting rule "a verdict says the domain and settings it was checked on", docs/verdicts.md).
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"

#include <string>
#include <vector>

namespace dmlbench::experiments {

struct CheckedOn {
  std::string domain;                 // the data or points the check ran on
  std::vector<std::string> settings;  // the settings the bench fixed otherwise than the paper (its deviations' labels)
  bool paper_covers_more = false;     // the paper's statement covers data, settings or points this check did not
  std::string text;                   // one sentence: the domain, the settings, and what the verdict does not cover
};

// From the row alone: a training row's domain is its "data: ..." deviation (up to " instead of"), else the paper's
// data; its settings the labels of its other deviations ("network", "schedule", ...). A training row with any
// deviation was checked on the bench's settings, not the paper's: the paper covers more. A theory or sims row is
// checked on the points its evidence names: a verified universal statement covers more than its sample, a refuted
// one is settled by its witness.
CheckedOn checked_on(const ClaimRow& row);

}  // namespace dmlbench::experiments
