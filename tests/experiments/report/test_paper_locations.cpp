// The locations of a paper text and the check of a `where` against its quote, on small synthetic
// texts; each accepted case has a negative control that must be refused (a locator the text lacks, a quote that sits
// in another section than the one cited, a verbatim fragment the text does not hold).
#include "dmlbench/experiments/paper_locations.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace ex = dmlbench::experiments;

namespace {

const char* kPaper = R"(A Paper About Triplets

Abstract
We study the triplet scatter diagram in general.

1 Introduction
The introduction says that hard negatives are hard, and points at Table 1.

2 Method
2.1 Loss
$$L = \alpha + \beta^2 S_{ap}^{new} \quad (1)$$
where alpha is the margin of the loss.
Problem 1: Hard negatives pull the negative even closer to the anchor.
2.2 Results
Ours	80.9	94.3
Table 1: Recall of the method on the test set.
Fig. 2. (a) the left panel (b) the right panel.
The results are in Tables 1 and 3 and in Figure 2: the method wins by a wide margin.
Theorem 1.
Every minimizer of the expected loss collapses every class.

References
[1] Someone. A book.

A APPENDIX: PROOFS
Theorem 1.
Every minimizer of the expected loss collapses every class.
Proof.
By the gap argument the collapsed embedding is optimal.
$$\begin{aligned} x &= \gamma y \end{aligned} \tag{2}$$
B APPENDIX: CLAIMS
Claim 1.
There exists M such that the easy positive embedding wins.
)";

const ex::PaperLocations& paper() {
  static const ex::PaperLocations p = ex::parse_paper_locations(kPaper);
  return p;
}

std::string check(const std::string& where, const std::string& quote) {
  return ex::check_where(paper(), where, quote).error;
}

}  // namespace

TEST_CASE("paper locations: LaTeX, Unicode and ASCII spellings of one formula normalise alike", "[report][scopes]") {
  CHECK(ex::normalise_for_matching("S_{ap}^{new} = (1 + \\beta^2)S_{ap}") ==
        ex::normalise_for_matching("S_ap^new = (1+beta^2) S_ap"));
  CHECK(ex::normalise_for_matching("\\mathbf{f}_a^\\top \\mathbf{f}_p") == ex::normalise_for_matching("f_a^T f_p"));
  CHECK(ex::normalise_for_matching("\\frac{\\exp(S)}{Z} \\quad \\|x\\|") ==
        ex::normalise_for_matching("exp(S) / Z ||x||"));
  CHECK(ex::normalise_for_matching("ΔS_{ap} with γ") == ex::normalise_for_matching("Delta S_ap with gamma"));
  CHECK(ex::normalise_for_matching("<u>we sample</u> it") == ex::normalise_for_matching("we sample it"));
  CHECK(ex::normalise_for_matching("a\\begin{aligned} b \\end{aligned}") == "ab");
  // control: a different formula stays different
  CHECK(ex::normalise_for_matching("(1 - beta^2)") != ex::normalise_for_matching("(1 + beta^3)"));
}

TEST_CASE("paper locations: sections, appendices, abstract, floats, equations and statements are found",
          "[report][scopes]") {
  const auto& p = paper();
  for (const char* k : {"1", "2", "2.1", "2.2"}) CHECK(p.sections.count(k) == 1);
  CHECK(p.sections.count("3") == 0);
  CHECK(p.appendices.count("A") == 1);
  CHECK(p.appendices.count("B") == 1);
  CHECK_FALSE(p.abstract.empty());
  CHECK(p.captions.count("table 1") == 1);
  CHECK(p.captions.count("figure 2") == 1);
  CHECK(p.mentions.count("table 3") == 1);  // "Tables 1 and 3": both numbers are mentions
  REQUIRE(p.equations.count(1) == 1);
  REQUIRE(p.equations.count(2) == 1);
  CHECK(p.sections.at("2.1")[p.equations.at(1)]);
  CHECK(p.appendices.at("A")[p.equations.at(2)]);
  CHECK(p.statements.count("theorem 1") == 1);
  CHECK(p.statements.count("problem 1") == 1);
  CHECK(p.statements.count("claim 1") == 1);
  CHECK(p.proofs.count("theorem 1") == 1);
  CHECK(p.proofs.count("claim 1") == 0);
}

TEST_CASE("paper locations: a quote in the cited section, next to the cited equation or float passes",
          "[report][scopes]") {
  CHECK(check("Sec 1", "[P] Sec 1: \"hard negatives are hard\"").empty());
  CHECK(check("Sec 2", "[P] Sec 2.1: \"where alpha is the margin\"").empty());  // a subsection lies in its section
  CHECK(check("eq 1", "\"L = alpha + beta^2 S_ap^new\" \"where alpha is the margin\"").empty());
  CHECK(check("Table 1", "\"Recall of the method\", \"Ours 80.9\"").empty());
  CHECK(check("Table 1", "\"The introduction says that hard negatives are hard\"").empty());  // a line mentioning it
  CHECK(check("Fig 2b", "\"the method wins by a wide margin\"").empty());
  CHECK(check("Abstract; Sec 2.2, Table 1 (In-Shop, GoogLeNet V2)", "\"triplet scatter diagram\" \"Ours 80.9\"")
            .empty());
  CHECK(check("Sec 2.1 Problem 1, d(p, q) and d_l", "\"pull the negative even closer\"").empty());
  CHECK(check("Thm 1", "\"Every minimizer of the expected loss collapses every class.\"").empty());
  CHECK(check("Thm 1 proof (App. A)", "\"By the gap argument ... is optimal\"").empty());
  CHECK(check("App. B Claim 1", "\"There exists M such that the easy positive embedding wins\"").empty());
  CHECK(check("eq 2", "\"x = gamma y\"").empty());
}

