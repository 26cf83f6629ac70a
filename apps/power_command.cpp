// `dmlbench power --summary S`: per claim of a reproduction's summary.json, the seeds per side that detect the
// paper's difference (else the stated smallest effect) at 80% power from the observed spread (issue 27 item 5).
#include "commands.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/report_io.hpp"
#include "dmlbench/experiments/t_test_power.hpp"

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

// One claim's line: claim, seeds now, the effect and where it comes from, the spreads, the seeds needed.
std::string power_line(const std::string& claim, const json& s) {
  const double effect = s.at("paper_difference").is_number() ? std::abs(s["paper_difference"].get<double>())
                                                             : s.at("smallest_effect").get<double>();
  const double alpha = s.value("alpha", 0.05), sd_t = s.at("treatment").at("sd").get<double>();
  const bool welch = s.contains("baseline");
  const double sd_b = welch ? s["baseline"].at("sd").get<double>() : 0.0;
  const auto need = welch ? ex::welch_seeds_needed(effect, sd_t, sd_b, alpha, ex::claim_power)
                          : ex::one_sample_seeds_needed(effect, sd_t, alpha, ex::claim_power);
  auto fixed2 = [](double x) {
    std::ostringstream t;
    t << std::fixed << std::setprecision(2) << x;
    return t.str();
  };
  std::ostringstream o;
  o << std::left << std::setw(48) << claim << std::setw(6) << s["treatment"]["n"].get<std::size_t>() << std::fixed
    << std::setprecision(2) << std::setw(8) << effect << std::setw(8)
    << (s["paper_difference"].is_number() ? "paper" : "delta") << std::setw(16)
    << (welch ? fixed2(sd_t) + ", " + fixed2(sd_b) : fixed2(sd_t));
  const bool one_seed = s["treatment"]["n"].get<std::size_t>() < 2 || (welch && s["baseline"]["n"].get<std::size_t>() < 2);
  if (one_seed) return o.str() + "n/a (1 seed: no spread to measure)";
  switch (need.status) {
    case ex::SeedsNeeded::found: o << need.n; break;
    case ex::SeedsNeeded::beyond_cap: o << "more than " << need.n; break;
    case ex::SeedsNeeded::no_spread: o << "n/a (no spread)"; break;
    case ex::SeedsNeeded::no_effect: o << "n/a (no effect)"; break;
  }
  return o.str();
}

// A count claim's line (an exact binomial test on the counts pooled over the runs): power is a matter of trials, not
// of seeds' spread.
std::string count_power_line(const std::string& claim, const json& s) {
  std::ostringstream o;
  o << std::left << std::setw(48) << claim << std::setw(6) << s.value("runs", std::size_t(0)) << std::fixed
    << std::setprecision(2) << std::setw(8) << s.value("smallest_effect", 0.0) << std::setw(8) << "delta"
    << std::setw(16)
    << (std::to_string(s.value("successes", std::uint64_t(0))) + "/" + std::to_string(s.value("trials", std::uint64_t(0))))
    << "n/a (exact binomial on the counts pooled over the runs)";
  return o.str();
}

}  // namespace

void add_power_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("power", "per claim of a reproduction's summary.json: the seeds per side that detect "
                                          "the paper's difference (else the stated smallest effect) at 80% power, "
                                          "from the observed spread");
  auto summary = std::make_shared<std::string>();
  cmd->add_option("--summary", *summary, "summary.json of `dmlbench reproduce` (claim rows with statistics)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->callback([summary] {
    const json j = ex::read_json_file(*summary);
    if (!j.contains("variants") || !j["variants"].is_array())
      throw std::runtime_error(*summary + ": no \"variants\" (not a summary.json of dmlbench reproduce)");
    std::ostringstream lines;
    int n = 0;
    for (const auto& v : j["variants"])
      for (const auto& row : v.value("rows", json::array())) {
        if (!row.contains("statistics")) continue;
        const json& s = row["statistics"];
        const std::string claim = (v.value("name", "").empty() ? "" : v.value("name", "") + "/") + row.value("claim", "");
        if (s.value("test", "") == "binomial") lines << count_power_line(claim, s) << "\n";
        else if (s.contains("treatment")) lines << power_line(claim, s) << "\n";
        else continue;
        ++n;
      }
    if (n == 0) throw std::runtime_error(*summary + ": no claim row with statistics (a summary older than issue 27?)");
    std::cout << std::left << std::setw(48) << "claim" << std::setw(6) << "seeds" << std::setw(16) << "effect"
              << std::setw(16) << "sd" << "seeds for 80% power\n" << lines.str();
  });
}

}  // namespace dmlbench::app
