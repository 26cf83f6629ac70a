// The papers the bench checks, each registered from its own file as a loss is: its key, title,
// citation and text, the layers that hold its claims, and the theory checks it contributes. The claims table, the
// command line's help and the report's titles read this registry instead of naming papers.
#pragma once

#include "dmlbench/theory/claims.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dmlbench::theory {

struct Paper {
  std::string key;       // how rows, scope files and tests cite it: "XHN" ([XHN eq 19])
  std::string title;     // "Hard negative examples are hard, but useful"
  std::string citation;  // authors, venue, year
  std::string text;      // the plain-text extraction its quotes come from (../shared/papers/<text>); "" if none is had
  std::vector<std::string> layers;  // where its claims are checked: theory, sims, experiments
  int order = 0;                    // its place in every listing (the claims table, the help), lowest first
};

// Registers a paper at static initialisation; returns true so that a file can write
// `const bool registered = register_paper({...});`. A key registered again keeps its first entry (a file linked twice).
// Throws std::invalid_argument for an empty key.
bool register_paper(Paper paper);
// Every registered paper, by order (then key).
std::vector<Paper> registered_papers();
// The registered paper of `key`; throws std::invalid_argument naming the registered keys otherwise.
const Paper& registered_paper(const std::string& key);
// "[XHN], [XHN-A], [XGS], [HTL]": the keys of the papers checked in `layer`, by order.
std::string paper_keys_text(const std::string& layer);
// The registered papers as a Markdown table (key, title, citation, layers, text), by order: `dmlbench papers`.
std::string papers_markdown();

// A paper's theory checks: a function giving its rows for a CheckConfig. Registered beside the paper
// (`register_theory_claims("XGS", xgs_claims)`); all_claims() runs them in the papers' order.
using TheoryClaims = std::function<std::vector<ClaimResult>(const CheckConfig&)>;
bool register_theory_claims(const std::string& paper, TheoryClaims claims);
// The registered theory checks, in their papers' order: (paper key, checks). Throws std::invalid_argument for checks
// registered under a key that no paper has.
std::vector<std::pair<std::string, TheoryClaims>> registered_theory_claims();

}  // namespace dmlbench::theory
