// `dmlbench tune --file R --out DIR`: the reproduction's tuning block checked (tuning_plan.hpp), DIR/plan.json
// written (a folder whose study has another space is refused), N Optuna workers run (scripts/optuna_tune.py work,
// sharing the study's journal file; locally or as a Slurm array), then the study collected into one results file.
#include "tune_command.hpp"
#include "repository_dir.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/code_sets.hpp"
#include "dmlbench/experiments/folder_lock.hpp"
#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "dmlbench/experiments/slurm_array_script.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kRepo = dmlbench::app::repository_dir();
const std::string kPython = "/usr/bin/python3";  // Debian's, with python3-optuna (scripts/setup.sh)

struct TuneRequest {
  std::string file, out, write, collect_dir;
  int jobs = 1, trials = 0, threads = 1;
  bool slurm = false, wait = false, dry_run = false;
  std::string sbatch = "sbatch";
  SlurmOptions slurm_options;
};

std::string driver() { return (fs::path(kRepo) / "scripts" / "optuna_tune.py").string(); }

// DIR/plan.json: written on the first tune into DIR; a later tune must bring the same study (space hash).
void write_plan(const json& plan, const std::string& dir) {
  const fs::path file = fs::path(dir) / "plan.json";
  if (fs::exists(file)) {
    const auto old = read_json_file(file.string(), "the tune folder's plan");
    if (old.value("space_hash", "") != plan["space_hash"].get<std::string>())
      throw config_error("--out " + dir + " holds a study of another search space, budget or folds (plan.json's "
                         "space_hash " + old.value("space_hash", "?") + ", this one's " +
                         plan["space_hash"].get<std::string>() + "): choose another folder");
    std::cerr << "[tune] resuming the study in " << dir << std::endl;
  }
  fs::create_directories(dir);
  write_file_atomically(file.string(), plan.dump(2) + "\n");
}

// The results file: the study collected by the driver (refused while an arm lacks trials).
int collect(const std::string& dir, const std::string& write) {
  fs::create_directories(fs::absolute(write).parent_path());
  const auto r = run_and_wait({kPython, driver(), "collect", dir, "--out", write}, "", false);
  if (!r.ok()) return r.exit_code() > 0 ? r.exit_code() : 1;
  std::cout << "wrote " << write << "\n";
  return 0;
}

int run_local_workers(const TuneRequest& q) {
  std::vector<PoolJob> jobs;
  for (int k = 0; k < q.jobs; ++k)
    jobs.push_back({{kPython, driver(), "work", q.out, "--worker", "local-" + std::to_string(k)},
                    (fs::path(q.out) / ("worker-" + std::to_string(k) + ".log")).string(), true, -1, false});
  PoolOptions o;
  o.jobs = q.jobs;
  o.what = "the tuning workers";
  o.on_start = [&](std::size_t k) { std::cerr << "[tune] worker " << k << " started (log " << jobs[k].log_path << ")\n"; };
  const auto r = run_pool(jobs, o);
  for (std::size_t k = 0; k < r.jobs.size(); ++k)
    if (r.jobs[k].state == JobState::failed)
      std::cerr << "[tune] worker " << k << " failed (" << r.jobs[k].result.description << "):\n" << r.jobs[k].log_tail;
  return r.failed > 0 ? 1 : 0;
}

// The job array of q.jobs workers, each `optuna_tune.py work DIR` on its task's CPUs.
int run_slurm_workers(const TuneRequest& q, const std::string& name) {
  SlurmArrayJob job{"dmlbench-tune-" + name, "0-" + std::to_string(q.jobs - 1), q.out,
                    kPython + " " + driver() + " work " + q.out + " --worker slurm-\"$SLURM_ARRAY_TASK_ID\""};
  const auto script = slurm_job_script(job, q.slurm_options,
                                       "# dmlbench tune " + name + ": " + std::to_string(q.jobs) +
                                           " Optuna workers sharing " + q.out + "/study.journal (git " +
                                           DMLBENCH_GIT_REV + "). Afterwards: dmlbench tune --collect " + q.out);
  if (q.dry_run) {
    std::cout << script;
    return 0;
  }
  const auto sub = submit_slurm_script(script, (fs::path(q.out) / "slurm").string(), q.sbatch, q.wait);
  std::cout << "submitted Slurm job " << sub.job << ": " << q.jobs << " tuning workers\n";
  if (!q.wait) {
    std::cout << "collect with: dmlbench tune --collect " << q.out << " --write FILE\n";
    return 0;
  }
  return sub.ok ? 0 : 1;
}

