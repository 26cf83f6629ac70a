// Where each point of a sweep stands (done, failed with its log tail, running, interrupted, missing), read from its
// folder alone, and the merged summary of the finished points: a reproduction grid's summary.json with its
// verdicts, or mean +- std per arm of a command grid's metrics. Torch-free.
#pragma once

#include "dmlbench/experiments/sweep_grid.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dmlbench::experiments {

// The files a point's folder holds besides its command's outputs.
inline constexpr const char* kSweepLog = "sweep_log.txt";        // the command's output, every attempt appended
inline constexpr const char* kSweepStatus = "sweep_status.json"; // the last attempt's exit status, host, times
inline constexpr const char* kSweepLock = ".sweep.lock";         // flock-ed while a task runs the point

enum class PointState {
  done,         // its result file exists
  failed,       // its last attempt exited non-zero (sweep_status.json), no result
  running,      // a task holds its lock now
  interrupted,  // started (a log), no exit status and no lock: killed with its task, its node went away, or a full disk
  missing       // never started
};
const char* state_name(PointState s);

struct PointStatus {
  PointState state = PointState::missing;
  std::string detail;    // failed: "exit status 2" / "killed by signal 9"; running: ""
  std::string log_tail;  // failed / interrupted: the last lines of its log, indented
};

std::string point_dir(const SweepPlan& plan, const SweepPoint& p);
PointStatus point_status(const SweepPlan& plan, const SweepPoint& p, std::size_t tail_lines = 15);

// The merged summary of every finished point; the others are listed under "sweep" (failed with detail and log tail,
// and the names of those not finished). A reproduction grid gives `reproduce`'s summary.json (its metrics, Welch's
// test and verdicts per variant); a command grid gives, per arm, each metric's mean, std and values over its seeds.
// `table` receives the command line's table. Throws std::runtime_error when no point has finished.
nlohmann::ordered_json collect_sweep(const SweepPlan& plan, const std::string& git_revision, std::string* table);

}  // namespace dmlbench::experiments
