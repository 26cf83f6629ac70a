// The counting rule for a statement whose premise the bench's run does not reach (a baseline the paper says overfits
// that does not, a loss that cannot meet its own margin): the row is judged "premise-not-reached", with the premise in
// words and as measured, never refuted or verified; its own reading without the premise stays in its note.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"

#include <string>
#include <vector>

namespace dmlbench::experiments {

// Whether a row's premise (its scope entry's, report_claim_scope.hpp) is reached, and what was measured: another
// row's verdict (looked up in `rows`, then in `others`), or a side's per-seed mean against the least the premise asks.
// Throws std::runtime_error naming the row for a premise row in neither, or a side the row's statistics do not hold.
struct PremiseReading {
  bool reached = true;
  std::string measured;
};
PremiseReading read_premise(const ClaimRow& row, const std::vector<ClaimRow>& rows,
                            const std::vector<ClaimRow>& others = {});

// Every row with a premise: where it is not reached, the verdict becomes "premise-not-reached" and the note says the
// premise, the measurement and the verdict the row had without it; where it is, the note says so. Returns the ids
// marked. Rows without a premise are left as they are. A premise row is looked up in `rows`, then in `others` (read,
// never marked: the report's rows, for the tuned twins).
std::vector<std::string> mark_premise_not_reached(std::vector<ClaimRow>& rows,
                                                  const std::vector<ClaimRow>& others = {});

}  // namespace dmlbench::experiments
