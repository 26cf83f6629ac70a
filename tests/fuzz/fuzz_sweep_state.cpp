// Fuzz harness: a sweep folder's state (experiments/src/runs/sweep_state.cpp): sweep.json as `sweep status`,
// `run-point` and `collect` read it, then each point's status.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/sweep_grid.hpp"
#include "dmlbench/experiments/sweep_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)dmlbench::fuzz::input_file(data, size, "sweep/sweep.json");
  const std::string dir = (dmlbench::fuzz::scratch_dir() / "sweep").string();
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto plan = dmlbench::experiments::read_sweep_plan(dir, DMLBENCH_SOURCE_DIR);
    for (const auto& p : plan.points) (void)dmlbench::experiments::point_status(plan, p);
  });
  return 0;
}
