// `dmlbench report --sweep DIR`: a reproduction's runs made by `dmlbench sweep` (a cluster's job array) are collected
// into its stage instead of being run again.
#include "report_sweeps.hpp"

#include "dmlbench/experiments/sweep_state.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

// Throws unless the sweep in `dir` runs exactly what cfg's profile of its reproduction runs.
static void check_sweep_runs_the_profile(const SweepPlan& sp, const std::string& dir, const ReportConfig& cfg) {
  if (!sp.grid.reproduction)
    throw std::runtime_error("--sweep " + dir + ": the sweep " + sp.grid.name + " runs no reproduction file, so no stage "
                             "of the report can take it");
  const auto& rid = sp.grid.reproduction->id;
  if (sp.grid.profile != cfg.profile)
    throw std::runtime_error("--sweep " + dir + " ran " + rid + "'s " + sp.grid.profile + " profile; this report is the " +
                             cfg.profile + " profile");
}

// Throws when the sweep changed its profile's runs: the report states what the profile runs.
static void check_sweep_unchanged(const SweepPlan& sp, const std::string& dir, const ReportConfig& cfg) {
  const auto& rid = sp.grid.reproduction->id;
  std::vector<std::uint64_t> profile_seeds;
  for (int k = 1; k <= sp.grid.reproduction->profiles.at(sp.grid.profile).seeds; ++k) profile_seeds.push_back(k);
  if (!sp.grid.set.empty() || !sp.cli_set.empty() || sp.grid.seeds != profile_seeds || !sp.grid.arm_names.empty() ||
      !sp.grid.variant_names.empty())
    throw std::runtime_error("--sweep " + dir + " changed " + rid + "'s " + cfg.profile + " profile (overrides, seeds, "
                             "arms or variants): the report shows the profile's runs; `dmlbench sweep collect` "
                             "summarises this sweep on its own");
}

std::map<std::string, SweepPlan> report_sweeps(const ReportConfig& cfg) {
  std::map<std::string, SweepPlan> swept;  // reproduction id -> its sweep
  for (const auto& d : cfg.sweeps) {
    auto sp = read_sweep_plan(d, cfg.source_dir);
    check_sweep_runs_the_profile(sp, d, cfg);
    const auto& rid = sp.grid.reproduction->id;
    if (swept.count(rid)) throw std::runtime_error("--sweep: two sweeps of " + rid);
    check_sweep_unchanged(sp, d, cfg);
    swept.emplace(rid, std::move(sp));
  }
  return swept;
}

void collect_sweep_in_stage(Stage& s, const Reproduction& r, const SweepPlan& sp, const std::string& self,
                            const std::string& stage_dir) {
  if (sp.grid.reproduction->source != r.source)
    throw std::runtime_error("--sweep " + sp.dir + " ran another version of " + r.file + " than the one here");
  s.commands.push_back({{self, "sweep", "collect", sp.dir, "--require-complete", "--out", stage_dir + "/summary.json"},
                        false});
  s.nominal_seconds = 1;
  s.inputs = nlohmann::ordered_json::array();  // the finished results the summary is made of: rerun when one changes
  for (const auto& p : sp.points) {
    const fs::path f = fs::path(point_dir(sp, p)) / p.result;
    std::error_code ec;
    const auto t = fs::last_write_time(f, ec);
    s.inputs.push_back({p.name, ec ? -1 : (long long)fs::file_size(f, ec),
                        ec ? 0 : (long long)t.time_since_epoch().count()});
  }
}

}  // namespace dmlbench::experiments
