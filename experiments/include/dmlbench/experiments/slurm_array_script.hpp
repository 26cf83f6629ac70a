// The Slurm job script of a sweep: one `sbatch --array` whose task k runs point k through
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

// One job array: its name, --array list, folder (its logs go to <dir>/slurm/) and the command each task execs.
struct SlurmArrayJob {
  std::string name, array, dir, command;
};
// Its job script: `comment` (lines starting with '#'), the #SBATCH lines of the job and the options, then the command
// with OMP_NUM_THREADS set to the task's CPUs. Throws std::invalid_argument for a name, folder or option that an
// #SBATCH line cannot hold (whitespace, quotes).
std::string slurm_job_script(const SlurmArrayJob& job, const SlurmOptions& options, const std::string& comment);

// Submits a job script with `sbatch --parsable [--wait]` (sbatch found on PATH unless a path): the script and the
// submission's output are kept as <slurm_dir>/submit-<k>.sbatch and .log. Throws std::runtime_error when sbatch is
// missing or submitted nothing (with its output); `ok` is false when it (or, with --wait, the array) failed.
struct SlurmSubmission {
  std::string job, script_file, log_file;
  int wait_status = 0;
  bool ok = false;
};
SlurmSubmission submit_slurm_script(const std::string& script, const std::string& slurm_dir, const std::string& sbatch,
                                    bool wait);

// The job script for the given points of the plan. Throws std::invalid_argument for a sweep folder or executable
// path an #SBATCH line cannot hold (whitespace, quotes), or an index list longer than Slurm's default array size.
std::string slurm_array_script(const SweepPlan& plan, const std::vector<std::size_t>& indices,
                               const SlurmOptions& options, const std::string& git_revision);

}  // namespace dmlbench::experiments
