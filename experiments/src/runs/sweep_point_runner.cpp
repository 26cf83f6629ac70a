// One point of a sweep run to its end under its lock, its exit status kept (sweep_point_runner.hpp).
#include "dmlbench/experiments/sweep_point_runner.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "dmlbench/experiments/run_stamp.hpp"
#include "dmlbench/experiments/sweep_grid.hpp"
#include "dmlbench/experiments/sweep_state.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// Takes the point's lock for the rest of this process (and the command it starts); false when a task holds it.
bool lock_point(const fs::path& pdir) {
  const int fd = ::open((pdir / kSweepLock).c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + (pdir / kSweepLock).string());
  return ::flock(fd, LOCK_EX | LOCK_NB) == 0;
}

// Where the attempt runs: the host and, in a Slurm array task, its job and task ids.
struct Where {
  std::string host;
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  Where() : host(host_name()) {}
};

void write_status(const fs::path& pdir, const SweepPoint& p, long index, const std::string& desc,
                  const ChildResult& r, const Where& w, const std::string& started) {
  json st = {{"point", p.name},          {"index", index},         {"description", desc},
             {"ok", desc.empty()},       {"seconds", r.seconds},   {"host", w.host},
             {"started", started},       {"finished", utc_now_text()}, {"slurm_job", w.job ? json(w.job) : json(nullptr)},
             {"slurm_task", w.task ? json(w.task) : json(nullptr)}};
  write_file_atomically((pdir / kSweepStatus).string(), st.dump(2) + "\n");
}

}  // namespace

int run_sweep_point(const SweepPointRun& run, std::ostream& out) {
  const auto plan = read_sweep_plan(run.dir, run.repo_root);
  const long index = run.index;
  if (index < 0 || std::size_t(index) >= plan.points.size())
    throw std::invalid_argument("point " + std::to_string(index) + ": " + run.dir + " has points 0-" +
                                std::to_string(plan.points.size() - 1));
  const auto& p = plan.points[std::size_t(index)];
  const fs::path pdir = point_dir(plan, p);
  fs::create_directories(pdir);
  if (!lock_point(pdir)) {
    out << "[sweep] point " << p.name << " is being run by another task; this one leaves it\n";
    return 0;
  }
  if (fs::is_regular_file(pdir / p.result)) {
    out << "[sweep] point " << p.name << " has finished already (" << p.result << ")\n";
    return 0;
  }
  if (p.depends >= 0) {
    const auto& d = plan.points[std::size_t(p.depends)];
    if (!fs::is_regular_file(fs::path(point_dir(plan, d)) / d.result))
      throw std::runtime_error("point " + p.name + " starts from point " + d.name + "'s weights, which has not finished");
  }
  fs::remove(pdir / kSweepStatus);
  const Where where;
  const std::string log = (pdir / kSweepLog).string();
  {
    std::ofstream l(log, std::ios::app);
    l << "=== dmlbench sweep run-point " << index << " (" << p.name << ") on " << where.host << " at " << utc_now_text()
      << (where.job ? std::string(", Slurm job ") + where.job + "_" + (where.task ? where.task : "") : std::string())
      << "\n";
  }
  std::vector<std::string> argv = {run.dmlbench};
  argv.insert(argv.end(), p.args.begin(), p.args.end());
  const std::string started = utc_now_text();
  // Slurm's time limit / scancel: passed on, then the status is recorded (the command saves nothing partial: it
  // checkpoints per epoch)
  const ChildResult r = run_and_wait(argv, log, true, true);
  std::string desc = r.description;
  if (desc.empty() && !fs::is_regular_file(pdir / p.result)) desc = "exited 0 without writing " + p.result;
  write_status(pdir, p, index, desc, r, where, started);
  out << "[sweep] point " << p.name << (desc.empty() ? " finished" : " failed: " + desc) << " ("
      << seconds_text(r.seconds) << ")\n";
  return desc.empty() ? 0 : 1;
}

}  // namespace dmlbench::experiments
