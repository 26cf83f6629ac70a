// The counting rule "one sentence of a paper is judged once": where the bench checks a sentence in parts (by group
// size, by set), the parts are extensions and one row judges the sentence, its verdict read from the parts' by the
// rule its scope entry states: "all" (a statement about every part: verified when every part is, refuted when any
// part is), "most" (verified when more than half of the parts are, refuted when at least half are, so that no more
// than half could hold). Any other mix is inconclusive. The parts' own decisions carry the error control.
#pragma once

#include "dmlbench/experiments/report_claim_rows.hpp"

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// The verdict of a sentence from its parts' verdicts by `rule` (all | most). Throws std::invalid_argument for another
// rule or no parts.
std::string sentence_verdict(const std::vector<std::string>& part_verdicts, const std::string& rule);

// A row per scope entry with "judged_by" whose parts are rows of this report (none of them: no row, as in a report
// without their stage), after its parts: verdict by sentence_verdict, "measured" listing each part's verdict, the
// entry attached as its scope. Returns the ids added. Throws std::runtime_error naming the sentence for a part that is
// no row while another is, a part of another paper, or a part whose scope is not an extension.
std::vector<std::string> add_sentence_rows(std::vector<ClaimRow>& rows, const std::map<std::string, ClaimScope>& scopes);

}  // namespace dmlbench::experiments
