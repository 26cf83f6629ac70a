// The decision rule's four worked rows in docs/verdicts.md (one row per outcome, as `reproduce` decides them) cannot go
// stale: each number they print is recomputed here from the committed report's stage store
// (reports/stages/<stage>/summary.json, the claim's first 4 seeds, the report's first look) with the library's own statistics.
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/training_outcome.hpp"
#include "../../support/text_file.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;
const std::string kDoc = "docs/verdicts.md";  // the page that holds the worked rows
const std::string kTableLead = "The rule on four rows of the committed runs";
constexpr std::size_t kSeeds = 4;  // "(their first 4 seeds, the report's first look)"

// The claim's deciding row: variants[0].rows of a default stage whose reproduction reports claims (as the report
// gathers them; a probe, "claims": false, and a tuned stage, "-tuned", hold the same claim ids under other settings).
// Null when no such stage holds it.
json claim_row(const fs::path& store, const std::string& id) {
  const std::string tuned = "-tuned";
  for (const auto& stage : fs::directory_iterator(store)) {
    const std::string name = stage.path().filename().string();
    const fs::path summary = stage.path() / "summary.json";
    if (!fs::exists(summary) ||
        (name.size() > tuned.size() && name.compare(name.size() - tuned.size(), tuned.size(), tuned) == 0))
      continue;
    const json j = json::parse(slurp(summary));
    if (!j.at("config").at("reproduction").value("claims", true)) continue;
    for (const auto& r : j.at("variants").at(0).value("rows", json::array()))
      if (r.value("claim", "") == id) return r;
  }
  return nullptr;
}

// `value` printed as `text` ("+9.1", "3.05", "23"): it rounds to the text's last digit (half a unit of it, and 1e-9
// for the binary value of a decimal).
bool prints_as(double value, const std::string& text) {
  const auto dot = text.find('.');
  const double unit = dot == std::string::npos ? 1.0 : std::pow(10.0, -double(text.size() - dot - 1));
  return std::abs(value - std::stod(text)) <= unit / 2 + 1e-9;
}

std::vector<std::string> numbers_in(const std::string& text) {
  std::vector<std::string> out;
  const std::regex num(R"([+-]?\d+(?:\.\d+)?)");
  for (std::sregex_iterator it(text.begin(), text.end(), num), end; it != end; ++it) out.push_back(it->str());
  return out;
}

// One line per number of one worked row that its claim's first kSeeds seeds do not give.
std::vector<std::string> row_mismatches(const std::string& line, const fs::path& store) {
  static const std::regex row(R"(^\| `([^`]+)` \| ([^|]+) \| ([+-]?[\d.]+) \[([+-]?[\d.]+), ([+-]?[\d.]+)\], )"
                              R"((?:E = ([\d.]+)|delta ([\d.]+)) \| ([a-z-]+)(?: \(([^)]*)\))? \|$)");
  std::smatch m;
  if (!std::regex_match(line, m, row)) return {"unreadable row: " + line};
  const std::string id = m[1];
  const json r = claim_row(store, id);
  if (r.is_null()) return {id + ": in no summary of " + store.string()};
  const json& st = r.at("statistics");
  const auto all = st.at("per_seed").at("differences").get<std::vector<double>>();
  if (all.size() < kSeeds) return {id + ": fewer than " + std::to_string(kSeeds) + " seeds in the store"};
  const std::vector<double> d(all.begin(), all.begin() + kSeeds);
  std::vector<std::string> bad;
  const auto printed = numbers_in(m[2]);
  for (std::size_t k = 0; k < kSeeds; ++k)
    if (printed.size() != kSeeds || !prints_as(d[k], printed[k]))
      bad.push_back(id + ": seed " + std::to_string(k + 1) + "'s difference is " + std::to_string(d[k]));
  ex::AnytimeClaimInput in;
  in.differences = ex::summarize(d);
  in.paper_sign = st.at("paper_sign").get<int>();
  in.delta = st.at("smallest_effect").get<double>();
  const auto dec = ex::anytime_claim_outcome(in);
  if (!prints_as(dec.interval.mean, m[3]) || !prints_as(dec.interval.low, m[4]) || !prints_as(dec.interval.high, m[5]))
    bad.push_back(id + ": the interval is " + std::to_string(dec.interval.mean) + " [" +
                  std::to_string(dec.interval.low) + ", " + std::to_string(dec.interval.high) + "]");
  if (m[6].matched && !prints_as(dec.e_value, m[6]))
    bad.push_back(id + ": E is " + std::to_string(dec.e_value));
  if (m[7].matched && !prints_as(in.delta, m[7]))
    bad.push_back(id + ": delta is " + std::to_string(in.delta));
  if (ex::training_outcome_name(dec.outcome) != m[8].str())
    bad.push_back(id + ": the outcome is " + ex::training_outcome_name(dec.outcome));
  const std::string note = m[9];
  if (note.rfind("Welch's one look: p ", 0) == 0) {  // two significant digits of the one-look Welch p
    std::vector<std::vector<double>> arms;  // the row's two compared arms (a stage may train more)
    for (const char* side : {"treatment", "baseline"}) {
      const auto v = r.at(side).at("seeds").get<std::vector<double>>();
      arms.emplace_back(v.begin(), v.begin() + std::ptrdiff_t(std::min(v.size(), kSeeds)));
    }
    const double p = ex::welch_test(arms[0], arms[1]).p;
    const std::string shown = numbers_in(note.substr(20)).at(0);  // 2 significant digits: 0.013
    if (!prints_as(p, shown)) bad.push_back(id + ": Welch's one-look p is " + std::to_string(p));
  }
  return bad;
}

