// Fuzz harness: `htl tree`'s input: features read by the embedding reader, L2-normalised, into the [HTL] Sec 4.1
// class distances and the class tree (theory/hierarchical_class_tree.hpp); the labels cycle over three classes.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/theory/hierarchical_class_tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace th = dmlbench::theory;
  const std::string path = dmlbench::fuzz::input_file(data, size, "features");
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    const auto e = dmlbench::experiments::read_embedding_file(path);
    if (e.rows > 2000) return;  // the tree is quadratic in the rows: the reader is what is fuzzed at size
    Eigen::MatrixXd x(e.rows, e.cols);
    std::vector<std::int64_t> labels;
    for (std::int64_t i = 0; i < e.rows; ++i) {
      labels.push_back(i % 3);
      for (std::int64_t j = 0; j < e.cols; ++j) x(i, j) = e.values[std::size_t(i * e.cols + j)];
    }
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      if (x.row(i).norm() == 0) return;  // `htl tree` refuses a zero row before the tree
    x.rowwise().normalize();
    const auto cd = th::class_distances(x, labels);
    const auto t = th::build_class_tree(cd, 4, th::Linkage::average);
    if (t.levels() != 4) std::abort();
  });
  return 0;
}
