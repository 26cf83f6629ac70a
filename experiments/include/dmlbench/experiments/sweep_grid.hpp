// A sweep's grid (experiments/sweeps/*.json): a base run plus axes, expanded into named points, each with
// its own resolved command, output folder and the file that marks it finished. Torch-free: `dmlbench sweep` runs the
// points as child processes (`dmlbench train|sim collapse ...`), here or as one Slurm job array.
#pragma once

#include "dmlbench/experiments/reproduction.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// A number the summary reports per arm (mean +- std over seeds): a dotted path into a point's result (metric_at).
struct SweepMetric {
  std::string label, path;
  double scale = 1;
};

// A named bundle of overrides, one value of the grid's `arms` axis.
struct SweepArm {
  std::string name;
  nlohmann::ordered_json set;  // key -> value
};

// The grid file as read and checked (unknown keys, empty axes, a key the command does not take: one error naming it).
// Either a reproduction file's runs (its arms x seeds [x variants] under one profile, judged by its own test), or a
// command (`train` with a run config, `sim collapse` with its options) with a base, arms and axes.
struct SweepGrid {
  std::string file, name, title;
  std::string command;                           // "train" | "sim collapse"
  std::optional<Reproduction> reproduction;      // a reproduction grid
  std::string profile = "default";               // reproduction grids: the profile whose overrides and seeds apply
  std::vector<std::string> arm_names, variant_names;  // reproduction grids: the arms / variants run (empty: all)
  std::string config;                            // train: the run config file (absolute)
  nlohmann::ordered_json set = nlohmann::ordered_json::object();  // overrides of every point (key -> value)
  std::vector<SweepArm> arms;                    // command grids: the named arms (empty: none)
  std::vector<std::pair<std::string, std::vector<nlohmann::ordered_json>>> axes;  // in file order, seed excluded
  std::vector<std::uint64_t> seeds;              // empty (reproduction grids): the profile's 1..seeds
  std::vector<SweepMetric> metrics;              // command grids: what the summary reports
  nlohmann::ordered_json source;                 // the file as read
};

// One point of the expanded grid.
struct SweepPoint {
  std::size_t index = 0;
  std::string name;     // its folder under the sweep's, e.g. "eps/seed3" or "all/noise-0.6/seed1"; unique
  std::string arm;      // what the summary groups by: every coordinate but the seed ("eps", "all noise=0.6")
  std::string variant;  // reproduction grids: the variant ("" when the file has none)
  std::uint64_t seed = 1;
  nlohmann::ordered_json coordinates = nlohmann::ordered_json::object();  // axis -> value, the seed included
  std::vector<std::string> args;  // the dmlbench command line after the executable, absolute paths
  std::string result;             // the file (relative to its folder) whose presence marks it finished
  nlohmann::ordered_json config;  // train: the resolved run config (written beside the sweep, read by --config)
  long depends = -1;              // a point that must finish first (an arm's init_from), or -1
};

// The expansion of a grid into a sweep folder: the points, in order (variants x arms x axes in file order x seeds).
struct SweepPlan {
  SweepGrid grid;
  std::string dir;                    // the sweep folder (absolute)
  std::vector<std::string> cli_set;   // "key=value" overrides given on the command line, applied after the file's
  std::vector<SweepPoint> points;
  nlohmann::ordered_json to_json() const;  // sweep.json: the config that made it and every point
};

// Checks a `sim collapse` point's options beyond their names and types (ranges, combinations); the command line
// passes the simulation layer's own checks, so that a bad value fails before anything is written.
using SimOptionCheck = std::function<void(const nlohmann::ordered_json& options)>;

SweepGrid read_sweep_grid(const std::string& path, const std::string& repo_root);
// The same from the grid's JSON; with `reproduction_source`, a reproduction grid takes that text instead of reading
// its file (a sweep folder keeps both, so its summary never depends on a later edit).
SweepGrid parse_sweep_grid(const nlohmann::ordered_json& source, const std::string& path, const std::string& repo_root,
                           const nlohmann::ordered_json* reproduction_source = nullptr);
// Expands and resolves every point (train configs through the run-config schema, sim options by name, type and
// `check`); throws config_error before anything is written. Relative paths in the grid resolve against repo_root.
SweepPlan expand_sweep(const SweepGrid& grid, const std::string& dir, const std::vector<std::string>& cli_set,
                       const std::string& repo_root, const SimOptionCheck& check = {});

// A sweep folder's plan as `sweep.json` holds it (the grid, the command-line overrides and every point; no configs):
// what `sweep run-point`, `status` and `collect` work from. Throws std::runtime_error for a folder with no sweep.
SweepPlan read_sweep_plan(const std::string& dir, const std::string& repo_root);

// The options `sim collapse` takes in a grid (without the leading dashes) and their JSON kind: string | integer | number.
const std::vector<std::pair<std::string, std::string>>& sim_collapse_options();

// A value as a folder-name part: letters, digits, '.', '-' and '+' kept, anything else '-'.
std::string folder_part(const std::string& text);
// A coordinate's value as text: strings as they are, the rest as JSON.
std::string value_text(const nlohmann::ordered_json& v);

}  // namespace dmlbench::experiments
