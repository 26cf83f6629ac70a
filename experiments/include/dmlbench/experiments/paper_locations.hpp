// A row's `where` checked against its quote, on the plain-text papers in ../shared/papers/.
//
// A paper text is parsed into locations, each a set of lines:
//   Sec N[.M..]   a numbered heading ("6.1 VERIFICATION ...", "5.2.3 Results") to the next heading of its level or
//                 above, subsections included; a text without numbered headings (the [HTL] slides) is numbered from
//                 its "Contents" list: a plain line equal to an entry "N. Title" opens Sec N (every repeat of the
//                 slide title too), a bulleted line ("- Title", "• Title") equal to its k-th sub-entry opens Sec N.k.
//   App. X        an appendix heading "X APPENDIX: ..." or "X: Title" to the next appendix heading or the end.
//   Abstract      the "Abstract" heading's section, or a paragraph that opens with "Abstract.".
//   Table N, Fig N  its caption ("Table 3: ...", "Fig. 1.", "Figure 5:") with the table's lines next to it, the
//                 innermost section holding the caption, and each line that mentions it ("Tables 2 and 3",
//                 "Figure 4") with the innermost section holding that line: an extracted float drifts away from the
//                 text that discusses it, so "where the quote is" is the caption or the section that talks about it.
//                 A panel ("Fig 5b") must be named "(b)" in a caption that has panels.
//   eq N          the line printing its number ("\quad (19)$$", "\tag{1}", "(5) |") and the innermost section
//                 holding it: the text next to an equation is where it is stated and derived.
//   Thm N         each "Theorem N." block, statement and proof, to the next numbered statement or heading (a
//                 theorem restated in an appendix has both blocks); "Thm N proof" its proofs only ("Proof." on).
//   Claim N, Problem N, Lemma N, Definition N   the same, from a line that opens with "Claim 1." / "Problem 1:".
//
// A `where` is items split at ';' and ',' (outside parentheses). An item that opens with a locator is a chain of
// locators read as a refinement ("App. B Claim 2" = Claim 2 within App. B; "Thm 1 proof (App. A)": a parenthesis
// that reads as locators refines too); an item that opens with anything else, and a parenthesis that does not read
// as locators, is a description ("d(p, q) and d_l", "(In-Shop, GoogLeNet V2)") and cites nothing. Ranges ("eqs 9-10",
// "Tables 3-4") cite each member, and each member must exist. The row's cited region is the union of its items.
//
// The quote's fragments are its double-quoted strings, each split at "..." / "…" gaps into pieces. Text and pieces
// are compared after normalise_for_matching (LaTeX commands to their names or dropped, Greek letters spelled out,
// lower case, letters and digits only), so "S_{ap}^{new} = (1 + \beta^2)S_{ap}" matches "S_ap^new = (1+beta^2) S_ap".
// A piece is located where it occurs; it passes where one of its occurrences starts and ends on cited lines.
//
// Exemptions, and why: a quote marked as not verbatim (kQuoteNotVerbatimMarks: "extraction cleaned", "lost in
// extraction", "... cleaned)", "reconstructed") may have pieces the text does not hold verbatim (equations the
// extraction garbled, a paragraph split by a page break). Such a piece is located by its longest sub-piece between
// math signs of at least kLooseMinChars normalised characters; where none is found it is listed as unlocated, and
// it does not fail the row. A piece of a verbatim quote that is not found fails the row: that is a finding about
// the quote.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// One flag per line of a paper text: the lines a location covers.
using LineSet = std::vector<bool>;

struct PaperLocations {
  std::vector<std::string> lines;
  std::map<std::string, LineSet> sections;    // "6.1", "3" (subsections included)
  std::map<std::string, LineSet> appendices;  // "B"
  LineSet abstract;                           // empty: the text has no abstract
  std::map<std::string, std::vector<std::size_t>> captions;  // "table 3", "figure 5" -> caption lines
  std::map<std::string, std::vector<std::size_t>> mentions;  // "table 3" -> lines that mention it
  std::map<int, std::size_t> equations;                      // printed number -> the line that prints it
  std::map<std::string, LineSet> statements;  // "theorem 1", "claim 2", "problem 1" -> its blocks
  std::map<std::string, LineSet> proofs;      // "theorem 1" -> its proofs
  std::vector<LineSet> section_spans;         // every section, appendix and abstract span (for "the innermost
  std::vector<std::string> section_labels;    // section"), and its label: "Sec 5.2.3", "App. B", "Abstract"
  std::string normalised;                     // normalise_for_matching of each line, concatenated
  std::vector<std::size_t> normalised_line;   // the line of each character of `normalised`
};

// Letters and digits only, lower case: LaTeX commands replaced by their names (\gamma -> gamma, \top -> t) or dropped
// (\mathbf, \frac, \left, \quad, \begin{aligned}), Greek letters spelled out (β -> beta), every other sign dropped.
std::string normalise_for_matching(const std::string& s);

PaperLocations parse_paper_locations(const std::string& text);

// The quote's double-quoted fragments, each as its pieces between "..." gaps. Throws std::runtime_error for an odd
// number of '"'.
std::vector<std::vector<std::string>> quote_fragments(const std::string& quote);

// True where the quote marks itself as not verbatim (one of kQuoteNotVerbatimMarks).
bool quote_is_not_verbatim(const std::string& quote);

// The lines one `where` cites. Returns "" and sets `cited`, or a one-line reason naming the locator that the text does
// not contain (or the `where` text that cannot be read).
std::string cited_lines(const PaperLocations& paper, const std::string& where, LineSet& cited);

struct WhereCheck {
  std::string error;                   // "": every locator exists and every located piece lies in a cited one
  std::vector<std::string> unlocated;  // pieces of a not-verbatim quote found nowhere (not an error; listed)
  std::size_t located = 0;             // pieces found on cited lines
};

// The check of one row, as the header comment describes.
WhereCheck check_where(const PaperLocations& paper, const std::string& where, const std::string& quote);

}  // namespace dmlbench::experiments
