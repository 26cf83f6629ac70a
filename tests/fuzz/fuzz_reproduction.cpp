// Fuzz harness: reproduction files (experiments/src/config/reproduction.cpp) and their tuning blocks
// (tuning_plan.cpp); the configs they name resolve against the repository, as `dmlbench reproduce` resolves them.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "reproduction.json");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto r = dmlbench::experiments::read_reproduction(path, DMLBENCH_SOURCE_DIR);
    if (r.source.contains("tuning")) (void)dmlbench::experiments::read_tuning_spec(r, DMLBENCH_SOURCE_DIR);
  });
  return 0;
}
