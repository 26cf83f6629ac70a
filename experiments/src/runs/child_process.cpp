#include "dmlbench/experiments/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <utility>

extern char** environ;

namespace dmlbench::experiments {

pid_t start_process(const std::vector<std::string>& args, const std::string& log_path, bool append) {
  if (args.empty()) throw std::invalid_argument("start_process: no program");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!log_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path.c_str(),
                                     O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  return pid;
}

std::string exit_description(int ws) {
  if (WIFEXITED(ws)) return WEXITSTATUS(ws) == 0 ? "" : "exit status " + std::to_string(WEXITSTATUS(ws));
  if (WIFSIGNALED(ws)) return "killed by signal " + std::to_string(WTERMSIG(ws));
  return "unknown wait status";
}

int ChildResult::exit_code() const { return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1; }

namespace {

volatile std::sig_atomic_t g_last_signal = 0;
volatile std::sig_atomic_t g_signal_count = 0;
int g_wake[2] = {-1, -1};  // the self-pipe: a byte for every remembered signal and every SIGCHLD

void wake() {
  const int saved = errno;
  if (g_wake[1] >= 0) {
    [[maybe_unused]] const auto n = ::write(g_wake[1], "x", 1);  // a full pipe: a wake-up is queued already
  }
  errno = saved;
}
void remember_signal(int s) {
  g_last_signal = s;
  g_signal_count = g_signal_count + 1;
  wake();
}
void child_ended(int) { wake(); }

void drain_wake_pipe() {
  char buf[64];
  while (::read(g_wake[0], buf, sizeof buf) > 0) {
  }
}

}  // namespace

SignalRelay::SignalRelay(std::vector<int> signals) : signals_(std::move(signals)), old_(signals_.size()) {
  if (g_wake[0] < 0 && ::pipe2(g_wake, O_NONBLOCK | O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot make the signal relay's pipe: ") + std::strerror(errno));
  struct sigaction sa {};
  sa.sa_handler = remember_signal;
  for (std::size_t i = 0; i < signals_.size(); ++i) sigaction(signals_[i], &sa, &old_[i]);
  struct sigaction chld {};
  chld.sa_handler = child_ended;
  chld.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  sigaction(SIGCHLD, &chld, &old_chld_);
  start_count_ = passed_count_ = g_signal_count;
}

SignalRelay::~SignalRelay() { restore(); }

void SignalRelay::restore() {
  if (restored_) return;
  for (std::size_t i = 0; i < signals_.size(); ++i) sigaction(signals_[i], &old_[i], nullptr);
  sigaction(SIGCHLD, &old_chld_, nullptr);
  signals_.clear();
  restored_ = true;
}

bool SignalRelay::received() const { return g_signal_count != start_count_; }

bool SignalRelay::pending() const { return g_signal_count != passed_count_; }

pid_t SignalRelay::wait_child(pid_t pid, int* wait_status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, wait_status, WNOHANG);
    if (r > 0) return r;
    if (r < 0 && errno != EINTR) return -1;
    if (pending()) return 0;
    // a signal or a child's end after the two checks above has written to the pipe: the poll returns at once
    pollfd wake_up{g_wake[0], POLLIN, 0};
    if (::poll(&wake_up, 1, -1) < 0 && errno != EINTR) return -1;
    drain_wake_pipe();
  }
}

void SignalRelay::pass_on(const std::vector<pid_t>& children) {
  if (!pending()) return;
  passed_count_ = g_signal_count;
  for (const pid_t pid : children) ::kill(pid, g_last_signal);
}

void SignalRelay::end_like_the_signal() {
  const int s = g_last_signal;
  restore();
  std::raise(s);
}

ChildResult run_and_wait(const std::vector<std::string>& argv, const std::string& log_path, bool append,
                         bool pass_on_signals) {
  std::cout.flush();
  std::cerr.flush();
  SignalRelay relay(pass_on_signals ? std::vector<int>{SIGTERM, SIGINT} : std::vector<int>{});
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = start_process(argv, log_path, append);
  ChildResult r;
  for (;;) {
    relay.pass_on({pid});  // one that came while it started, or while it was waited for
    const pid_t ended = relay.wait_child(pid, &r.wait_status);
    if (ended == pid) break;
    if (ended < 0) throw std::runtime_error("waitpid failed for " + argv[0] + ": " + std::strerror(errno));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.description = exit_description(r.wait_status);
  return r;
}

std::string file_tail(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string o;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) o += "  | " + all[i] + "\n";
  return o;
}

}  // namespace dmlbench::experiments