int tune(TuneRequest q) {
  if (!q.collect_dir.empty()) {
    const auto lock = FolderLock::take(q.collect_dir);  // one writer per study folder
    return collect(q.collect_dir, q.write.empty() ? q.collect_dir + "/tuned.json" : q.write);
  }
  if (q.file.empty() || q.out.empty()) throw config_error("tune: --file and --out are required (or --collect DIR)");
  const auto r = read_reproduction(q.file, kRepo);
  auto t = read_tuning_spec(r, kRepo);
  if (q.trials > 0) t.trials_per_arm = q.trials;
  q.out = fs::absolute(q.out).lexically_normal().string();
  if (q.write.empty()) q.write = q.out + "/tuned.json";
  const auto tuned_dir = (fs::path(kRepo) / "experiments" / "tuned").lexically_normal();
  if (q.trials > 0 && fs::absolute(q.write).lexically_normal().parent_path() == tuned_dir)
    throw config_error("--trials changes the file's budget: its results do not belong in experiments/tuned/");
  const auto c = load_run_config(r.config, t.arms.front().overrides, kRepo);
  if (!fs::is_directory(c.dataset.data_dir))
    throw config_error("dataset.data_dir " + c.dataset.data_dir + " is not a folder (" + r.config + ")");
  const auto name = fs::path(q.file).stem().string();
  auto plan = tuning_plan_json(t, r, name, fs::read_symlink("/proc/self/exe").string(), DMLBENCH_GIT_REV,
                               describe_blas(), q.threads);
  plan["reproduction_file"] = fs::absolute(q.file).lexically_proximate(kRepo).string();
  plan["trainer_code"] = code_fingerprint(kRepo, "trainer").hash;  // the code the study searches
  std::optional<FolderLock> lock;  // one tune per study folder; --dry-run writes nothing
  if (!(q.slurm && q.dry_run)) {
    lock = FolderLock::take(q.out);
    write_plan(plan, q.out);
  }
  std::cerr << "[tune] " << name << ": " << t.arms.size() << " arms x " << t.trials_per_arm << " trials x " << t.folds
            << " folds, up to " << t.epochs << " epochs (patience " << t.patience << "), objective " << t.objective
            << "; " << q.jobs << " worker" << (q.jobs == 1 ? "" : "s") << std::endl;
  const int rc = q.slurm ? run_slurm_workers(q, name) : run_local_workers(q);
  if (rc != 0 || (q.slurm && !q.wait)) return rc;
  return collect(q.out, q.write);
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* tu = app.add_subcommand("tune", "search each arm's hyperparameters with the same trial budget on "
                                        "class-disjoint folds of the training classes (Optuna TPE)");
  auto q = std::make_shared<TuneRequest>();
  tu->add_option("--file", q->file, "reproduction file with a \"tuning\" block (experiments/tuning.md)");
  tu->add_option("--out", q->out, "the study's folder (plan.json, study.journal, trials/); a killed tune resumes there");
  tu->add_option("--write", q->write, "the results file (default: <out>/tuned.json; the committed ones are "
                                      "experiments/tuned/<reproduction>.json)");
  tu->add_option("--jobs", q->jobs, "workers sharing the study (local processes, or Slurm array tasks)")
      ->capture_default_str();
  tu->add_option("--threads", q->threads, "threads of each trial's training process")->capture_default_str();
  tu->add_option("--trials", q->trials, "trials per arm instead of the file's (smoke runs; not for experiments/tuned/)");
  tu->add_option("--collect", q->collect_dir, "only collect the study of this folder into --write (after --slurm)");
  tu->add_flag("--slurm", q->slurm, "run the workers as one sbatch --array job");
  tu->add_flag("--wait", q->wait, "--slurm: wait for the array (sbatch --wait), then collect");
  tu->add_flag("--dry-run", q->dry_run, "--slurm: print the job script, submit nothing");
  tu->add_option("--sbatch", q->sbatch, "--slurm: the sbatch command")->capture_default_str();
  tu->add_option("--partition", q->slurm_options.partition, "--slurm: partition");
  tu->add_option("--time", q->slurm_options.time, "--slurm: time limit per task");
  tu->add_option("--cpus-per-task", q->slurm_options.cpus_per_task, "--slurm: CPUs per task")->capture_default_str();
  tu->callback([q] {
    if (q->jobs < 1 || q->threads < 1 || q->trials < 0) throw config_error("--jobs and --threads must be >= 1, --trials >= 0");
    const int rc = tune(*q);
    if (rc != 0) throw std::runtime_error("tune ended with exit status " + std::to_string(rc) + " (see above)");
  });
}

}  // namespace dmlbench::experiments
