// dmlbench theory check | step | field
#include "commands.hpp"

#include "claims_report.hpp"
#include "option_checks.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"
#include "dmlbench/theory/projection_strength.hpp"
#include "dmlbench/theory/second_order_loss.hpp"
#include "dmlbench/theory/triplet_sampler.hpp"
#include "dmlbench/theory/vector_field.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <cmath>
#include <sstream>
#include <algorithm>
#include <random>

namespace dmlbench::app {

namespace th = dmlbench::theory;
using json = nlohmann::ordered_json;

// A similarity, gamma (a cosine): in [-1, 1]; a probability: in [0, 1]. Checked as typed, naming the option.
static CLI::Validator in_minus_one_one() { return number_in(-1, Bound::closed, 1, Bound::closed, "in [-1, 1]"); }
static CLI::Validator in_zero_one() { return number_in(0, Bound::closed, 1, Bound::closed, "in [0, 1]"); }

// Writes a CSV (with its '#'-line provenance) to a file atomically, or to stdout when path is empty.
static void emit_csv(const std::string& path, const std::string& text, std::size_t rows, const char* unit = "rows") {
  if (path.empty()) {
    std::cout << text;
  } else {
    experiments::write_file_atomically(path, text);
    std::cerr << "wrote " << rows << " " << unit << " to " << path << "\n";
  }
}

void add_field_command(CLI::App* parent) {
  // --- field -----------------------------------------------------------------------------------------------------
  auto* field = parent->add_subcommand("field", "Delta S maps and the entangled vector field of [XHN] eqs 9-12 over a "
                                                 "grid of (S_ap, S_an), as CSV, with region statistics");
  auto fc = std::make_shared<th::FieldConfig>();
  auto floss = std::make_shared<std::string>("l1st");
  auto out_path = std::make_shared<std::string>();
  field->add_option("--loss", *floss, "l1st | vanilla | l2nd")->capture_default_str();
  field->add_option("--gamma", fc->gamma, "projection factor in [-1, 1]")->check(in_minus_one_one())
      ->capture_default_str();
  field->add_option("--entanglement", fc->entanglement, "p in [0, 1]")->check(in_zero_one())->capture_default_str();
  field->add_option("--lr", fc->lr, "learning rate alpha > 0")->check(positive_number())->capture_default_str();
  field->add_option("--grid", fc->grid, "grid x grid cell centres")->check(integer_at_least(1))->capture_default_str();
  field->add_option("--out", *out_path, "CSV file (default: stdout)");
  field->callback([fc, floss, out_path] {
    fc->loss = th::parse_triplet_loss(*floss);
    const auto samples = th::sweep_vector_field(*fc);
    const auto st = th::field_stats(samples);
    std::ostringstream o;
    o << "# " << provenance({{"loss", *floss}, {"gamma", fc->gamma}, {"entanglement", fc->entanglement},
                             {"lr", fc->lr}, {"grid", fc->grid}}).dump() << "\n";
    o << "s_ap,s_an,dS_ap,dS_an,dS_ap_total,dS_an_total,movement\n" << std::setprecision(12);
    for (const auto& f : samples)
      o << f.s_ap << "," << f.s_an << "," << f.delta.ap << "," << f.delta.an << "," << f.total.ap << ","
        << f.total.an << "," << th::name(th::classify(f.total)) << "\n";
    emit_csv(*out_path, o.str(), samples.size(), "points");
    std::cerr << std::setprecision(3) << "S_ap decreasing: " << st.ap_decreasing << ", S_an increasing: "
              << st.an_increasing << ", up-right near (1,1): " << st.near_11_up_right << "\nmovement:";
    for (int k = 0; k < 5; ++k)
      std::cerr << " " << th::name(th::Movement(k)) << " " << st.movement_fraction[std::size_t(k)];
    std::cerr << "\n";
  });
}


void add_surface_and_projection_commands(CLI::App* theory) {
  // --- surface: L2nd over (S_ap, S_an) with its gradient ([XHN eq 16]) --------------------------------------
  auto* surface = theory->add_subcommand("surface", "the 2nd-order loss L2nd of [XHN eq 16] and its gradient "
                                                     "(dL/dS_ap, dL/dS_an) over a grid of (S_ap, S_an), as CSV");
  struct SurfaceArgs {
    int grid = 41;
    double lo = -1.0, hi = 1.0;
    std::string out;
  };
  auto sa = std::make_shared<SurfaceArgs>();
  surface->add_option("--grid", sa->grid, "grid x grid points, ends included")->check(CLI::Range(2, 2000))->capture_default_str();
  surface->add_option("--lo", sa->lo, "lowest similarity (>= -1)")->check(in_minus_one_one())->capture_default_str();
  surface->add_option("--hi", sa->hi, "highest similarity (<= 1)")->check(in_minus_one_one())->capture_default_str();
  surface->add_option("--out", sa->out, "CSV file (default: stdout)");
  surface->callback([sa] {
    th::require_similarity("--lo", sa->lo);
    th::require_similarity("--hi", sa->hi);
    if (!(sa->lo < sa->hi)) throw th::domain_error("--lo must be below --hi");
    std::ostringstream o;
    o << "# " << provenance({{"command", "theory surface"}, {"loss", "l2nd"}, {"paper", "XHN eq 16"}, {"grid", sa->grid},
                             {"lo", sa->lo}, {"hi", sa->hi}}).dump() << "\n";
    // The gradient is the autodiff derivative of the printed loss, the same one the eq 13-15 claims check.
    o << "s_ap,s_an,loss,dL_dS_ap,dL_dS_an\n" << std::setprecision(12);
    std::size_t rows = 0;
    for (int i = 0; i < sa->grid; ++i)
      for (int j = 0; j < sa->grid; ++j) {
        const double s_ap = sa->lo + (sa->hi - sa->lo) * i / (sa->grid - 1);
        const double s_an = sa->lo + (sa->hi - sa->lo) * j / (sa->grid - 1);
        const Eigen::Vector2d g =
            th::autodiff_gradient2([](const auto& x, const auto& y) { return th::second_order_loss(x, y); }, s_ap, s_an);
        // + 0.0 turns a -0 derivative into 0 in the CSV.
        o << s_ap << "," << s_an << "," << th::second_order_loss(s_ap, s_an) << "," << g[0] + 0.0 << "," << g[1] + 0.0
          << "\n";
        ++rows;
      }
    emit_csv(sa->out, o.str(), rows);
  });

  // --- projection: [XGS eq 20] projection strengths, closed form and measured on vectors ------------------------
  auto* proj = theory->add_subcommand("projection", "effective projection strength of the Euclidean and cosine "
                                                     "gradient directions against pair similarity S ([XGS eq 20], "
                                                     "reconstructed), closed form and measured on random unit vectors");
  struct ProjArgs {
    int points = 201, dim = 16;
    std::uint64_t seed = 20261121;
    std::string out;
  };
  auto pa = std::make_shared<ProjArgs>();
  proj->add_option("--points", pa->points, "values of S in [-1, 1], ends included")->check(CLI::Range(2, 100000))->capture_default_str();
  proj->add_option("--dim", pa->dim, "dimension of the random unit vectors (>= 3)")->check(CLI::Range(3, 4096))->capture_default_str();
  proj->add_option("--seed", pa->seed, "seed of the random vectors")->capture_default_str();
  proj->add_option("--out", pa->out, "CSV file (default: stdout)");
  proj->callback([pa] {
    std::mt19937_64 rng(pa->seed);
    std::ostringstream o;
    o << "# " << provenance({{"command", "theory projection"}, {"paper", "XGS eq 20 (reconstructed), Fig 2 right"},
                             {"points", pa->points}, {"dim", pa->dim}, {"seed", pa->seed}}).dump() << "\n";
    o << "s,euclidean,cosine,euclidean_measured,cosine_measured\n" << std::setprecision(12);
    for (int i = 0; i < pa->points; ++i) {
      const double s = std::clamp(-1.0 + 2.0 * i / (pa->points - 1), -1.0, 1.0);
      // f_a, f_p unit vectors at similarity s: f_p = s u + sqrt(1-s^2) v for random orthonormal u, v.
      const Eigen::MatrixXd frame = th::random_orthonormal_frame(std::max(pa->dim, 3), rng);
      const Eigen::VectorXd fa = frame.col(0), fp = s * frame.col(0) + th::sine_of(s) * frame.col(1);
      const Eigen::VectorXd diff = fa - fp;
      // At S = 1 the Euclidean direction (f_a - f_p)/|f_a - f_p| is undefined: its cell is left empty.
      o << s << "," << th::euclidean_projection_strength(s) << "," << th::cosine_projection_strength(s) << ",";
      if (diff.norm() > 0) o << th::measured_projection_strength(diff / diff.norm(), fp);
      o << "," << th::measured_projection_strength(fa, fp) << "\n";
    }
    emit_csv(pa->out, o.str(), std::size_t(pa->points));
  });
}

void add_theory_commands(CLI::App& app) {
  auto* theory = app.add_subcommand("theory", "the theory checks of " + th::paper_keys_text("theory") +
                                                  " (the registered papers): identities on the unit hypersphere, "
                                                  "gradient decompositions, class trees and margins");
  theory->require_subcommand(1);

  // --- check -----------------------------------------------------------------------------------------------------
  auto* check = theory->add_subcommand("check", "run every theory check and print the claims table");
  auto cfg = std::make_shared<th::CheckConfig>();
  auto json_path = std::make_shared<std::string>();
  auto md_path = std::make_shared<std::string>();
  check->add_option("--seed", cfg->seed, "seed of the random triplets")->capture_default_str();
  check->add_option("--samples", cfg->samples_per_dim, "random triplets per dimension")
      ->check(CLI::PositiveNumber)->capture_default_str();
  check->add_option("--dims", cfg->dims, "dimensions d of R^d (each >= 3)")->capture_default_str();
  check->add_option("--json", *json_path, "also write the table, with its config, as JSON to this file");
  check->add_option("--markdown", *md_path, "also write the table, errata and notes as Markdown to this file");
  check->callback([cfg, json_path, md_path] {
    for (int d : cfg->dims)
      if (d < 3) throw th::domain_error("--dims: every dimension must be >= 3 (gamma needs 3 directions), got " + std::to_string(d));
    const auto t0 = std::chrono::steady_clock::now();
    const auto rs = th::all_claims(*cfg);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report_claims("Theory claims: " + th::paper_keys_text("theory"), rs,
                  {{"command", "theory check"}, {"seed", cfg->seed}, {"samples_per_dim", cfg->samples_per_dim},
                   {"dims", cfg->dims}},
                  secs, *json_path, *md_path);
  });

  // --- step ------------------------------------------------------------------------------------------------------
  auto* step = theory->add_subcommand("step", "Delta S and entanglement totals of one gradient step at one point");
  struct StepArgs {
    std::string loss = "l1st";
    double s_ap = 0.5, s_an = 0.5, gamma = 0.5, lr = 0.1, p = 0.0;
  };
  auto sa = std::make_shared<StepArgs>();
  step->add_option("--loss", sa->loss, "l1st | vanilla | l2nd")->capture_default_str();
  step->add_option("--sap", sa->s_ap, "S_ap in [-1, 1]")->check(in_minus_one_one())->capture_default_str();
  step->add_option("--san", sa->s_an, "S_an in [-1, 1]")->check(in_minus_one_one())->capture_default_str();
  step->add_option("--gamma", sa->gamma, "projection factor in [-1, 1]")->check(in_minus_one_one())
      ->capture_default_str();
  step->add_option("--lr", sa->lr, "learning rate alpha > 0")->check(positive_number())->capture_default_str();
  step->add_option("--entanglement", sa->p, "p in [0, 1] of [XHN eqs 11-12]")->check(in_zero_one())
      ->capture_default_str();
  step->callback([sa] {
    const auto loss = th::parse_triplet_loss(sa->loss);
    const auto d = th::delta_s_closed_form(loss, sa->s_ap, sa->s_an, sa->gamma, sa->lr);
    const auto t = th::entangled_total(d, sa->s_ap, sa->s_an, sa->p);
    std::cout << std::setprecision(12) << "loss=" << th::name(loss) << " dS_ap=" << d.ap << " dS_an=" << d.an
              << " dS_ap_total=" << t.ap << " dS_an_total=" << t.an << " movement=" << th::name(th::classify(t))
              << "\n";
  });

  add_field_command(theory);
  add_surface_and_projection_commands(theory);
}

}  // namespace dmlbench::app
