// A pool of child processes (`reproduce --jobs`, `sweep --local`): a list of jobs, each a command with its output in
// a log file, run at most N at a time in list order, a job that needs another's result after it; a progress line
// with an ETA after each. Torch-free. One child run to its end: run_and_wait in child_process.hpp.
#pragma once

#include "dmlbench/experiments/child_process.hpp"

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct PoolJob {
  std::vector<std::string> argv;  // argv[0]: a path
  std::string log_path;           // its stdout and stderr; the folder is created when the job starts
  bool append_log = false;        // append to the log, else truncate it
  long after = -1;                // the index of a job that must succeed first; skipped when that one does not
  bool held = false;              // waits for something outside this pool (another task's point): never started
};

enum class JobState { not_started, succeeded, failed, skipped };

struct JobOutcome {
  JobState state = JobState::not_started;
  ChildResult result;    // succeeded and failed: how it ended
  std::string log_tail;  // failed: the last lines of its log, indented (file_tail)
};

struct PoolProgress {
  std::size_t finished = 0;  // jobs that ran to their end or were skipped
  std::size_t failed = 0;    // of them, the failed and the skipped
  std::size_t total = 0;     // jobs in the pool
  double seconds = 0;        // since the pool started
  // The time the unfinished jobs will take at the pace so far (0 before any has finished).
  double eta_seconds() const;
};

struct PoolOptions {
  int jobs = 1;                  // at most this many running at once (>= 1)
  bool stop_on_failure = false;  // once a job has failed start no other (the running ones are waited for)
  std::size_t tail_lines = 15;   // of a failed job's log
  std::function<void(std::size_t job)> on_start;  // just before a job starts
  // Whether a job that ended succeeded; default: it exited 0.
  std::function<bool(std::size_t job, const ChildResult&)> succeeded;
  std::function<void(std::size_t job, const JobOutcome&)> on_finish;  // after a job has ended or was skipped
  // The progress line after each job that ran ("" or unset: none), written to progress_out (default std::cerr);
  // with progress_in_place, rewritten in place ("\r\033[K", a terminal) and ended once every job has finished.
  std::function<std::string(const PoolProgress&)> progress_text;
  std::ostream* progress_out = nullptr;
  bool progress_in_place = false;
  // Called each time just before the pool waits for a child: tests send a signal here, in the window between the
  // pool's check for a signal and its wait.
  std::function<void()> before_wait;
  std::string what = "the jobs";  // for the error of a failed wait: "waitpid failed while running <what>"
};

struct PoolResult {
  std::vector<JobOutcome> jobs;  // in the order of the jobs given
  std::size_t succeeded = 0, failed = 0, skipped = 0, not_started = 0;
};

// Runs the jobs: starts them in list order while fewer than options.jobs run, passing over a job whose `after` has
// not finished (or that is held) for the later ones, and waits (through interrupted waits) until none runs and none
// can start. Throws std::invalid_argument for jobs < 1 or an `after` that is not another job's index, and
// std::runtime_error when a job cannot be started (the ones running then are left running). A SIGTERM to this process
// meanwhile is passed on to the running jobs; once they have ended, this process ends by that signal.
PoolResult run_pool(const std::vector<PoolJob>& jobs, const PoolOptions& options);

// Whole seconds: "12 s".
std::string seconds_text(double seconds);

}  // namespace dmlbench::experiments
