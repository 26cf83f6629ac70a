// dmlbench sweep: a grid of runs (experiments/sweeps/*.json) here, N at a time, or as one Slurm job array; its status
// and its merged summary.
#include "commands.hpp"
#include "repository_dir.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/folder_lock.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/run_stamp.hpp"
#include "dmlbench/experiments/slurm_array_script.hpp"
#include "dmlbench/experiments/sweep_grid.hpp"
#include "dmlbench/experiments/sweep_point_runner.hpp"
#include "dmlbench/experiments/sweep_state.hpp"

#include <nlohmann/json.hpp>

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kRepo = dmlbench::app::repository_dir();

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

std::string read_text(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SweepRequest {
  std::string grid, out;
  std::vector<std::string> set;
  bool local = false, slurm = false, dry_run = false, wait = false, list = false, prepare = false;
  int jobs = 1;
  std::string sbatch = "sbatch";
  ex::SlurmOptions slurm_options;
};

// Writes sweep.json, or checks that the folder's is the same sweep (a resubmission): a folder never holds two sweeps,
// so two tasks never write one point's folder for different grids.
void adopt_folder(const ex::SweepPlan& plan) {
  const fs::path f = fs::path(plan.dir) / "sweep.json";
  json mine = plan.to_json();
  mine["git_revision"] = DMLBENCH_GIT_REV;
  if (fs::exists(f)) {
    json theirs;
    try {
      theirs = json::parse(read_text(f));
    } catch (const json::exception&) {
      throw std::runtime_error(f.string() + " is not valid JSON: not a sweep folder this command may write into");
    }
    if (theirs.value("points", json()) != mine["points"] || theirs.value("config", json()) != mine["config"])
      throw std::runtime_error(plan.dir + " holds another sweep (" + theirs.value("name", std::string("?")) +
                               ", other points or overrides): choose another --out, or remove it");
    return;
  }
  const auto other_than_the_lock = [](const fs::directory_entry& e) { return e.path().filename() != ex::kFolderLockName; };
  if (fs::exists(plan.dir) && std::any_of(fs::directory_iterator(plan.dir), fs::directory_iterator(), other_than_the_lock))
    throw std::runtime_error(plan.dir + " exists and holds no sweep.json: choose an empty or new --out");
  ex::write_file_atomically(f.string(), mine.dump(2) + "\n");
}

// The points that a run or a submission takes: every one not finished and not being run by a task now.
std::vector<std::size_t> pending_points(const ex::SweepPlan& plan, std::size_t* done_before) {
  std::vector<std::size_t> out;
  std::size_t done = 0;
  for (const auto& p : plan.points) {
    const auto st = ex::point_status(plan, p, 0).state;
    if (st == ex::PointState::done) ++done;
    if (st != ex::PointState::done && st != ex::PointState::running) out.push_back(p.index);
  }
  if (done_before) *done_before = done;
  return out;
}

int collect(const ex::SweepPlan& plan, const std::string& out_file, bool require_complete) {
  std::string table;
  const json summary = ex::collect_sweep(plan, DMLBENCH_GIT_REV, &table);
  const std::string f = out_file.empty() ? plan.dir + "/summary.json" : out_file;
  std::cout << table;
  const bool complete = summary["sweep"]["done"].get<std::size_t>() == plan.points.size();
  if (require_complete && !complete) {
    std::cerr << "dmlbench: error: --require-complete: " << plan.points.size() - summary["sweep"]["done"].get<std::size_t>()
              << " of " << plan.points.size() << " points of " << plan.dir << " have not finished; nothing written\n";
    return 1;
  }
  ex::write_file_atomically(f, summary.dump(2) + "\n");
  std::cout << "wrote " << f << "\n";
  return 0;
}

// The pending points as jobs of a pool, each `dmlbench sweep run-point DIR k` (the same as a Slurm task) with its
// output appended to the point's log. One that starts from another point's weights runs after it; one whose point is
// being run by another task now is held.
std::vector<ex::PoolJob> point_jobs(const ex::SweepPlan& plan, const std::vector<std::size_t>& todo) {
  const std::string exe = self_exe();
  std::map<std::size_t, long> job_of;  // point -> its job
  for (std::size_t j = 0; j < todo.size(); ++j) job_of[todo[j]] = long(j);
  std::vector<ex::PoolJob> jobs;
  for (const auto i : todo) {
    const auto& p = plan.points[i];
    ex::PoolJob job{{exe, "sweep", "run-point", plan.dir, std::to_string(i)},
                    ex::point_dir(plan, p) + "/" + ex::kSweepLog, true, -1, false};
    if (p.depends >= 0) {
      const auto dep = job_of.find(std::size_t(p.depends));
      if (dep != job_of.end())
        job.after = dep->second;
      else  // finished before, or another task runs it now
        job.held = ex::point_status(plan, plan.points[std::size_t(p.depends)], 0).state != ex::PointState::done;
    }
    jobs.push_back(job);
  }
  return jobs;
}

// A full disk can leave a failed point without its status, and even without its log (its error written nowhere): the
// sweep's last line says so when the sweep folder's filesystem has no room left.
std::string full_disk_note(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return "";
  const std::uintmax_t free_bytes = std::uintmax_t(st.f_bavail) * st.f_frsize;
  if (free_bytes >= (1u << 20)) return "";
  return " (No space left on device: " + std::to_string(free_bytes) +
         " bytes free on its filesystem; the points' checkpoints are kept, rerun the sweep once there is room)";
}

// Runs the pending points here, `jobs` at a time.
int run_local(const ex::SweepPlan& plan, int jobs) {
  std::size_t done_before = 0;
  const auto todo = pending_points(plan, &done_before);
  const std::size_t n = plan.points.size();
  std::cerr << "[sweep] " << plan.grid.name << ": " << todo.size() << " of " << n << " points to run, " << jobs
            << " at a time (" << done_before << " finished before; " << plan.dir << ")" << std::endl;
  // one progress line for the whole grid: rewritten in place on a terminal, a line per finished point in a log
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  ex::PoolOptions o;
  o.jobs = jobs;
  o.what = "the sweep";
  o.progress_in_place = tty;
  o.succeeded = [&](std::size_t j, const ex::ChildResult& r) {
    return r.ok() && ex::point_status(plan, plan.points[todo[j]], 0).state == ex::PointState::done;
  };
  o.on_finish = [&](std::size_t j, const ex::JobOutcome& out) {
    const auto& p = plan.points[todo[j]];
    if (out.state == ex::JobState::skipped)
      std::cerr << "[sweep] " << p.name << " skipped: it starts from " << plan.points[std::size_t(p.depends)].name
                << ", which failed" << std::endl;
    if (out.state != ex::JobState::failed) return;
    const auto st = ex::point_status(plan, p);
    std::cerr << (tty ? "\r\033[K" : "") << "[sweep] " << p.name << " failed (" << st.detail << "); its log ends:\n"
              << st.log_tail;
  };
  o.progress_text = [&](const ex::PoolProgress& pr) {
    std::string t = "[sweep] " + plan.grid.name + ": " + std::to_string(done_before + pr.finished - pr.failed) + "/" +
                    std::to_string(n) + " points finished (this run " + std::to_string(pr.finished) + "/" +
                    std::to_string(pr.total) + ", " + std::to_string(pr.failed) + " failed), " +
                    ex::seconds_text(pr.seconds);
    if (pr.finished > 0 && pr.finished < pr.total) t += ", ETA " + ex::seconds_text(pr.eta_seconds());
    return t;
  };
  const auto r = ex::run_pool(point_jobs(plan, todo), o);
  const std::size_t finished = todo.size() - r.not_started, failed = r.failed + r.skipped;
  if (finished < todo.size())
    std::cerr << "[sweep] " << todo.size() - finished << " points wait for points another task is running; run the "
              << "sweep again once it has finished" << std::endl;
  if (done_before + finished - failed == 0) {
    std::cerr << "dmlbench: error: no point of " << plan.dir << " finished" << full_disk_note(plan.dir) << "\n";
    return 1;
  }
  const int rc = collect(plan, "", false);
  return failed > 0 ? 1 : rc;
}

int submit_slurm(const ex::SweepPlan& plan, const SweepRequest& q) {
  std::size_t done_before = 0;
  const auto todo = pending_points(plan, &done_before);
  if (todo.empty()) {
    std::cout << "nothing to submit: " << done_before << " of " << plan.points.size() << " points of " << plan.dir
              << " have finished and the others are running\n";
    return 0;
  }
  for (const auto i : todo)
    if (plan.points[i].depends >= 0)
      throw std::runtime_error("point " + plan.points[i].name + " starts from point " +
                               plan.points[std::size_t(plan.points[i].depends)].name +
                               "'s weights, which one job array cannot order: run that arm first (\"arms\" in the grid, "
                               "or --local)");
  const std::string script = ex::slurm_array_script(plan, todo, q.slurm_options, DMLBENCH_GIT_REV);
  if (q.dry_run) {
    std::cout << script;
    std::cerr << "[sweep] --dry-run: " << todo.size() << " of " << plan.points.size()
              << " points would be submitted; nothing written\n";
    return 0;
  }
  const fs::path sdir = fs::path(plan.dir) / "slurm";
  std::cerr << "[sweep] submitting " << todo.size() << " of " << plan.points.size() << " points" << std::endl;
  const auto sub = ex::submit_slurm_script(script, sdir.string(), q.sbatch, q.wait);
  const auto& job = sub.job;
  const int status = sub.wait_status;
  const fs::path file = sub.script_file, log = sub.log_file;
  json subs = json::array();
  if (fs::exists(sdir / "submissions.json")) subs = json::parse(read_text(sdir / "submissions.json"));
  subs.push_back({{"script", file.string()}, {"job", job}, {"points", todo}, {"submitted", ex::utc_now_text()},
                  {"sbatch", ex::exit_description(status)}});
  ex::write_file_atomically((sdir / "submissions.json").string(), subs.dump(2) + "\n");
  if (!q.wait && !sub.ok)
    throw std::runtime_error("sbatch " + file.string() + " failed (" + ex::exit_description(status) + "):\n" +
                             ex::file_tail(log.string(), 15));
  std::cout << "submitted Slurm job " << job << ": " << todo.size() << " array tasks (" << file.string() << ")\n";
  if (!q.wait) {
    std::cout << "follow it with: dmlbench sweep status " << plan.dir << "; merge with: dmlbench sweep collect "
              << plan.dir << "\n";
    return 0;
  }
  // sbatch --wait returns when every task has ended (non-zero when one failed): then merge what finished
  return collect(plan, "", false) != 0 || !sub.ok ? 1 : 0;
}

int print_status(const ex::SweepPlan& plan) {
  std::map<std::string, int> counts;
  std::ostringstream details;
  for (const auto& p : plan.points) {
    const auto st = ex::point_status(plan, p);
    ++counts[ex::state_name(st.state)];
    std::cout << std::left << std::setw(12) << ex::state_name(st.state) << p.name
              << (st.detail.empty() ? "" : "  (" + st.detail + ")") << "\n";
    if (!st.log_tail.empty()) std::cout << st.log_tail;
  }
  std::cout << plan.grid.name << ": " << plan.points.size() << " points";
  for (const char* s : {"done", "failed", "running", "interrupted", "missing"})
    if (counts[s]) std::cout << ", " << counts[s] << " " << s;
  std::cout << "\n";
  const fs::path subs = fs::path(plan.dir) / "slurm" / "submissions.json";
  if (fs::exists(subs))
    for (const auto& s : json::parse(read_text(subs)))
      std::cout << "Slurm job " << s.value("job", std::string()) << ": " << s["points"].size() << " points, submitted "
                << s.value("submitted", std::string()) << "\n";
  return 0;
}

// The options of `sweep --grid F`: what to run, where, and how (here N at a time, or as a Slurm job array).
void add_sweep_options(CLI::App* sw, SweepRequest& q) {
  sw->add_option("--grid", q.grid, "the grid file: a base run plus axes (experiments/sweeps/)");
  sw->add_option("--out", q.out, "the sweep folder (default: out/sweeps/<grid name> in the repository)");
  sw->add_option("--set", q.set, "key=value overrides of every point (config keys for train, options for sim "
                                 "collapse), after the grid's");
  sw->add_flag("--list", q.list, "print the points (name, arm, command) and exit");
  sw->add_flag("--prepare", q.prepare, "write the sweep folder (sweep.json, each training point's run_config.json) "
                                      "and exit: for running the points by other means (`sweep run-point DIR k`)");
  sw->add_flag("--local", q.local, "run the unfinished points on this machine");
  sw->add_option("--jobs", q.jobs, "--local: points at a time, each its own process")->capture_default_str();
  sw->add_flag("--slurm", q.slurm, "submit the unfinished points as one sbatch --array job");
  sw->add_flag("--dry-run", q.dry_run, "--slurm: print the job script, submit and write nothing");
  sw->add_flag("--wait", q.wait, "--slurm: return when the array has ended (sbatch --wait), then collect");
  sw->add_option("--partition", q.slurm_options.partition, "--slurm: #SBATCH --partition");
  sw->add_option("--time", q.slurm_options.time, "--slurm: each task's time limit (#SBATCH --time, e.g. 2:00:00)");
  sw->add_option("--cpus-per-task", q.slurm_options.cpus_per_task, "--slurm: #SBATCH --cpus-per-task")
      ->capture_default_str();
  sw->add_option("--mem", q.slurm_options.mem, "--slurm: #SBATCH --mem (e.g. 8G)");
  sw->add_option("--gres", q.slurm_options.gres, "--slurm: #SBATCH --gres (e.g. gpu:1)");
  sw->add_option("--account", q.slurm_options.account, "--slurm: #SBATCH --account");
  sw->add_option("--qos", q.slurm_options.qos, "--slurm: #SBATCH --qos");
  sw->add_option("--max-running", q.slurm_options.max_running, "--slurm: at most this many tasks at once (--array %N)");
  sw->add_option("--sbatch-option", q.slurm_options.extra, "--slurm: further #SBATCH lines (e.g. --constraint=a100)");
  sw->add_option("--sbatch", q.sbatch, "--slurm: the sbatch command")->capture_default_str();
  sw->add_option("--dmlbench", q.slurm_options.dmlbench, "--slurm: the dmlbench the tasks run (default: this one)");
}

// `sweep status DIR`, `sweep collect DIR` and `sweep run-point DIR k`.
void add_sweep_folder_commands(CLI::App* sw, int& exit_code) {
  auto* st = sw->add_subcommand("status", "which points are done, failed (with their log tail), running or missing");
  auto st_dir = std::make_shared<std::string>();
  st->add_option("dir", *st_dir, "the sweep folder")->required();
  st->callback([st_dir, &exit_code] { exit_code = print_status(ex::read_sweep_plan(*st_dir, kRepo)); });

  auto* co = sw->add_subcommand("collect", "merge the finished points into summary.json (mean +- std per arm, the "
                                           "reproduction's verdicts); failed points are listed with their log tail");
  struct CollectArgs {
    std::string dir, out;
    bool require_complete = false;
  };
  auto ca = std::make_shared<CollectArgs>();
  co->add_option("dir", ca->dir, "the sweep folder")->required();
  co->add_option("--out", ca->out, "the summary file (default: <dir>/summary.json)");
  co->add_flag("--require-complete", ca->require_complete, "fail, writing nothing, unless every point has finished");
  co->callback([ca, &exit_code] {
    exit_code = collect(ex::read_sweep_plan(ca->dir, kRepo), ca->out.empty() ? "" : fs::absolute(ca->out).string(),
                        ca->require_complete);
  });

  auto* rp = sw->add_subcommand("run-point", "run one point of a sweep folder (what each Slurm array task runs)");
  auto rp_dir = std::make_shared<std::string>();
  auto rp_index = std::make_shared<long>(-1);
  rp->add_option("dir", *rp_dir, "the sweep folder")->required();
  rp->add_option("index", *rp_index, "the point's index in sweep.json")->required();
  rp->callback([rp_dir, rp_index, &exit_code] {
    exit_code = ex::run_sweep_point({*rp_dir, *rp_index, kRepo, self_exe()}, std::cout);
  });
}

// Throws std::invalid_argument for a request that is not one whole thing to do.
void check_sweep_request(const SweepRequest& q) {
  if (q.grid.empty()) throw std::invalid_argument("sweep: --grid FILE is required (or sweep status|collect DIR)");
  if (int(q.local) + int(q.slurm) + int(q.list) + int(q.prepare) != 1)
    throw std::invalid_argument("sweep: give exactly one of --local, --slurm, --list and --prepare");
  if (q.jobs < 1) throw std::invalid_argument("--jobs must be >= 1, got " + std::to_string(q.jobs));
  if (q.slurm_options.cpus_per_task < 1) throw std::invalid_argument("--cpus-per-task must be >= 1");
  if (q.slurm_options.max_running < 0) throw std::invalid_argument("--max-running must be >= 0");
  if ((q.dry_run || q.wait) && !q.slurm) throw std::invalid_argument("--dry-run and --wait go with --slurm");
}

// `sweep --list`: each point's index, name and command line, then how many.
void print_points(const ex::SweepPlan& plan) {
  for (const auto& p : plan.points) {
    std::cout << std::left << std::setw(5) << p.index << std::setw(40) << p.name << " dmlbench";
    for (const auto& a : p.args) std::cout << ' ' << a;
    std::cout << "\n";
  }
  std::cout << plan.points.size() << " points\n";
}

// Throws config_error for a training point whose data folder is not there.
void check_data_dirs(const ex::SweepPlan& plan) {
  for (const auto& p : plan.points) {
    const std::string d = p.config["dataset"]["data_dir"].get<std::string>();
    if (!fs::is_directory(d))
      throw ex::config_error("point " + p.name + ": dataset.data_dir " + d + " is not a folder (scripts/fetch_data.sh "
                             "fetches the bundled MNIST digits, `dmlbench data make-glyphs` renders the glyph proxy)");
  }
}

// Each unfinished train point's resolved config, read by its `train --config` (rewritten only when it changed).
void write_point_configs(const ex::SweepPlan& plan) {
  for (const auto& p : plan.points)
    if (!p.config.is_null() && ex::point_status(plan, p, 0).state != ex::PointState::done) {
      const fs::path f = fs::path(ex::point_dir(plan, p)) / "run_config.json";
      const std::string text = p.config.dump(2) + "\n";
      if (!fs::exists(f) || read_text(f) != text) ex::write_file_atomically(f.string(), text);
    }
}

// `sweep --grid F`: expands the grid, then lists, prepares, runs or submits its points (exit_code: theirs).
void run_sweep(const SweepRequest& q, int& exit_code) {
  check_sweep_request(q);
  const auto grid = ex::read_sweep_grid(fs::absolute(q.grid).string(), kRepo);
  const std::string out = q.out.empty() ? kRepo + "/out/sweeps/" + grid.name : fs::absolute(q.out).string();
  const auto plan = ex::expand_sweep(grid, out, q.set, kRepo, check_collapse_options);
  if (q.list) {
    print_points(plan);
    return;
  }
  if (grid.command == "train" && !q.dry_run) check_data_dirs(plan);
  if (q.slurm && q.dry_run) {
    auto o = q.slurm_options;
    if (o.dmlbench.empty()) o.dmlbench = self_exe();
    auto r = q;
    r.slurm_options = o;
    exit_code = submit_slurm(plan, r);
    return;
  }
  const auto lock = ex::FolderLock::take(plan.dir);  // one sweep driver per folder
  adopt_folder(plan);
  write_point_configs(plan);
  if (q.prepare) {
    std::cout << "wrote " << plan.dir << "/sweep.json: " << plan.points.size()
              << " points; each runs with `dmlbench sweep run-point " << plan.dir << " <index>`\n";
    return;
  }
  if (q.local) {
    exit_code = run_local(plan, q.jobs);
    return;
  }
  auto r = q;
  if (r.slurm_options.dmlbench.empty()) r.slurm_options.dmlbench = self_exe();
  exit_code = submit_slurm(plan, r);
}

}  // namespace

void add_sweep_commands(CLI::App& app, int& exit_code) {
  auto* sw = app.add_subcommand("sweep", "a grid of runs (experiments/sweeps/*.json) here, N at a time, or as one "
                                         "Slurm job array; `sweep status|collect DIR` after");
  sw->require_subcommand(0, 1);
  auto q = std::make_shared<SweepRequest>();
  add_sweep_options(sw, *q);
  add_sweep_folder_commands(sw, exit_code);
  sw->callback([sw, q, &exit_code] {
    if (!sw->get_subcommands().empty()) return;  // status, collect or run-point ran
    run_sweep(*q, exit_code);
  });
}

}  // namespace dmlbench::app
