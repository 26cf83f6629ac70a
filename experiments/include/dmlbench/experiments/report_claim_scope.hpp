// What a claim row judges against its paper's text: its scope (as printed, reconstructed, or the bench's
// own extension), the quote it judges, what the check fixes that the paper leaves free, where the run differs from
// the paper's, and the row's audit. Read from <layer>/scopes/<PAPER>.json (theory, sims, experiments).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// A statement's premise (what the paper's sentence takes as given), measured by the bench: either another row's verdict
// ("row" and the verdict that reaches it, "reached_when"), or a side of this training row ("side": treatment or
// baseline) whose per-seed mean must be at least "at_least" (the metric's own scale). A row whose premise is not
// reached is judged "premise-not-reached" (report_claim_premise.hpp), never refuted or verified.
struct ClaimPremise {
  std::string text;  // the premise in words, with the paper's own number where it prints one
  std::string row, reached_when;
  std::string side;
  double at_least = 0;
};

// One sentence of a paper that the bench checks in parts (by group size, by set): the entry of the row that judges the
// sentence itself ("judged_by"), whose verdict follows from its parts' by a stated rule (report_sentence_rows.hpp);
// the parts are extensions.
struct ClaimSentence {
  std::vector<std::string> rows;  // the parts' claim ids
  std::string rule;               // "all": every part; "most": more than half of the parts
  std::string where, statement;
};

struct ClaimScope {
  std::string id, paper, layer;  // layer: theory | sims | experiments (the folder its file sits in)
  std::string scope;             // as-printed | reconstructed | extension
  std::string quote;             // the paper's words or equation the row judges, with section, table or figure
  std::string rebuilt_from;      // reconstructed: from what the lost printed form was rebuilt
  std::vector<std::string> assumptions;  // what the check fixes that the paper leaves free or unstated
  std::vector<std::string> deviations;   // where the run or check differs from the paper's
  // the audit: what the code checks, where it differs from the printed statement, how the statement fares with what
  // the check fixes left free, what changed or should change
  std::string checks, differs, free, action;
  std::string file;  // the scope file, relative to the source tree
  std::optional<ClaimPremise> premise;
  std::optional<ClaimSentence> sentence;
};

// as-printed, reconstructed, variant (the bench's version of a printed method, judged beside the cell the paper's own
// arm judges), extension
const std::vector<std::string>& claim_scope_kinds();
// True for the rows that judge a paper's own statement (as-printed, reconstructed): only they count for or against it.
bool judges_the_paper(const std::string& scope);

// The entries of one scope file; `display` names it in errors. Throws std::runtime_error "FILE: row ID: why" for an
// unknown key, a missing or empty field, a scope outside claim_scope_kinds(), reconstructed without rebuilt_from, or
// a paper or layer other than the file's.
std::vector<ClaimScope> parse_claim_scope_file(const std::string& text, const std::string& display);
// Every *.json under SOURCE/{theory,sims,experiments}/scopes/, by claim id. Throws for a malformed file and for an id
// given twice (naming both files).
std::map<std::string, ClaimScope> read_claim_scopes(const std::string& source_dir);

}  // namespace dmlbench::experiments
