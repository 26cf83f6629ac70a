// dmlbench sim check | phase | collapse (and field, shared with theory)
#include "commands.hpp"

#include "claims_report.hpp"
#include "option_checks.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/sims/collapse_claims.hpp"
#include "dmlbench/sims/collapse_minimizer.hpp"
#include "dmlbench/sims/collapse_phase.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace dmlbench::app {

namespace sm = dmlbench::sims;
using json = nlohmann::ordered_json;

namespace {

// What the old spelling --noise is refused with: the option holds P(correct label), the opposite of its old name.
const char* const kNoiseRenamed =
    "--noise was renamed --p-correct: the value is p = P(correct label) of [LCC] (0.8 = 20% of the labels wrong), "
    "in (1/t, 1]";

// The [LCC] model's numbers against their ranges, naming the options and printing the values in their shortest form
// (0.3, not 0.29999999999999999); the model's own validate() stays behind it.
void check_collapse_numbers(const sm::ObjectiveConfig& c) {
  const auto& m = c.model;
  const std::string t = std::to_string(m.t);
  if (m.t < 2) throw std::invalid_argument("--classes must be >= 2, got " + t);
  if (!(m.p > 1.0 / m.t && m.p <= 1.0))
    throw std::invalid_argument("--p-correct must lie in (1/t, 1] = (1/" + t + ", 1] for --classes " + t +
                                " (p = P(correct label): 0.8 = 20% of the labels wrong), got " + shortest_text(m.p));
  if (m.n < m.t || m.n % m.t != 0)
    throw std::invalid_argument("--n must be a positive multiple of --classes " + t + ", got " + std::to_string(m.n));
  if (!(std::isfinite(c.alpha) && c.alpha > 0))
    throw std::invalid_argument("--margin must be > 0, got " + shortest_text(c.alpha));
  if (c.dim < 1) throw std::invalid_argument("--dim must be >= 1, got " + std::to_string(c.dim));
}

}  // namespace

void check_collapse_options(const json& o) {
  if (o.contains("noise")) throw std::invalid_argument(kNoiseRenamed);
  sm::ObjectiveConfig c;
  c.objective = sm::parse_objective(o.value("loss", std::string("triplet")));
  if (o.contains("n")) c.model.n = o["n"].get<int>();
  if (o.contains("classes")) c.model.t = o["classes"].get<int>();
  if (o.contains("p-correct")) c.model.p = o["p-correct"].get<double>();
  if (o.contains("margin")) c.alpha = o["margin"].get<double>();
  if (o.contains("dim")) c.dim = o["dim"].get<int>();
  c.model.triples = sm::parse_triples(o.value("triples", std::string("distinct")));
  c.sampling = sm::parse_sampling(o.value("sampling", std::string("all")));
  check_collapse_numbers(c);
  c.validate();
  for (const char* k : {"restarts", "max-iterations"})
    if (o.contains(k) && o[k].get<long long>() < 1)
      throw std::invalid_argument(std::string("--") + k + " must be >= 1, got " + o[k].dump());
}