// Every mismatch of the page's worked rows and of the two multipliers and the first deciding n it quotes.
std::vector<std::string> worked_row_mismatches(const std::string& page, const fs::path& store) {
  const auto at = page.find(kTableLead);
  if (at == std::string::npos) return {kDoc + " has no \"" + kTableLead + "\""};
  std::vector<std::string> bad;
  std::smatch m;
  const std::string lead = page.substr(at, 400);
  if (std::regex_search(lead, m, std::regex(R"(c_(\d+) = ([\d.]+) against Welch's ([\d.]+))"))) {
    if (m[1].str() != std::to_string(kSeeds)) bad.push_back("the multiplier quoted is c_" + m[1].str());
    if (!prints_as(ex::anytime_radius_multiplier(kSeeds), m[2])) bad.push_back("c_4 is not " + m[2].str());
    const boost::math::students_t welch_df(double(kSeeds - 1));  // the paired one-look t at 4 seeds, 3 df
    if (!prints_as(boost::math::quantile(welch_df, 0.975), m[3]))
      bad.push_back("Welch's multiplier is not " + m[3].str());
  } else {
    bad.push_back("no \"c_4 = ... against Welch's ...\" before the table");
  }
  std::istringstream in(page.substr(at));
  std::set<std::string> outcomes;
  std::string line;
  for (int k = 0; std::getline(in, line) && k < 40; ++k) {
    if (line.rfind("| `", 0) != 0) continue;
    for (const auto& b : row_mismatches(line, store)) bad.push_back(b);
    if (std::regex_search(line, m, std::regex(R"(\| ([a-z-]+)(?: \([^)]*\))? \|$)"))) outcomes.insert(m[1]);
  }
  if (outcomes != std::set<std::string>{"verified", "refuted", "not-reproduced", "inconclusive"})
    bad.push_back("the rows do not show the four outcomes once each");
  const std::string tail = page.substr(at, 3000);
  if (std::regex_search(tail, m, std::regex(R"(\(0\.05 / 75\)[\s\S]{0,80}?the first n\s+that can decide is (\d+))"))) {
    std::size_t n = 2;
    while (!std::isfinite(ex::anytime_radius_multiplier(n, 0.05 / 75))) ++n;
    if (std::to_string(n) != m[1].str())
      bad.push_back("the first n that can decide at 0.05 / 75 is " + std::to_string(n));
  } else {
    bad.push_back("no \"(0.05 / 75) ... the first n that can decide is N\" after the table");
  }
  return bad;
}

}  // namespace

TEST_CASE("docs/verdicts.md: the worked rows of the decision rule are the committed runs' first 4 seeds",
          "[report][docs]") {
  const auto bad = worked_row_mismatches(slurp(kSource + "/" + kDoc), kSource + "/reports/stages");
  INFO(kDoc << "'s worked rows against reports/stages:" << joined(bad));
  CHECK(bad.empty());
}

// The negative control: one printed number changed (a seed's difference, an interval end, the outcome) is named.
TEST_CASE("docs/verdicts.md: the worked-rows check names a number the runs do not give", "[report][docs]") {
  const std::string page = slurp(kSource + "/" + kDoc);
  const auto at = page.find("| `", page.find(kTableLead));
  REQUIRE(at != std::string::npos);
  const auto eol = page.find('\n', at);
  const std::string first = page.substr(at, eol - at);
  const auto check = [&](const std::string& changed) {
    std::string r = page;
    r.replace(at, eol - at, changed);
    return worked_row_mismatches(r, kSource + "/reports/stages");
  };
  const auto bar = first.find(" | ", 3) + 3;  // the per-seed differences start here
  CHECK_THAT(joined(check(first.substr(0, bar) + "99.9" + first.substr(first.find(',', bar)))),
             Catch::Contains("seed 1's difference"));
  const auto bracket = first.find(" [") + 2;
  CHECK_THAT(joined(check(first.substr(0, bracket) + "-99.9" + first.substr(first.find(',', bracket)))),
             Catch::Contains("the interval is"));
  const auto outcome = first.rfind("| ", first.size() - 3) + 2;
  const std::string word = first.substr(outcome, first.find_first_of(" |", outcome) - outcome);
  const std::string other = word == "inconclusive" ? "verified" : "inconclusive";
  CHECK_THAT(joined(check(first.substr(0, outcome) + other + first.substr(outcome + word.size()))),
             Catch::Contains("the outcome is"));
}
