// Fuzz harness: the safetensors header (experiments/src/data/safetensors_header.cpp), which the LibTorch reader of
// pretrained weights trusts for every size it allocates.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/safetensors_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "weights.safetensors");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto h = dmlbench::experiments::read_safetensors_header(path);
    for (const auto& e : h.tensors)
      if (e.end > h.data_size || e.begin > e.end) std::abort();  // what it returns lies within the file
  });
  return 0;
}
