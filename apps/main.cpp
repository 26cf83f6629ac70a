// dmlbench: theory checks, simulations and training runs for deep metric learning (see README.md).
#include "blas_kernel_choice.hpp"
#include "commands.hpp"


#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  dmlbench::app::use_openblas_kernels_for_this_cpu(argv);
  CLI::App app{"dmlbench: a theory-verification and numerical test bench for deep metric learning"};
  app.set_version_flag("--version", std::string("dmlbench ") + DMLBENCH_VERSION + " (" + DMLBENCH_GIT_REV + ")");
  app.require_subcommand(1);
  // A parse error (an unknown option, a value out of its range) is one line, as every other refusal, with exit 2.
  app.failure_message(
      [](const CLI::App*, const CLI::Error& e) { return std::string("dmlbench: error: ") + e.what() + "\n"; });
  dmlbench::app::add_theory_commands(app);
  dmlbench::app::add_sim_commands(app);
  dmlbench::app::add_data_commands(app);
  dmlbench::app::add_htl_commands(app);
  dmlbench::app::add_power_command(app);
  dmlbench::app::add_papers_command(app);
  dmlbench::app::add_design_command(app);
  int torch_exit = 0;
  dmlbench::app::add_torch_commands(app, torch_exit);
  int report_exit = 0;
  dmlbench::app::add_report_command(app, report_exit);
  int sweep_exit = 0;
  dmlbench::app::add_sweep_commands(app, sweep_exit);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "dmlbench: error: " << e.what() << "\n";
    return 2;
  }
  return torch_exit != 0 ? torch_exit : report_exit != 0 ? report_exit : sweep_exit;
}
