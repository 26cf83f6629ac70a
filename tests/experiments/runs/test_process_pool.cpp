// The process pool (`reproduce --jobs`, `sweep --local`) and run_and_wait on real /bin/sh children: exit statuses in
// words, at most N running at once (with a control that the measure sees N + 1), a failed job's log tail, jobs after
// others, a stop at the first failure, and a SIGTERM passed on to the one child.
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;

namespace {

PoolJob sh(const std::string& script, const std::string& log, long after = -1) {
  return PoolJob{{"/bin/sh", "-c", script}, log, false, after, false};
}

std::string read_text(const std::string& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The most jobs of a pool of `count` that a job saw running at once (each counts the marker files of the others while
// they all sleep), and the most the pool's own callbacks counted.
std::pair<int, int> most_running(int jobs, int count, const ScratchDir& d) {
  fs::create_directories(d.path("running"));
  std::vector<PoolJob> pool;
  for (int i = 0; i < count; ++i) {
    const std::string k = std::to_string(i);
    pool.push_back(sh("touch running/" + k + "; sleep 0.5; ls running | wc -l > seen" + k +
                          "; sleep 0.3; rm running/" + k,
                      d.path("log" + k)));
    pool.back().argv[2] = "cd " + d.root() + " && " + pool.back().argv[2];
  }
  int now = 0, most = 0;
  PoolOptions o;
  o.jobs = jobs;
  o.on_start = [&](std::size_t) { most = std::max(most, ++now); };
  o.on_finish = [&](std::size_t, const JobOutcome&) { --now; };
  const auto r = run_pool(pool, o);
  REQUIRE(r.succeeded == std::size_t(count));
  int seen = 0;
  for (int i = 0; i < count; ++i) seen = std::max(seen, std::stoi(read_text(d.path("seen" + std::to_string(i)))));
  return {seen, most};
}

}  // namespace

TEST_CASE("a pool gives each job's exit status in words: 0, an exit status, a signal", "[process_pool]") {
  ScratchDir d("pool-status");
  const auto r = run_pool({sh("exit 0", d.path("a")), sh("exit 3", d.path("b")), sh("kill -9 $$", d.path("c")),
                           sh("kill -TERM $$", d.path("e"))},
                          PoolOptions{});
  REQUIRE(r.jobs.size() == 4);
  CHECK(r.jobs[0].state == JobState::succeeded);  // the control: a job that exits 0 is no failure
  CHECK(r.jobs[0].result.description.empty());
  CHECK(r.jobs[0].result.exit_code() == 0);
  CHECK(r.jobs[1].state == JobState::failed);
  CHECK(r.jobs[1].result.description == "exit status 3");
  CHECK(r.jobs[1].result.exit_code() == 3);
  CHECK(r.jobs[2].result.description == "killed by signal 9");
  CHECK(r.jobs[2].result.exit_code() == -1);
  CHECK(r.jobs[3].result.description == "killed by signal 15");
  CHECK(r.succeeded == 1);
  CHECK(r.failed == 3);
  CHECK(r.skipped == 0);
  CHECK(r.not_started == 0);
}

TEST_CASE("a pool runs at most N jobs at once, and uses all N", "[process_pool]") {
  ScratchDir d("pool-limit");
  const auto [seen2, counted2] = most_running(2, 6, d);
  CHECK(seen2 == 2);
  CHECK(counted2 == 2);
  // negative control: the same measure sees 3 when 3 may run (so it would catch a pool that ignored the limit)
  ScratchDir d3("pool-limit-control");
  const auto [seen3, counted3] = most_running(3, 6, d3);
  CHECK(seen3 == 3);
  CHECK(counted3 == 3);
}

TEST_CASE("a failed job's outcome holds the tail of its log, and a job that succeeded has none", "[process_pool]") {
  ScratchDir d("pool-tail");
  PoolOptions o;
  o.tail_lines = 3;
  const auto r = run_pool({sh("for i in 1 2 3 4 5 6; do echo line $i; done; echo oops >&2; exit 1", d.path("bad/log")),
                           sh("echo fine", d.path("good/log"))},
                          o);
  CHECK(r.jobs[0].log_tail == "  | line 5\n  | line 6\n  | oops\n");  // stderr into the same log, folder created
  CHECK(r.jobs[1].log_tail.empty());
  CHECK(read_text(d.path("good/log")) == "fine\n");
}

TEST_CASE("a job after another starts once it has succeeded, and is skipped when it failed", "[process_pool]") {
  ScratchDir d("pool-after");
  const std::string order = d.path("order");
  PoolOptions o;
  o.jobs = 4;
  std::vector<std::size_t> skipped;
  o.on_finish = [&](std::size_t i, const JobOutcome& out) {
    if (out.state == JobState::skipped) skipped.push_back(i);
  };
  const auto r = run_pool({sh("sleep 0.3; echo first >> " + order, d.path("l0")),
                           sh("echo second >> " + order, d.path("l1"), 0),  // 4 slots: only `after` holds it back
                           sh("exit 2", d.path("l2")), sh("echo never >> " + order, d.path("l3"), 2),
                           sh("echo never >> " + order, d.path("l4"), 3)},
                          o);
  CHECK(read_text(order) == "first\nsecond\n");
  CHECK(r.jobs[3].state == JobState::skipped);
  CHECK(r.jobs[4].state == JobState::skipped);  // after a skipped job
  CHECK(skipped == std::vector<std::size_t>{3, 4});
  CHECK(r.skipped == 2);
  CHECK(r.failed == 1);
  CHECK(r.succeeded == 2);
}

TEST_CASE("a held job and the jobs after it never start, and stop_on_failure starts nothing after a failure",
          "[process_pool]") {
  ScratchDir d("pool-held");
  std::vector<PoolJob> jobs = {sh("true", d.path("l0")), sh("true", d.path("l1")), sh("true", d.path("l2"), 1)};
  jobs[1].held = true;
  const auto r = run_pool(jobs, PoolOptions{});
  CHECK(r.jobs[0].state == JobState::succeeded);
  CHECK(r.jobs[1].state == JobState::not_started);
  CHECK(r.jobs[2].state == JobState::not_started);
  CHECK(r.not_started == 2);

  PoolOptions stop;
  stop.stop_on_failure = true;
  const auto s = run_pool({sh("exit 1", d.path("s0")), sh("true", d.path("s1"))}, stop);
  CHECK(s.jobs[1].state == JobState::not_started);
  CHECK(!fs::exists(d.path("s1")));
  const auto go_on = run_pool({sh("exit 1", d.path("g0")), sh("true", d.path("g1"))}, PoolOptions{});  // control
  CHECK(go_on.jobs[1].state == JobState::succeeded);
}

TEST_CASE("a pool's progress line after each job, with the ETA at the pace so far", "[process_pool]") {
  ScratchDir d("pool-progress");
  std::ostringstream out;
  PoolOptions o;
  o.progress_out = &out;
  o.progress_text = [](const PoolProgress& p) {
    return std::to_string(p.finished) + "/" + std::to_string(p.total) + " failed " + std::to_string(p.failed);
  };
  run_pool({sh("true", d.path("a")), sh("exit 1", d.path("b")), sh("true", d.path("c"))}, o);
  CHECK(out.str() == "1/3 failed 0\n2/3 failed 1\n3/3 failed 1\n");
  CHECK(PoolProgress{1, 0, 4, 10.0}.eta_seconds() == Approx(30.0));
  CHECK(PoolProgress{0, 0, 4, 10.0}.eta_seconds() == 0.0);
  CHECK(seconds_text(12.4) == "12 s");
}

TEST_CASE("a pool refuses a bad job count or an `after` that is no other job, and names a program it cannot start",
          "[process_pool]") {
  ScratchDir d("pool-bad");
  PoolOptions none;
  none.jobs = 0;
  CHECK_THROWS_AS(run_pool({sh("true", d.path("a"))}, none), std::invalid_argument);
  CHECK_THROWS_AS(run_pool({sh("true", d.path("a"), 0)}, PoolOptions{}), std::invalid_argument);
  CHECK_THROWS_AS(run_pool({sh("true", d.path("a"), 5)}, PoolOptions{}), std::invalid_argument);
  CHECK_THROWS_WITH(run_pool({PoolJob{{d.path("no-such-program")}, d.path("a"), false, -1, false}}, PoolOptions{}),
                    Catch::Contains("cannot start " + d.path("no-such-program")));
}

TEST_CASE("run_and_wait: one child's exit status, its log appended", "[process_pool]") {
  ScratchDir d("run-and-wait");
  const auto a = run_and_wait({"/bin/sh", "-c", "echo one"}, d.path("log"), true);
  const auto b = run_and_wait({"/bin/sh", "-c", "echo two; exit 4"}, d.path("log"), true);
  CHECK(a.ok());
  CHECK(!b.ok());
  CHECK(b.description == "exit status 4");
  CHECK(b.exit_code() == 4);
  CHECK(read_text(d.path("log")) == "one\ntwo\n");
  CHECK(b.seconds >= 0.0);
  CHECK_THROWS_WITH(run_and_wait({d.path("none")}, d.path("log"), true), Catch::Contains("cannot start"));
}

TEST_CASE("run_and_wait passes a SIGTERM this process receives on to the child, then restores the handler",
          "[process_pool]") {
  ScratchDir d("run-and-wait-signal");
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  // the child sends SIGTERM to this process: without passing on, this process would end (or the child sleep 5 s)
  const auto r = run_and_wait({"/bin/sh", "-c", "sleep 0.2; kill -TERM $PPID; exec sleep 5"}, d.path("log"), false,
                              true);
  CHECK(r.description == "killed by signal 15");
  CHECK(r.seconds < 4.0);
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  CHECK(after.sa_handler == before.sa_handler);
}

// A SIGTERM that comes after the pool's check for a signal and before its wait. A plain waitpid would block until the
// next child ended (here: 30 s); with the relay's self-pipe the wait returns at once and the signal
// is passed on. The pool runs in a fork of this test, since it ends its process by the signal.
TEST_CASE("a SIGTERM between the pool's check and its wait is passed on at once, not after the next child ends",
          "[process_pool]") {
  ScratchDir d("pool-signal-window");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGTERM, SIG_DFL);  // not Catch's fatal-signal report: the pool is to end this fork by the signal
    PoolOptions o;
    bool sent = false;
    o.before_wait = [&] {  // the window: the pool has checked for a signal and is about to wait
      if (!sent) ::kill(::getpid(), SIGTERM);
      sent = true;
    };
    run_pool({sh("exec sleep 30", d.path("log"))}, o);
    ::_exit(0);  // not reached: the pool ends this process by the signal
  }
  int st = 0;
  pid_t ended = 0;
  while ((ended = ::waitpid(pid, &st, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    ::usleep(20000);
  if (ended == 0) {  // the old wait: still blocked on the 30 s child
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(ended == pid);
  CHECK(WIFSIGNALED(st));
  CHECK(WTERMSIG(st) == SIGTERM);
  CHECK(seconds < 10.0);
}

TEST_CASE("SignalRelay::wait_child returns for a signal that came after the check, then for the child it ended",
          "[process_pool]") {
  SignalRelay relay({SIGTERM});
  const pid_t child = start_process({"/bin/sh", "-c", "exec sleep 30"}, "", false);
  CHECK_FALSE(relay.pending());
  ::kill(::getpid(), SIGTERM);  // after the check, before the wait
  int st = 0;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(relay.wait_child(child, &st) == 0);  // the signal, at once
  CHECK(relay.pending());
  relay.pass_on({child});
  CHECK_FALSE(relay.pending());
  CHECK(relay.wait_child(child, &st) == child);
  CHECK(exit_description(st) == "killed by signal 15");
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10.0);
}
