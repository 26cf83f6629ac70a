// Every claim the bench makes has exactly one scope entry (issue 32), and every entry names a claim of its paper and
// layer: the theory checks (theory::all_claims), the [LCC] simulations (sims::collapse_claims) and every reproduction
// file that carries claims, read from this source tree. A new claim without its scope, or a scope left behind by a
// renamed claim, fails here before any report runs.
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/sims/collapse_claims.hpp"
#include "dmlbench/theory/claims.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;

namespace {

struct Claim {
  std::string paper, layer;
};

// id -> (paper, layer) of every claim the code and the reproduction files make.
std::map<std::string, Claim> claims_of_the_bench() {
  std::map<std::string, Claim> all;
  dmlbench::theory::CheckConfig small;  // the ids do not depend on the samples: two per dimension, d = 3
  small.samples_per_dim = 2;
  small.dims = {3};
  for (const auto& c : dmlbench::theory::all_claims(small)) all[c.id] = {c.paper, "theory"};
  for (const auto& c : dmlbench::sims::collapse_claims(20261121)) all[c.id] = {c.paper, "sims"};
  for (const auto& f : fs::directory_iterator(std::string(DMLBENCH_SOURCE_DIR) + "/experiments/reproductions")) {
    if (f.path().extension() != ".json") continue;
    const auto r = ex::read_reproduction(f.path().string(), DMLBENCH_SOURCE_DIR);
    if (!r.claims) continue;
    for (const auto& m : r.metrics)
      if (!m.claim.empty()) all[m.claim] = {r.paper, "experiments"};
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
