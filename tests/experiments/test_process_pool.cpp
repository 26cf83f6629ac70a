// The process pool (`reproduce --jobs`, `sweep --local`) and run_and_wait on real /bin/sh children: exit statuses in
// words, at most N running at once (with a control that the measure sees N + 1), a failed job's log tail, jobs after
// others, a stop at the first failure, and a SIGTERM passed on to the one child.
#include "dmlbench/experiments/child_process.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

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