namespace {

// sim phase: where do minimizers collapse, over (t, p, n)
void add_phase_command(CLI::App* sim) {
  auto* phase = sim->add_subcommand("phase", "sweep classes x p = P(correct label) x n and record where the "
                                             "minimizers found are class-collapsed (CSV for the phase diagram)");
  struct PhaseArgs {
    std::string loss = "triplet", triples = "distinct", sampling = "all", out;
    std::vector<int> classes = {2, 3}, ns = {12, 24};
    std::vector<double> p_correct = {0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0};
    double margin = 0.2;
    int dim = 2, threads = 0;
    sm::MinimizerConfig mc;
  };
  auto pa = std::make_shared<PhaseArgs>();
  pa->mc.restarts = 2;
  phase->add_option("--loss", pa->loss, "triplet | margin | contrastive")->capture_default_str();
  phase->add_option("--sampling", pa->sampling, "all | eps")->capture_default_str();
  phase->add_option("--triples", pa->triples, "all | distinct")->capture_default_str();
  phase->add_option("--classes", pa->classes, "values of t")->check(integer_at_least(2))->capture_default_str();
  phase->add_option("--p-correct", pa->p_correct, "values of p = P(correct label), 0.8 = 20% of the labels wrong "
                                                  "(each in (0, 1]; points with p <= 1/t are skipped)")
      ->check(number_in(0, Bound::open, 1, Bound::closed, "in (0, 1] (p = P(correct label))"))
      ->capture_default_str();
  refuse_renamed_option(phase, "--noise", kNoiseRenamed);
  phase->add_option("--n", pa->ns, "values of n (those not divisible by t are skipped)")
      ->check(integer_at_least(1))->capture_default_str();
  phase->add_option("--margin", pa->margin, "alpha > 0")->check(positive_number())->capture_default_str();
  phase->add_option("--dim", pa->dim, "embedding dimension")->check(integer_at_least(1))->capture_default_str();
  phase->add_option("--restarts", pa->mc.restarts, "random starts per point")
      ->check(integer_at_least(1))->capture_default_str();
  phase->add_option("--seed", pa->mc.seed, "seed of the random starts")->capture_default_str();
  phase->add_option("--out", pa->out, "CSV file (default: stdout)");
  phase->add_option("--threads", pa->threads, "threads over the points (0: all cores; the CSV does not depend on it)")
      ->check(integer_at_least(0))
      ->capture_default_str();
  phase->callback([pa] {
    const auto grid = sm::phase_grid(pa->classes, pa->p_correct, pa->ns);
    if (grid.empty()) throw theory::domain_error("the sweep is empty: no (t, p, n) with n divisible by t and p > 1/t");
    json config = {{"command", "sim phase"}, {"loss", pa->loss}, {"sampling", pa->sampling}, {"triples", pa->triples},
                   {"classes", pa->classes}, {"noise", pa->p_correct}, {"n", pa->ns}, {"margin", pa->margin},
                   {"dim", pa->dim}, {"restarts", pa->mc.restarts}, {"seed", pa->mc.seed}};
    std::ostringstream csv;
    csv << "# " << json{{"config", config}, {"git_revision", DMLBENCH_GIT_REV}, {"seed", pa->mc.seed}, {"tool", "dmlbench"}}.dump()
        << "\n"
        << "classes,noise_p,n,restarts,collapsed_runs,best_objective,collapsed_candidate,best_minus_candidate,"
           "max_class_diameter,min_interclass_sq_distance,region\n";
    sm::ObjectiveConfig base;
    base.objective = sm::parse_objective(pa->loss);
    base.sampling = sm::parse_sampling(pa->sampling);
    base.model.triples = sm::parse_triples(pa->triples);
    base.alpha = pa->margin;
    base.dim = pa->dim;
    const auto t0 = std::chrono::steady_clock::now();
    const auto progress = [&](std::size_t done, std::size_t g, const sm::PhaseResult& r) {
      const auto& pt = grid[g];
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double eta = el / double(done) * double(grid.size() - done);
      std::cerr << "[phase] " << done << "/" << grid.size() << " t=" << pt.classes << " p=" << pt.p_correct
                << " n=" << pt.n << ": " << r.region << " (" << r.collapsed << "/" << r.restarts << "), elapsed "
                << std::setprecision(3) << el << " s, ETA " << eta << " s" << std::endl;
    };
    const auto results = sm::phase_sweep(base, grid, pa->mc, threads_or_all_cores(pa->threads), progress);
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const auto& pt = grid[g];
      const auto& r = results[g];
      csv << std::setprecision(10) << pt.classes << "," << pt.p_correct << "," << pt.n << "," << r.restarts << ","
          << r.collapsed << "," << r.best_objective << "," << r.collapsed_candidate << ","
          << r.best_objective - r.collapsed_candidate << "," << r.max_class_diameter << ","
          << r.min_interclass_sq_distance << "," << r.region << "\n";
    }
    if (pa->out.empty()) {
      std::cout << csv.str();
    } else {
      experiments::write_file_atomically(pa->out, csv.str());
      std::cerr << "wrote " << pa->out << "\n";
    }
  });
}

