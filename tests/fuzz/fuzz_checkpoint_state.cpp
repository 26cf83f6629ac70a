// Fuzz harness: checkpoint.json of a training run (experiments/src/runs/checkpoint_state.cpp), what `train --resume`
// restores its progress from.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/checkpoint_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "checkpoint.json");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto s = dmlbench::experiments::read_checkpoint_state(path);
    if (s.epochs_done < 0 || s.steps < 0 || !s.curve.is_array()) std::abort();
  });
  return 0;
}
