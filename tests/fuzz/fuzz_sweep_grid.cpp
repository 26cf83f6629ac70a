// Fuzz harness: sweep grid files (experiments/src/runs/sweep_grid.cpp), read and expanded into their points as
// `dmlbench sweep --list` does, before anything is written.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/sweep_grid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "grid.json");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto grid = dmlbench::experiments::read_sweep_grid(path, DMLBENCH_SOURCE_DIR);
    (void)dmlbench::experiments::expand_sweep(grid, (dmlbench::fuzz::scratch_dir() / "sweep").string(), {},
                                              DMLBENCH_SOURCE_DIR);
  });
  return 0;
}
