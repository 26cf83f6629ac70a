// The Slurm job script of a sweep (issue 16): one `sbatch --array` whose task k runs point k through
// `dmlbench sweep run-point DIR k`. Torch-free; the text only, `dmlbench sweep --slurm` submits it.
#pragma once

#include "dmlbench/experiments/sweep_grid.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct SlurmOptions {
  std::string partition, time, mem, account, qos, gres;  // empty: the cluster's default
  int cpus_per_task = 1;
  int max_running = 0;  // the array's %N throttle (0: none)
  std::vector<std::string> extra;  // further #SBATCH options, as written ("--constraint=a100")
  std::string dmlbench;            // the executable the tasks run (on the compute nodes)
};

// Indices as Slurm's --array list: sorted, runs collapsed ("0-3,5,7-9").
std::string array_ranges(std::vector<std::size_t> indices);

// The job script for the given points of the plan. Throws std::invalid_argument for a sweep folder or executable
// path an #SBATCH line cannot hold (whitespace, quotes), or an index list longer than Slurm's default array size.
std::string slurm_array_script(const SweepPlan& plan, const std::vector<std::size_t>& indices,
                               const SlurmOptions& options, const std::string& git_revision);

}  // namespace dmlbench::experiments