// sim collapse: minimizers of one [LCC] objective from random starts
void add_collapse_command(CLI::App* sim) {
  auto* collapse = sim->add_subcommand("collapse", "minimize an expected [LCC] objective from random starts and "
                                                   "report the structure of every minimizer found");
  struct Args {
    std::string loss = "triplet", triples = "distinct", sampling = "all", out;
    sm::ObjectiveConfig c;
    sm::MinimizerConfig mc;
  };
  auto a = std::make_shared<Args>();
  collapse->add_option("--loss", a->loss, "triplet | margin | contrastive")->capture_default_str();
  collapse->add_option("--n", a->c.model.n, "number of points (divisible by --classes)")
      ->check(integer_at_least(1))->capture_default_str();
  collapse->add_option("--classes", a->c.model.t, "number of true classes t >= 2")
      ->check(integer_at_least(2))->capture_default_str();
  collapse->add_option("--p-correct", a->c.model.p, "p = P(correct label), in (1/t, 1]: 0.8 = 20% of the labels "
                                                    "wrong; the paper: (0.5, 1)")
      ->check(number_in(0, Bound::open, 1, Bound::closed, "in (1/t, 1] (p = P(correct label))"))
      ->capture_default_str();
  refuse_renamed_option(collapse, "--noise", kNoiseRenamed);
  collapse->add_option("--margin", a->c.alpha, "alpha > 0")->check(positive_number())->capture_default_str();
  collapse->add_option("--dim", a->c.dim, "embedding dimension m >= 1")->check(integer_at_least(1))
      ->capture_default_str();
  collapse->add_option("--sampling", a->sampling, "all (every same-label positive) | eps (easy positive, [LCC] 4.3)")
      ->capture_default_str();
  collapse->add_option("--triples", a->triples, "all (j = i included, as printed) | distinct (as the proof needs)")
      ->capture_default_str();
  collapse->add_option("--restarts", a->mc.restarts, "random starts")->check(integer_at_least(1))
      ->capture_default_str();
  collapse->add_option("--seed", a->mc.seed, "seed of the random starts")->capture_default_str();
  collapse->add_option("--max-iterations", a->mc.max_iterations, "L-BFGS iterations per start")
      ->check(integer_at_least(1))->capture_default_str();
  collapse->add_option("--out", a->out, "write the runs, with their config, as JSON to this file");
  collapse->callback([a] {
    a->c.objective = sm::parse_objective(a->loss);
    a->c.model.triples = sm::parse_triples(a->triples);
    a->c.sampling = sm::parse_sampling(a->sampling);
    check_collapse_numbers(a->c);
    a->c.validate();
    const auto t0 = std::chrono::steady_clock::now();
    const auto runs = sm::minimize_from_random_starts(a->c, a->mc);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    json config = {{"loss", a->loss}, {"n", a->c.model.n}, {"classes", a->c.model.t}, {"noise_p", a->c.model.p},
                   {"margin", a->c.alpha}, {"dim", a->c.dim}, {"triples", a->triples}, {"sampling", a->sampling}, {"restarts", a->mc.restarts},
                   {"seed", a->mc.seed}, {"max_iterations", a->mc.max_iterations}};
    json out = {{"config", config}, {"git_revision", DMLBENCH_GIT_REV}, {"seed", a->mc.seed}, {"tool", "dmlbench"},
                {"runs", json::array()}};
    std::cout << std::left << std::setw(8) << "restart" << std::setw(14) << "objective" << std::setw(11) << "|grad|"
              << std::setw(12) << "max diam" << std::setw(14) << "min inter D" << std::setw(12) << "subclusters"
              << "collapsed\n";
    int n_collapsed = 0;
    for (const auto& r : runs) {
      double max_diam = 0;
      int sub = 0;
      for (double d : r.structure.class_diameter) max_diam = std::max(max_diam, d);
      for (int s : r.structure.subclusters) sub += s;
      n_collapsed += r.structure.collapsed;
      std::cout << std::left << std::setw(8) << r.restart << std::setw(14) << std::setprecision(8) << r.final_objective
                << std::setw(11) << std::setprecision(2) << r.gradient_norm << std::setw(12) << std::setprecision(3)
                << max_diam << std::setw(14) << r.structure.min_interclass_sq_distance << std::setw(12) << sub
                << (r.structure.collapsed ? "yes" : "no") << "\n";
      out["runs"].push_back({{"restart", r.restart}, {"initial_objective", r.initial_objective},
                             {"final_objective", r.final_objective}, {"gradient_norm", r.gradient_norm},
                             {"iterations", r.iterations}, {"termination", r.termination},
                             {"class_diameter", r.structure.class_diameter},
                             {"min_interclass_sq_distance", r.structure.min_interclass_sq_distance},
                             {"max_interclass_sq_distance", r.structure.max_interclass_sq_distance},
                             {"subclusters", r.structure.subclusters}, {"threshold", r.structure.threshold},
                             {"collapsed", r.structure.collapsed}});
      // The minimizer itself (row i = f(x_i)) with each point's true class, for the embedding figures.
      json pts = json::array(), cls = json::array();
      for (int i = 0; i < a->c.model.n; ++i) {
        pts.push_back(std::vector<double>(r.x.data() + i * a->c.dim, r.x.data() + (i + 1) * a->c.dim));
        cls.push_back(a->c.model.class_of(i));
      }
      out["runs"].back()["points"] = pts;
      out["runs"].back()["true_class"] = cls;
    }
    std::cout << n_collapsed << " of " << runs.size() << " minimizers class-collapsed (" << std::setprecision(3)
              << secs << " s)\n";
    out["collapsed_runs"] = n_collapsed;
    if (a->c.dim >= a->c.model.t - 1) {
      const auto k = sm::proof_candidate(a->c);
      double best = INFINITY;
      for (const auto& r : runs) best = std::min(best, r.final_objective);
      std::cout << "collapsed candidate of the proof (squared gap " << k.squared_gap << "): objective "
                << std::setprecision(10) << k.objective << "; best found " << best
                << (best < k.objective - 1e-9 ? "  <-- lower than the collapsed candidate" : "") << "\n";
      out["collapsed_candidate"] = {{"squared_gap", k.squared_gap}, {"beta", k.beta}, {"objective", k.objective}};
      out["best_objective"] = best;
    }
    if (!a->out.empty()) {
      experiments::write_file_atomically(a->out, out.dump(2) + "\n");
      std::cout << "wrote " << a->out << "\n";
    }
  });
}

}  // namespace

void add_sim_commands(CLI::App& app) {
  auto* sim = app.add_subcommand("sim", "noisy-label class-collapse simulations of [LCC] (Ceres minimizers)");
  sim->require_subcommand(1);

  auto* check = sim->add_subcommand("check", "run the [LCC] collapse checks and print their claims table");
  auto seed = std::make_shared<std::uint64_t>(20261121);
  auto json_path = std::make_shared<std::string>();
  auto md_path = std::make_shared<std::string>();
  check->add_option("--seed", *seed, "seed of the random starts")->capture_default_str();
  check->add_option("--json", *json_path, "also write the table, with its config, as JSON to this file");
  check->add_option("--markdown", *md_path, "also write the table, errata and notes as Markdown to this file");
  check->callback([seed, json_path, md_path] {
    const auto t0 = std::chrono::steady_clock::now();
    const auto rs = sm::collapse_claims(*seed);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report_claims("Class-collapse claims: [LCC]", rs, {{"command", "sim check"}, {"seed", *seed}}, secs, *json_path,
                  *md_path);
  });

  add_field_command(sim);
  add_phase_command(sim);
  add_collapse_command(sim);
}

}  // namespace dmlbench::app
