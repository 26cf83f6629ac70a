// One point of a sweep run to its end, as a Slurm array task (and `sweep --local`) runs it: `sweep run-point DIR k`.
// Torch-free.
#pragma once

#include <iosfwd>
#include <string>

namespace dmlbench::experiments {

struct SweepPointRun {
  std::string dir;        // the sweep folder (holding sweep.json), as given
  long index = -1;        // the point's index in sweep.json
  std::string repo_root;  // where the grid's relative paths resolve
  std::string dmlbench;   // the dmlbench that runs the point's command
};

// Runs the point unless another task holds it (its lock) or it has finished already (its result file): its command
// runs with its output appended to the point's sweep_log.txt under a header line (host, time, Slurm job), a SIGTERM
// or SIGINT is passed on to it, and its exit status, host and times go to sweep_status.json. The lock stays with the
// command (inherited), so a point whose runner was killed still shows as running. Returns 0 when the point finished
// (or was left alone), 1 when its command failed; messages go to `out`. Throws std::invalid_argument for an index
// that is not a point, std::runtime_error when the point starts from a point that has not finished.
int run_sweep_point(const SweepPointRun& run, std::ostream& out);

}  // namespace dmlbench::experiments
