// A pool of child processes run at most N at a time, with a progress line and an ETA (process_pool.hpp).
#include "dmlbench/experiments/process_pool.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

double PoolProgress::eta_seconds() const {
  return finished == 0 ? 0.0 : seconds / double(finished) * double(total - finished);
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(0) << s << " s";
  return o.str();
}

namespace {

// One run of a pool: its jobs' outcomes, the running children, the counts.
class PoolRun {
 public:
  PoolRun(const std::vector<PoolJob>& jobs, const PoolOptions& opt)
      : jobs_(jobs), opt_(opt), t0_(std::chrono::steady_clock::now()) {
    result_.jobs.resize(jobs.size());
    started_.resize(jobs.size(), false);
  }

  // While a pool runs, a SIGTERM sent to this process alone (kill PID, timeout(1), a batch system) is passed on to
  // the running children, no other job starts, and once they have ended this process ends by the same signal, as it
  // would have without the pool: no child is left running with no parent (they were: `kill` of a tune left its
  // workers training). SIGINT is left alone: a terminal's Ctrl-C reaches the children itself, in this process group.
  PoolResult run() {
    SignalRelay relay({SIGTERM});
    for (;;) {
      if (!relay.received() && !(opt_.stop_on_failure && result_.failed > 0)) start_ready();
      if (relay.received()) {
        std::vector<pid_t> children;
        for (const auto& r : running_) children.push_back(r.first);
        relay.pass_on(children);
      }
      if (running_.empty()) break;
      wait_one(relay);
    }
    if (relay.received()) relay.end_like_the_signal();
    for (const auto& o : result_.jobs) result_.not_started += o.state == JobState::not_started ? 1 : 0;
    return result_;
  }

 private:
  // Starts jobs in list order while there is room; a job whose `after` failed is skipped.
  void start_ready() {
    for (std::size_t i = first_open_; i < jobs_.size() && int(running_.size()) < opt_.jobs; ++i) {
      if (started_[i] || jobs_[i].held) continue;
      const long after = jobs_[i].after;
      if (after >= 0) {
        const JobState s = result_.jobs[std::size_t(after)].state;
        if (s == JobState::failed || s == JobState::skipped) {
          started_[i] = true;
          result_.jobs[i].state = JobState::skipped;
          ++result_.skipped;
          ++finished_;
          if (opt_.on_finish) opt_.on_finish(i, result_.jobs[i]);
          continue;
        }
        if (s != JobState::succeeded) continue;
      }
      const PoolJob& job = jobs_[i];
      const fs::path folder = fs::path(job.log_path).parent_path();
      if (!folder.empty()) fs::create_directories(folder);
      if (opt_.on_start) opt_.on_start(i);
      running_[start_process(job.argv, job.log_path, job.append_log)] = {i, std::chrono::steady_clock::now()};
      started_[i] = true;
    }
    while (first_open_ < jobs_.size() && started_[first_open_]) ++first_open_;
  }

  // Waits for one of the pool's children to end and records it; returns at once for a signal not yet passed on.
  void wait_one(SignalRelay& relay) {
    int status = 0;
    if (opt_.before_wait) opt_.before_wait();
    const pid_t pid = relay.wait_child(-1, &status);
    if (pid == 0) return;  // a signal: the loop passes it on
    if (pid < 0) throw std::runtime_error("waitpid failed while running " + opt_.what + ": " + std::strerror(errno));
    const auto it = running_.find(pid);
    if (it == running_.end()) return;  // not one of ours
    const std::size_t i = it->second.job;
    JobOutcome& o = result_.jobs[i];
    o.result.wait_status = status;
    o.result.description = exit_description(status);
    o.result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start).count();
    running_.erase(it);
    const bool ok = opt_.succeeded ? opt_.succeeded(i, o.result) : o.result.ok();
    o.state = ok ? JobState::succeeded : JobState::failed;
    ++(ok ? result_.succeeded : result_.failed);
    if (!ok) o.log_tail = file_tail(jobs_[i].log_path, opt_.tail_lines);
    ++finished_;
    if (opt_.on_finish) opt_.on_finish(i, o);
    show_progress();
  }

  void show_progress() const {
    if (!opt_.progress_text) return;
    const PoolProgress p{finished_, result_.failed + result_.skipped, jobs_.size(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()};
    const std::string text = opt_.progress_text(p);
    if (text.empty()) return;
    std::ostream& out = opt_.progress_out ? *opt_.progress_out : std::cerr;
    out << (opt_.progress_in_place ? "\r\033[K" : "") << text;
    if (!opt_.progress_in_place || finished_ == jobs_.size()) out << "\n";
    out << std::flush;
  }

  struct Running {
    std::size_t job;
    std::chrono::steady_clock::time_point start;
  };
  const std::vector<PoolJob>& jobs_;
  const PoolOptions& opt_;
  const std::chrono::steady_clock::time_point t0_;
  PoolResult result_;
  std::vector<bool> started_;  // started or skipped
  std::map<pid_t, Running> running_;
  std::size_t first_open_ = 0, finished_ = 0;
};

void check_jobs(const std::vector<PoolJob>& jobs, const PoolOptions& opt) {
  if (opt.jobs < 1) throw std::invalid_argument("a process pool needs jobs >= 1, got " + std::to_string(opt.jobs));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].argv.empty()) throw std::invalid_argument("job " + std::to_string(i) + " has no command");
    const long a = jobs[i].after;
    if (a < -1 || a >= long(jobs.size()) || a == long(i))
      throw std::invalid_argument("job " + std::to_string(i) + ": after = " + std::to_string(a) +
                                  " is not another job's index");
  }
}

}  // namespace

PoolResult run_pool(const std::vector<PoolJob>& jobs, const PoolOptions& options) {
  check_jobs(jobs, options);
  return PoolRun(jobs, options).run();
}

}  // namespace dmlbench::experiments
