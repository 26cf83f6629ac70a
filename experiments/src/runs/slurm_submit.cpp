// Submitting a job script to Slurm (`dmlbench sweep --slurm`, `dmlbench tune --slurm`): sbatch --parsable, the job id
// it prints, the script and its output kept beside the job. Torch-free.
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/slurm_array_script.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

namespace {

// sbatch on PATH when named without a folder (posix_spawn takes a path).
std::string sbatch_path(const std::string& sbatch) {
  if (sbatch.find('/') != std::string::npos) return sbatch;
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string d; std::getline(path, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / sbatch).c_str(), X_OK) == 0) return (fs::path(d) / sbatch).string();
  throw std::runtime_error(sbatch + " is not on PATH: is this a Slurm login node? (--slurm --dry-run prints the "
                           "script; --sbatch PATH names the command)");
}

std::string text_of(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

SlurmSubmission submit_slurm_script(const std::string& script, const std::string& slurm_dir, const std::string& sbatch,
                                    bool wait) {
  const fs::path sdir(slurm_dir);
  fs::create_directories(sdir);
  int k = 1;
  while (fs::exists(sdir / ("submit-" + std::to_string(k) + ".sbatch"))) ++k;
  SlurmSubmission s;
  s.script_file = (sdir / ("submit-" + std::to_string(k) + ".sbatch")).string();
  s.log_file = (sdir / ("submit-" + std::to_string(k) + ".log")).string();
  write_file_atomically(s.script_file, script);
  fs::permissions(s.script_file, fs::perms::owner_exec, fs::perm_options::add);
  std::vector<std::string> argv = {sbatch_path(sbatch), "--parsable"};
  if (wait) argv.push_back("--wait");
  argv.push_back(s.script_file);
  std::cerr << "[slurm] submitting " << s.script_file << (wait ? " (sbatch --wait: until the array ends)" : "")
            << std::endl;
  s.wait_status = run_and_wait(argv, s.log_file, false).wait_status;
  const std::string out = text_of(s.log_file);
  s.job = out.substr(0, out.find_first_of(";\n"));
  if (s.job.empty() || s.job.find_first_not_of("0123456789") != std::string::npos)  // --parsable: the job id first
    throw std::runtime_error("sbatch " + s.script_file + " submitted nothing (" +
                             (exit_description(s.wait_status).empty() ? "exit status 0"
                                                                       : exit_description(s.wait_status)) +
                             "); it said:\n" + file_tail(s.log_file, 15));
  s.ok = WIFEXITED(s.wait_status) && WEXITSTATUS(s.wait_status) == 0;
  return s;
}

}  // namespace dmlbench::experiments
