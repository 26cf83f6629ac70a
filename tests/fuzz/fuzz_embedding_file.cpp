// Fuzz harness: the embedding and label readers (experiments/src/data/embedding_file.cpp): .npy, idx and CSV, the
// inputs of `dmlbench eval` and `htl tree`.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/embedding_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dmlbench::fuzz::input_file(data, size, "input");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto m = dmlbench::experiments::read_embedding_file(path);
    if (m.values.size() != std::size_t(m.rows) * std::size_t(m.cols)) std::abort();
  });
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto l = dmlbench::experiments::read_label_file(path);
    for (const auto& column : l.labels)
      if (column.size() != l.rows()) std::abort();
  });
  return 0;
}
