// Fuzz harness: a tuning results file (experiments/tuned/<name>.json, as `dmlbench tune` writes it) read into the
// tuned variant of its reproduction (with_tuned_settings, experiments/src/config/tuning_plan.cpp).
#include "fuzz_support.hpp"

#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"

namespace {
const char* const kReproduction = DMLBENCH_SOURCE_DIR "/experiments/reproductions/lcc_table1.json";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto reproduction = dmlbench::experiments::read_reproduction(kReproduction, DMLBENCH_SOURCE_DIR);
  const std::string path = dmlbench::fuzz::input_file(data, size, "tuned.json");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto tuned = dmlbench::experiments::read_json_file(path, "the tuning results file");
    (void)dmlbench::experiments::with_tuned_settings(reproduction, tuned, path, DMLBENCH_SOURCE_DIR);
  });
  return 0;
}
