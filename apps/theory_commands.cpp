// dmlbench theory check | step | field
#include "commands.hpp"

#include "claims_report.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/vector_field.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <cmath>
#include <sstream>

namespace dmlbench::app {

namespace th = dmlbench::theory;
using json = nlohmann::ordered_json;

void add_field_command(CLI::App* parent) {
  // --- field -----------------------------------------------------------------------------------------------------
  auto* field = parent->add_subcommand("field", "Delta S maps and the entangled vector field of [XHN] eqs 9-12 over a "
                                                 "grid of (S_ap, S_an), as CSV, with region statistics");
  auto fc = std::make_shared<th::FieldConfig>();
  auto floss = std::make_shared<std::string>("l1st");
  auto out_path = std::make_shared<std::string>();
  field->add_option("--loss", *floss, "l1st | vanilla | l2nd")->capture_default_str();
  field->add_option("--gamma", fc->gamma, "projection factor in [-1, 1]")->capture_default_str();
  field->add_option("--entanglement", fc->entanglement, "p in [0, 1]")->capture_default_str();
  field->add_option("--lr", fc->lr, "learning rate alpha > 0")->capture_default_str();
  field->add_option("--grid", fc->grid, "grid x grid cell centres")->capture_default_str();
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
    if (out_path->empty()) {
      std::cout << o.str();
    } else {
      experiments::write_file_atomically(*out_path, o.str());
      std::cerr << "wrote " << samples.size() << " points to " << *out_path << "\n";
    }
    std::cerr << std::setprecision(3) << "S_ap decreasing: " << st.ap_decreasing << ", S_an increasing: "
              << st.an_increasing << ", up-right near (1,1): " << st.near_11_up_right << "\nmovement:";
    for (int k = 0; k < 5; ++k)
      std::cerr << " " << th::name(th::Movement(k)) << " " << st.movement_fraction[std::size_t(k)];
    std::cerr << "\n";
  });
}

void add_theory_commands(CLI::App& app) {
  auto* theory = app.add_subcommand("theory", "closed-form identities of [XHN], [XHN-A], [XGS] on the unit hypersphere");
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
    report_claims("Theory claims: [XHN], [XHN-A], [XGS]", rs,
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
  step->add_option("--sap", sa->s_ap, "S_ap in [-1, 1]")->capture_default_str();
  step->add_option("--san", sa->s_an, "S_an in [-1, 1]")->capture_default_str();
  step->add_option("--gamma", sa->gamma, "projection factor in [-1, 1]")->capture_default_str();
  step->add_option("--lr", sa->lr, "learning rate alpha > 0")->capture_default_str();
  step->add_option("--entanglement", sa->p, "p in [0, 1] of [XHN eqs 11-12]")->capture_default_str();
  step->callback([sa] {
    const auto loss = th::parse_triplet_loss(sa->loss);
    const auto d = th::delta_s_closed_form(loss, sa->s_ap, sa->s_an, sa->gamma, sa->lr);
    const auto t = th::entangled_total(d, sa->s_ap, sa->s_an, sa->p);
    std::cout << std::setprecision(12) << "loss=" << th::name(loss) << " dS_ap=" << d.ap << " dS_an=" << d.an
              << " dS_ap_total=" << t.ap << " dS_an_total=" << t.an << " movement=" << th::name(th::classify(t))
              << "\n";
  });

  add_field_command(theory);
}

}  // namespace dmlbench::app
