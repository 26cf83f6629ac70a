// Each training claim of the report read at its own stop: in a stage that spends seeds (report_seed_spending.hpp),
// the first seed count from the first look on at which the claim's own test decides it or finds the cap out of reach
// at the looks' level (claim_stop), never the seeds a claim sharing its arms asked for later. Those later seeds stay
// in the row as a labelled re-read that decides nothing.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Every testable training row of a stage with seed spending (its summary in `summaries` under the stage's name, the
// row's id one of the summary's claims) read at its stop (claim_statistics_at). Rows of stages without spending are
// left as they are. Returns the rows read at fewer seeds than their arms hold.
std::size_t read_claims_at_their_stops(std::vector<ClaimRow>& rows,
                                       const std::map<std::string, nlohmann::ordered_json>& summaries,
                                       const std::vector<Stage>& stages);

}  // namespace dmlbench::experiments
