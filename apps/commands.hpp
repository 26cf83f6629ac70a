// Sub-command registration of the dmlbench command line.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace dmlbench::app {

void add_theory_commands(CLI::App& app);
void add_sim_commands(CLI::App& app);
void add_data_commands(CLI::App& app);
// `htl tree`: the [HTL] class hierarchy of features from any source.
void add_htl_commands(CLI::App& app);
// `field` (the [XHN] vector field sweep) under a parent command: theory field and sim field are the same command.
void add_field_command(CLI::App* parent);
// Sub-commands forwarded to the LibTorch module; its exit status lands in exit_code.
void add_torch_commands(CLI::App& app, int& exit_code);
// `sweep`: grids of runs here or as a Slurm job array, their status and merged summary; exit status in exit_code.
void add_sweep_commands(CLI::App& app, int& exit_code);
// Checks `sim collapse` options given as JSON (a sweep's point) as the command line would: throws for a bad value.
void check_collapse_options(const nlohmann::ordered_json& options);
// `report`: the stages, the notebooks and REPORT.md; its exit status lands in exit_code.
void add_report_command(CLI::App& app, int& exit_code);
// `power --summary S`: per claim, the seeds per side that detect the paper's difference at 80% power.
void add_power_command(CLI::App& app);
// `papers`: the registered papers as a Markdown table.
void add_papers_command(CLI::App& app);
// `design`: the report's design of looks chosen by simulation on synthetic effects.
void add_design_command(CLI::App& app);

}  // namespace dmlbench::app
