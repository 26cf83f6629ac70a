// Fuzz harness: run configs (experiments/src/config/run_config.cpp): JSON with comments, the schema, the cross-key
// rules of the core and of each registered loss, miner and sampler.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/run_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "config.json");
  dmlbench::fuzz::expect_parse_or_refusal(
      [&] { (void)dmlbench::experiments::load_run_config(path, {}, DMLBENCH_SOURCE_DIR); });
  return 0;
}
