// Child processes of dmlbench (the report's stages, a sweep's points, `reproduce --jobs`): started with their output in
// a log file, one run to its end, their wait status in words, and the tail of the log a failure shows. Torch-free.
// Several at a time: process_pool.hpp.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Starts argv[0] (a path) with argv; stdout and stderr go to log_path (appended when `append`, else truncated), or
// to this process's own streams when log_path is empty. Returns the pid; throws std::runtime_error naming the program
// when it cannot be started.
pid_t start_process(const std::vector<std::string>& argv, const std::string& log_path, bool append);

// A waitpid status in words: "" for exit status 0, else "exit status N" / "killed by signal N".
std::string exit_description(int wait_status);

// How a child ended.
struct ChildResult {
  int wait_status = 0;      // as waitpid gives it
  std::string description;  // exit_description(wait_status): "" when it exited 0
  double seconds = 0;       // from its start to its end
  bool ok() const { return description.empty(); }
  int exit_code() const;  // its exit status; -1 when a signal ended it
};

// While it lives, each of `signals` (SIGTERM, SIGINT) that this process receives is remembered instead of ending it;
// pass_on sends the ones remembered since its last call to the given children. wait_child waits for a child to end or
// for a signal not yet passed on, whichever comes first, with no window between the two: each remembered signal and
// each SIGCHLD writes a byte to a pipe that the wait polls (the self-pipe trick), so a signal that comes after the
// caller's check and before the wait ends the wait at once (a plain waitpid would sleep until the next child ended).
// The previous handlers are restored when it ends, or by end_like_the_signal, which then raises the last signal
// received, so that this process ends by it as it would have without the relay (after its children; where the
// previous handler does not end the process, it returns). An empty `signals` relays nothing. The one relay of
// run_and_wait and of the process pool.
class SignalRelay {
 public:
  explicit SignalRelay(std::vector<int> signals);
  ~SignalRelay();
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;
  bool received() const;  // a signal came since the relay began
  bool pending() const;   // a signal came that pass_on has not passed on yet
  void pass_on(const std::vector<pid_t>& children);
  void end_like_the_signal();
  // Waits for the child `pid` (-1: any child) to end: its pid, with its status in *wait_status; 0 when a signal came
  // that is not yet passed on (the caller passes it on and waits again); -1 with errno when waitpid fails (ECHILD).
  pid_t wait_child(pid_t pid, int* wait_status);

 private:
  void restore();
  std::vector<int> signals_;
  std::vector<struct sigaction> old_;
  struct sigaction old_chld_ {};
  int start_count_ = 0, passed_count_ = 0;
  bool restored_ = false;
};

// Starts argv as start_process does and waits for its end (through interrupted waits). std::cout and std::cerr are
// flushed first, so that what this process printed comes before the child's output. With `pass_on_signals`, a
// SIGTERM or SIGINT that this process receives meanwhile is passed on to the child, and this process goes on until
// the child has ended (Slurm's time limit, scancel); the previous handlers are restored before it returns. Throws
// std::runtime_error when the child cannot be started or waited for.
ChildResult run_and_wait(const std::vector<std::string>& argv, const std::string& log_path, bool append,
                         bool pass_on_signals = false);

// The last `lines` lines of a text file, each indented as "  | " (nothing for a missing file).
std::string file_tail(const std::string& path, std::size_t lines);

}  // namespace dmlbench::experiments