TEST_CASE("paper locations: a locator the text does not contain is one error naming it", "[report][scopes]") {
  CHECK_THAT(check("Sec 3", "\"hard negatives are hard\""), Catch::Contains("no Sec 3 in the text"));
  CHECK_THAT(check("Sec 1, Table 7", "\"hard negatives are hard\""), Catch::Contains("no Table 7"));
  CHECK_THAT(check("eqs 1-3", "\"where alpha is the margin\""), Catch::Contains("no eq 3"));
  CHECK_THAT(check("App. C", "\"the easy positive\""), Catch::Contains("no App. C"));
  CHECK_THAT(check("App. B Claim 2", "\"the easy positive\""), Catch::Contains("no claim 2"));
  CHECK_THAT(check("Thm 2", "\"collapses\""), Catch::Contains("no theorem 2"));
  CHECK_THAT(check("Problem 1 proof", "\"closer\""), Catch::Contains("cannot read 'proof'"));
  CHECK_THAT(check("Fig 2c", "\"the method wins\""), Catch::Contains("has no panel (c)"));
  CHECK_THAT(check("App. A Claim 1", "\"the easy positive\""), Catch::Contains("share no line"));
  CHECK_THAT(check("Sec 2.1 Problem 1x", "\"closer\""), Catch::Contains("cannot read 'x'"));
  CHECK_THAT(check("somewhere in the middle", "\"closer\""), Catch::Contains("cites no section"));
}

TEST_CASE("paper locations: a quote that sits elsewhere than the cited location fails, naming where it is",
          "[report][scopes]") {
  CHECK_THAT(check("Sec 1", "\"where alpha is the margin\""), Catch::Contains("is in Sec 2.1"));
  CHECK_THAT(check("eq 1", "\"By the gap argument\""), Catch::Contains("is in App. A"));
  CHECK_THAT(check("Table 1", "\"By the gap argument\""), Catch::Contains("which where 'Table 1' does not cite"));
  CHECK_THAT(check("Thm 1 proof", "\"Every minimizer of the expected loss\""), Catch::Contains("is in"));
  CHECK_THAT(check("Sec 2.2", "\"Hard negatives pull the negative\""), Catch::Contains("is in Sec 2.1"));
  CHECK_THAT(check("Fig 2", "\"Recall of the method\" \"triplet scatter diagram\""), Catch::Contains("is in Abstract"));
  // the control of each: the same quote with its own location passes
  CHECK(check("Sec 2.1", "\"where alpha is the margin\"").empty());
  CHECK(check("App. A", "\"By the gap argument\"").empty());
}

TEST_CASE("paper locations: a verbatim fragment the text lacks fails, a cleaned one is listed as unlocated",
          "[report][scopes]") {
  const std::string missing = "\"hard negatives are hard\" \"a sentence the paper never wrote\"";
  CHECK_THAT(check("Sec 1", missing), Catch::Contains("is not in the text"));
  const auto cleaned = ex::check_where(paper(), "Sec 1", missing + " (extraction cleaned)");
  CHECK(cleaned.error.empty());
  REQUIRE(cleaned.unlocated.size() == 1);
  CHECK(cleaned.unlocated[0] == "a sentence the paper never wrote");
  CHECK(cleaned.located == 1);
  // a cleaned fragment is still located by its longest run of words, and that must lie where cited
  const std::string garbled = "\"the triplet scatter diagram = in general (x_1)\" (extraction cleaned)";
  CHECK(check("Abstract", garbled).empty());
  CHECK_THAT(check("Sec 1", garbled), Catch::Contains("is in Abstract"));
  CHECK_THAT(check("Sec 1", "\"an odd \"number\" of \"quotes\""), Catch::Contains("odd number"));
}

TEST_CASE("paper locations: a slide deck without numbered headings is numbered from its Contents list",
          "[report][scopes]") {
  const auto p = ex::parse_paper_locations(R"(Slides
Contents

1. Introduction
- 2. Method
 - Manifold structure
 - Dynamic margin

Introduction
- The task is retrieval.
- Manifold structure
 - Classes are merged recursively.
- Dynamic margin
 - The margin grows with the tree level.
)");
  REQUIRE(p.sections.count("2.1") == 1);
  REQUIRE(p.sections.count("2.2") == 1);
  CHECK(p.sections.count("2") == 1);  // implied by its sub-entries where no slide prints its title
  CHECK(ex::check_where(p, "Sec 2.1", "\"Classes are merged recursively\"").error.empty());
  CHECK(ex::check_where(p, "Sec 1", "\"The task is retrieval\"").error.empty());
  CHECK_THAT(ex::check_where(p, "Sec 2.2", "\"Classes are merged recursively\"").error, Catch::Contains("Sec 2.1"));
  CHECK_THAT(ex::check_where(p, "Sec 2.1", "\"The task is retrieval\"").error, Catch::Contains("Sec 1"));
}
