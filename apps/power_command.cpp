// `dmlbench power --summary S [--family M]`: per claim of a reproduction's summary.json, the seeds whose anytime
// interval at level alpha / M decides the paper's difference (else the stated smallest effect) with 80% probability,
// from the per-seed differences' spread (power at the deciding level).
#include "commands.hpp"

#include "dmlbench/experiments/anytime_power.hpp"
#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_io.hpp"

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

std::string fixed2(double x) {
  std::ostringstream t;
  t << std::fixed << std::setprecision(2) << x;
  return t.str();
}

// One claim's line: claim, seeds now, the effect and where it comes from, the per-seed differences' sd, the seeds
// whose anytime interval at the level decides that effect with 80% probability (anytime_power.hpp).
std::string power_line(const std::string& claim, const json& s, std::size_t family) {
  const double effect = s.at("paper_difference").is_number() ? std::abs(s["paper_difference"].get<double>())
                                                             : s.at("smallest_effect").get<double>();
  const double level = s.value("alpha", 0.05) / double(family);
  const json& p = s.at("per_seed");
  const std::size_t n = p.at("n").get<std::size_t>();
  std::ostringstream o;
  o << std::left << std::setw(48) << claim << std::setw(6) << n << std::fixed << std::setprecision(2) << std::setw(8)
    << effect << std::setw(8) << (s["paper_difference"].is_number() ? "paper" : "delta") << std::setw(10)
    << (p["sd"].is_number() ? fixed2(p["sd"].get<double>()) : std::string("-"));
  if (n < 2) return o.str() + "n/a (1 seed: no spread to measure)";
  const auto need = ex::anytime_seeds_needed(effect, p["sd"].get<double>(), level, ex::claim_power, ex::claim_seeds_cap);
  switch (need.status) {
    case ex::SeedsNeeded::found: o << need.n; break;
    case ex::SeedsNeeded::beyond_cap: o << "more than " << need.n; break;
    case ex::SeedsNeeded::no_spread: o << "n/a (no spread)"; break;
    case ex::SeedsNeeded::no_effect: o << "n/a (no effect)"; break;
  }
  return o.str();
}

}  // namespace

void add_power_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("power", "per claim of a reproduction's summary.json: the seeds whose anytime-valid "
                                          "interval decides the paper's difference (else the stated smallest effect) "
                                          "with 80% probability at level alpha / family, from the per-seed spread");
  auto summary = std::make_shared<std::string>();
  auto family = std::make_shared<std::size_t>(1);
  cmd->add_option("--summary", *summary, "summary.json of `dmlbench reproduce` (claim rows with statistics)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--family", *family, "the number of claims decided together (the report's family; default 1: the "
                                       "claim alone)")
      ->check(CLI::Range(std::size_t(1), std::size_t(1000000)));
  cmd->callback([summary, family] {
    const json j = ex::read_json_file(*summary);
    if (!j.contains("variants") || !j["variants"].is_array())
      throw std::runtime_error(*summary + ": no \"variants\" (not a summary.json of dmlbench reproduce)");
    std::ostringstream lines;
    int n = 0;
    for (const auto& v : j["variants"])
      for (const auto& row : v.value("rows", json::array())) {
        if (!row.contains("statistics") || !row["statistics"].contains("per_seed")) continue;
        const std::string claim = (v.value("name", "").empty() ? "" : v.value("name", "") + "/") + row.value("claim", "");
        lines << power_line(claim, row["statistics"], *family) << "\n";
        ++n;
      }
    if (n == 0)
      throw std::runtime_error(*summary + ": no claim row with per-seed statistics (an older summary: run "
                                          "its reproduction again)");
    std::cout << "each claim at level alpha / " << *family << "; 80% power at one look\n"
              << std::left << std::setw(48) << "claim" << std::setw(6) << "seeds" << std::setw(16) << "effect"
              << std::setw(10) << "sd" << "seeds for 80% power\n" << lines.str();
  });
}

}  // namespace dmlbench::app
