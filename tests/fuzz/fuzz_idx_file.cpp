// Fuzz harness: the idx reader of MNIST and Fashion-MNIST (experiments/src/data/idx_file.cpp), plain and gzip.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "input.idx");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto a = dmlbench::experiments::read_idx(path);
    std::size_t total = 1;
    for (auto d : a.dims) total *= d;
    if (total != a.data.size()) std::abort();  // what it returns holds what its header says
  });
  return 0;
}
