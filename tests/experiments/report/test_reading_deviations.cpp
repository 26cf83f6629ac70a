// A row whose own words say that it judges the bench's reading (a learning rate, a scale, a set the
// paper does not print) names that reading in its scope entry's deviations. The theory rows' statements and notes
// and the reproductions' claim statements are read against the committed scope files; a hand-made row without
// deviations is the negative control.
#include "dmlbench/experiments/report_claim_scope.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/theory/claims.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
namespace th = dmlbench::theory;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;

// Words by which a row says that it judges the bench's reading rather than the printed words.
bool says_bench_reading(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* phrase : {"the bench's reading", "the bench reads", "does not print", "do not print",
                             "does not state", "states none", "prints no"})
    if (text.find(phrase) != std::string::npos) return true;
  return false;
}

struct RowText {
  std::string id, text;
};

// The rows that say so and whose scope entry has no deviation: "id: why".
std::vector<std::string> unnamed_readings(const std::vector<RowText>& rows,
                                          const std::map<std::string, ex::ClaimScope>& scopes) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    if (!says_bench_reading(r.text)) continue;
    const auto it = scopes.find(r.id);
    if (it == scopes.end() || it->second.deviations.empty()) out.push_back(r.id);
  }
  return out;
}

}  // namespace

TEST_CASE("a row that says it judges the bench's reading names it in its deviations",
          "[experiments][scopes]") {
  const auto scopes = ex::read_claim_scopes(kSource);
  std::vector<RowText> rows;
  th::CheckConfig tiny;  // the rows' words do not depend on the samples: a few suffice
  tiny.samples_per_dim = 4;
  tiny.dims = {3};
  for (const auto& r : th::all_claims(tiny)) rows.push_back({r.id, r.statement + " " + r.note});
  for (const auto& e : fs::directory_iterator(kSource + "/experiments/reproductions")) {
    const auto rep = ex::read_reproduction(e.path().string(), kSource);
    for (const auto& m : rep.metrics)
      if (!m.claim.empty()) rows.push_back({m.claim, m.statement});
  }
  // the premise: rows of both layers say it ([XHN] App. E's step among them)
  std::size_t saying = 0;
  for (const auto& r : rows) saying += says_bench_reading(r.text);
  REQUIRE(saying >= 2);
  CHECK(unnamed_readings(rows, scopes).empty());
  // negative control: the first row that says it, with its deviations emptied, is named
  std::string saying_row;
  for (const auto& r : rows)
    if (saying_row.empty() && says_bench_reading(r.text)) saying_row = r.id;
  auto emptied = scopes;
  emptied.at(saying_row).deviations.clear();
  CHECK(unnamed_readings(rows, emptied) == std::vector<std::string>{saying_row});
  CHECK(unnamed_readings({{"x", "a reading the paper does not print"}}, scopes) == std::vector<std::string>{"x"});
  CHECK(unnamed_readings({{"x", "as printed"}}, scopes).empty());
}
