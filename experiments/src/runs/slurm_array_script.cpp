#include "dmlbench/experiments/slurm_array_script.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

std::string array_ranges(std::vector<std::size_t> idx) {
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  std::ostringstream o;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    if (i) o << ',';
    o << idx[i];
    if (j > i) o << '-' << idx[j];
    i = j + 1;
  }
  return o.str();
}

namespace {

std::string plain(const std::string& what, const std::string& s) {
  if (s.find_first_of(" \t\n'\"\\$`") != std::string::npos)
    throw std::invalid_argument(what + " \"" + s + "\" holds whitespace or quotes, which an #SBATCH line cannot "
                                "carry: choose another");
  return s;
}

}  // namespace

std::string slurm_job_script(const SlurmArrayJob& job, const SlurmOptions& opt, const std::string& comment) {
  const std::string dir = plain("the job's folder", job.dir);
  std::ostringstream o;
  o << "#!/bin/bash\n" << comment << (comment.empty() || comment.back() == '\n' ? "" : "\n")
    << "#SBATCH --job-name=" << plain("the job name", job.name) << "\n"
    << "#SBATCH --array=" << job.array << (opt.max_running > 0 ? "%" + std::to_string(opt.max_running) : "") << "\n"
    << "#SBATCH --output=" << dir << "/slurm/%A_%a.out\n"
    << "#SBATCH --chdir=" << dir << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << opt.cpus_per_task << "\n";
  if (!opt.time.empty()) o << "#SBATCH --time=" << plain("--time", opt.time) << "\n";
  if (!opt.partition.empty()) o << "#SBATCH --partition=" << plain("--partition", opt.partition) << "\n";
  if (!opt.mem.empty()) o << "#SBATCH --mem=" << plain("--mem", opt.mem) << "\n";
  if (!opt.gres.empty()) o << "#SBATCH --gres=" << plain("--gres", opt.gres) << "\n";
  if (!opt.account.empty()) o << "#SBATCH --account=" << plain("--account", opt.account) << "\n";
  if (!opt.qos.empty()) o << "#SBATCH --qos=" << plain("--qos", opt.qos) << "\n";
  for (const auto& e : opt.extra) o << "#SBATCH " << plain("--sbatch-option", e) << "\n";
  o << "set -eu\n"
    << "export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"  # LibTorch's (and OpenBLAS's) threads: the task's CPUs\n"
    << "exec " << job.command << "\n";
  return o.str();
}

std::string slurm_array_script(const SweepPlan& plan, const std::vector<std::size_t>& indices,
                               const SlurmOptions& opt, const std::string& git_revision) {
  if (indices.empty()) throw std::invalid_argument("a job array needs at least one point");
  const std::string dir = plain("the sweep folder", plan.dir), exe = plain("the dmlbench path", opt.dmlbench);
  const std::size_t top = *std::max_element(indices.begin(), indices.end());
  if (top > 1000)
    throw std::invalid_argument("point index " + std::to_string(top) + " is above 1000, Slurm's default MaxArraySize "
                                "- 1: split the grid into several sweeps");
  std::ostringstream c;
  c << "# dmlbench sweep " << plan.grid.name << ": " << indices.size() << " of " << plan.points.size()
    << " points as one Slurm job array (git " << git_revision << ").\n"
    << "# Task k runs point k of " << dir << "/sweep.json: a finished point is skipped, a killed training resumes from\n"
    << "# its checkpoint, and the point's log and exit status go to its folder. Afterwards:\n"
    << "#   dmlbench sweep status " << dir << "\n"
    << "#   dmlbench sweep collect " << dir << "\n";
  return slurm_job_script({"dmlbench-" + plan.grid.name, array_ranges(indices), dir,
                           exe + " sweep run-point " + dir + " \"$SLURM_ARRAY_TASK_ID\""},
                          opt, c.str());
}

}  // namespace dmlbench::experiments
