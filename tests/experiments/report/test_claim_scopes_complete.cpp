// Every claim the bench makes has exactly one scope entry, and every entry names a claim of its paper and
// layer: the theory checks (theory::all_claims), the [LCC] simulations (sims::collapse_claims) and every reproduction
// file that carries claims, read from this source tree. A new claim without its scope, or a scope left behind by a
// renamed claim, fails here before any report runs. Where the paper texts are there (DMLBENCH_PAPERS_DIR),
// every row's `where` is checked against its quote in its paper's text.
#include "dmlbench/experiments/paper_locations.hpp"
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/sims/collapse_claims.hpp"
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;

namespace {

struct Claim {
  std::string paper, layer;
  std::string where;   // the section, table or figure the row cites
  std::string source;  // where that `where` is written
};

// id -> (paper, layer, where) of every claim the code and the reproduction files make.
std::map<std::string, Claim> claims_of_the_bench() {
  std::map<std::string, Claim> all;
  dmlbench::theory::CheckConfig small;  // the ids do not depend on the samples: two per dimension, d = 3
  small.samples_per_dim = 2;
  small.dims = {3};
  for (const auto& c : dmlbench::theory::all_claims(small))
    all[c.id] = {c.paper, "theory", c.equation, "theory/src (theory::all_claims)"};
  for (const auto& c : dmlbench::sims::collapse_claims(20261121))
    all[c.id] = {c.paper, "sims", c.equation, "sims/src (sims::collapse_claims)"};
  for (const auto& [id, s] : ex::read_claim_scopes(DMLBENCH_SOURCE_DIR))  // a sentence judged from its parts
    if (s.sentence) all[id] = {s.paper, s.layer, s.sentence->where, s.file + " (judged_by)"};
  for (const auto& f : fs::directory_iterator(std::string(DMLBENCH_SOURCE_DIR) + "/experiments/reproductions")) {
    if (f.path().extension() != ".json") continue;
    const auto r = ex::read_reproduction(f.path().string(), DMLBENCH_SOURCE_DIR);
    if (!r.claims) continue;
    for (const auto& m : r.metrics)
      if (!m.claim.empty())
        all[m.claim] = {r.paper, "experiments", m.where.empty() ? r.where : m.where,
                        "experiments/reproductions/" + f.path().filename().string()};
  }
  return all;
}

}  // namespace

TEST_CASE("every claim of the bench has one scope entry of its paper and layer, and every entry a claim", "[scopes]") {
  const auto claims = claims_of_the_bench();
  const auto scopes = ex::read_claim_scopes(DMLBENCH_SOURCE_DIR);
  REQUIRE(claims.size() > 100);  // the theory, sims and training claims were all found
  std::string missing, wrong, orphans;
  for (const auto& [id, c] : claims) {
    const auto it = scopes.find(id);
    if (it == scopes.end())
      missing += "\n  " + id + " (" + c.layer + "/scopes/" + c.paper + ".json)";
    else if (it->second.paper != c.paper || it->second.layer != c.layer)
      wrong += "\n  " + id + " is " + c.layer + " [" + c.paper + "], its entry is in " + it->second.file;
  }
  for (const auto& [id, s] : scopes)
    if (!claims.count(id)) orphans += "\n  " + id + " (" + s.file + ")";
  INFO("claims without a scope entry:" << missing);
  INFO("entries in the wrong file:" << wrong);
  INFO("entries naming no claim:" << orphans);
  CHECK(missing.empty());
  CHECK(wrong.empty());
  CHECK(orphans.empty());
}

#ifdef DMLBENCH_PAPERS_DIR
namespace {

std::string paper_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// Each row's `where` names locations its paper's text holds, and the quote's fragments lie there
// (experiments/include/dmlbench/experiments/paper_locations.hpp says what each kind of locator accepts). The text of
// each paper key is its registry entry's (theory/papers/). Registered only where the texts are (tests/CMakeLists.txt).
TEST_CASE("the where of every row is in its paper text and its quote lies where it says", "[scopes]") {
  const std::string dir = DMLBENCH_PAPERS_DIR;
  std::map<std::string, ex::PaperLocations> papers;
  for (const auto& p : dmlbench::theory::registered_papers())
    if (!p.text.empty()) papers.emplace(p.key, ex::parse_paper_locations(paper_text(dir + "/" + p.text)));
  const auto claims = claims_of_the_bench();
  const auto scopes = ex::read_claim_scopes(DMLBENCH_SOURCE_DIR);
  std::string wrong, nothing_located;
  std::size_t checked = 0;
  for (const auto& [id, c] : claims) {
    const auto s = scopes.find(id);
    if (s == scopes.end()) continue;  // named by the test above
    const std::string& text = dmlbench::theory::registered_paper(c.paper).text;
    if (text.empty()) {  // no text is had (e.g. [WU]): nothing to locate
      if (s->second.scope != "reconstructed")
        wrong += "\n  " + c.source + ": row " + id + ": paper " + c.paper + " has no text, so its row must be "
                 "reconstructed, not " + s->second.scope;
      continue;
    }
    const auto p = papers.find(c.paper);
    const auto r = ex::check_where(p->second, c.where, s->second.quote);
    ++checked;
    if (!r.error.empty())
      wrong += "\n  " + c.source + ": row " + id + " (quote: " + s->second.file + "; text: " + text +
               "): " + r.error;
    else if (r.located == 0)
      nothing_located += "\n  " + id + " (" + s->second.file + ")";
  }
  REQUIRE(checked > 100);
  // not a failure: quotes marked "(extraction cleaned)" whose every fragment is garbled math in the text
  if (!nothing_located.empty()) WARN("rows whose cleaned quote has no fragment the text holds:" << nothing_located);
  INFO("rows whose where is not where their quote is:" << wrong);
  CHECK(wrong.empty());
}
#endif
