// `dmlbench design`: the report's design constants (first look, e-BH's planned share; the cap is the budget) chosen
// by simulation on synthetic effects (report_design_choice.hpp), written as the design file the reproductions name.
#include "commands.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/report_design_choice.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "repository_dir.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;
using json = nlohmann::ordered_json;

namespace {

struct DesignOptions {
  int reports = 300;
  std::uint64_t seed = 20261206;
  int cap = 10;
  double alpha = 0.05;
  // the synthetic effects' range in sd of one seed: two decades around 3 sd, from at the noise (a claim no ten seeds
  // can decide) to a gap no seed crosses, fixed without reading the runs
  double effect_low = 0.3, effect_high = 30;
  std::string out;
  bool force = false;
};

// 0.01: a planned R of 1 in a family of 75, the looks at alpha / m (Bonferroni)
const std::vector<double> kShares = {0.01, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0};
const std::vector<double> kNullShares = {0.25, 0.5, 0.75};

double three_digits(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return std::stod(o.str());
}

std::string number_text(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

json performance_json(const ex::DesignPerformance& p) {
  return {{"first_look", p.design.first_look}, {"planned_selected_share", p.design.planned_selected_share},
          {"g", three_digits(p.g)}, {"found", p.found}, {"false_discovery_rate", p.false_discovery_rate},
          {"seeds_per_claim", p.seeds}};
}

// The share of the spending stages' claims judged as a typical seed: the report's mix of estimands (a property of
// its claims, read from the reproduction files, never from their runs).
double typical_share_of_reproductions() {
  const std::string root = repository_dir();
  std::size_t claims = 0, typical = 0;
  for (const auto& f : std::filesystem::directory_iterator(root + "/experiments/reproductions")) {
    if (f.path().extension() != ".json") continue;
    const auto r = ex::read_reproduction(f.path().string(), root);
    if (!r.profiles.count("default") || !r.profiles.at("default").has_looks()) continue;
    for (const auto& m : r.metrics)
      if (!m.claim.empty() && !m.direction.empty()) {
        ++claims;
        typical += m.estimand == "typical seed";
      }
  }
  if (claims == 0) throw std::runtime_error(root + "/experiments/reproductions: no spending stage's claims");
  return double(typical) / double(claims);
}

// Every candidate over every scenario, a progress line each; the averaged performances in candidate order.
std::vector<ex::DesignPerformance> simulate_candidates(const DesignOptions& o, json& scenarios) {
  const double typical = typical_share_of_reproductions();
  std::vector<ex::DesignPerformance> averaged;
  const auto start = std::chrono::steady_clock::now();
  // every first look from 3 to the cap (the cap itself: one look, a fixed-n design)
  std::vector<int> first_looks;
  for (int n = 3; n <= o.cap; ++n) first_looks.push_back(n);
  const std::size_t total = first_looks.size() * kShares.size();
  for (const int first : first_looks)
    for (const double share : kShares) {
      const ex::DesignCandidate d{first, o.cap, share};
      std::vector<ex::DesignPerformance> per;
      for (std::size_t s = 0; s < kNullShares.size(); ++s) {
        const ex::SyntheticFamily f{75, kNullShares[s], o.effect_low, o.effect_high, typical};
        per.push_back(ex::simulate_design(d, f, o.alpha, o.reports, o.seed + s));  // the same families per candidate
      }
      averaged.push_back(ex::average_performance(per));
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cerr << "design: " << averaged.size() << "/" << total << " candidates, " << std::fixed
                << std::setprecision(0) << spent << " s, about "
                << spent / double(averaged.size()) * double(total - averaged.size()) << " s left\n";
    }
  scenarios = json::array();
  for (const double n : kNullShares)
    scenarios.push_back({{"claims", 75}, {"null_share", n}, {"typical_seed_share", typical}});
  return averaged;
}

json design_file(const DesignOptions& o, const std::vector<ex::DesignPerformance>& averaged, std::size_t at,
                 const json& scenarios) {
  json candidates = json::array();
  for (const auto& p : averaged) candidates.push_back(performance_json(p));
  const auto& c = averaged[at];
  return {
      {"about", "The report's design of looks: every spending stage's first look (seeds of every arm), its cap, the "
                "share of the family e-BH's looks plan to select, and the anytime t-test's prior variance g (the minimax "
                "g of these looks). Written by the command in chosen_by from synthetic effects alone, never from the "
                "report's runs."},
      {"alpha", o.alpha},
      {"first_look", c.design.first_look},
      {"cap", o.cap},
      {"planned_selected_share", c.design.planned_selected_share},
      {"g", three_digits(c.g)},
      {"chosen_by",
       {{"command", "dmlbench design --reports " + std::to_string(o.reports) + " --seed " + std::to_string(o.seed) +
                        " --cap " + std::to_string(o.cap) +
                        " --effect-low " + number_text(o.effect_low) + " --effect-high " + number_text(o.effect_high) +
                        " --out FILE"},
        {"cap", "fixed by the budget (the most seeds per arm the report affords on two cores), not chosen"},
        {"criterion", "among the candidates that find at least 95% of the true effects the best candidate finds "
                      "(averaged over the scenarios), the one with the fewest seeds per claim"},
        {"synthetic", {{"per_seed", "N(delta, 1), each claim its own arm; a typical-seed claim judges their signs (the "
                                    "share the spending stages' claims have, from the reproduction files)"},
                       {"effects", "|delta| log-uniform on [" + number_text(o.effect_low) + ", " + number_text(o.effect_high) +
                                       "] sd, random sign; null claims delta = 0"},
                       {"scenarios", scenarios}, {"reports_per_scenario", o.reports}}},
        {"candidates", candidates},
        {"chosen", at}}}};
}

}  // namespace

void add_design_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("design", "choose the report's design of looks (first look, e-BH's planned share) "
                                           "by simulation on synthetic effects and write the design file");
  auto o = std::make_shared<DesignOptions>();
  cmd->add_option("--reports", o->reports, "simulated reports per candidate and scenario")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", o->seed, "the simulation's seed");
  cmd->add_option("--cap", o->cap, "the most seeds per arm (the budget)")->check(CLI::Range(6, 100));
  cmd->add_option("--effect-low", o->effect_low, "the smallest synthetic effect, in sd of one seed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--effect-high", o->effect_high, "the largest synthetic effect, in sd of one seed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--out", o->out, "the design file to write (experiments/report_design.json)")->required();
  cmd->add_flag("--force", o->force, "replace an existing design file");
  cmd->callback([o] {
    if (o->effect_low > o->effect_high)
      throw std::invalid_argument("--effect-low " + number_text(o->effect_low) + " is above --effect-high " +
                                  number_text(o->effect_high) + ": the synthetic effects are drawn between them");
    if (std::filesystem::exists(o->out) && !o->force)
      throw std::runtime_error(o->out + " exists: the report's design is chosen once (--force to replace it)");
    json scenarios;
    const auto averaged = simulate_candidates(*o, scenarios);
    const std::size_t at = ex::chosen_design(averaged);
    std::cout << std::left << std::setw(8) << "first" << std::setw(8) << "share" << std::setw(10) << "g"
              << std::setw(10) << "found" << std::setw(8) << "FDR" << "seeds/claim\n";
    for (std::size_t i = 0; i < averaged.size(); ++i) {
      const auto& p = averaged[i];
      std::cout << std::left << std::fixed << std::setw(8) << p.design.first_look << std::setprecision(2)
                << std::setw(8) << p.design.planned_selected_share << std::defaultfloat << std::setprecision(3)
                << std::setw(10) << three_digits(p.g) << std::fixed << std::setprecision(2) << std::setw(10) << p.found << std::setprecision(4)
                << std::setw(8) << p.false_discovery_rate << std::setprecision(2) << p.seeds
                << (i == at ? "  <- chosen" : "") << "\n";
    }
    ex::write_file_atomically(o->out, design_file(*o, averaged, at, scenarios).dump(2) + "\n");
    std::cout << "wrote " << o->out << "\n";
  });
}

}  // namespace dmlbench::app
