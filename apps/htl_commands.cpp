// dmlbench htl tree: the [HTL] class hierarchy of features from any source (theory/hierarchical_class_tree.hpp).
#include "commands.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/class_tree_json.hpp"
#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/theory/hierarchical_class_tree.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;
namespace th = dmlbench::theory;
using json = nlohmann::ordered_json;

namespace {

struct TreeRequest {
  std::string features, labels, level, linkage = "average", out;
  int levels = 15;  // [HTL]: 16 levels including the leaves
  bool normalize = true;
};

void run_tree(const TreeRequest& q) {
  if (q.levels < 1) throw std::invalid_argument("--levels must be >= 1 (levels above the leaves), got " +
                                                std::to_string(q.levels));
  const auto linkage = th::linkage_from_name(q.linkage);
  const auto e = ex::read_embedding_file(q.features);
  const auto l = ex::read_label_file(q.labels);
  if (std::int64_t(l.rows()) != e.rows)
    throw std::invalid_argument(q.labels + " has " + std::to_string(l.rows()) + " labels for " +
                                std::to_string(e.rows) + " feature rows in " + q.features);
  std::size_t level = 0;
  if (!q.level.empty()) {
    const auto it = std::find(l.level_names.begin(), l.level_names.end(), q.level);
    if (it == l.level_names.end()) throw std::invalid_argument("--level " + q.level + ": no such column in " + q.labels);
    level = std::size_t(it - l.level_names.begin());
  }
  Eigen::MatrixXd x(e.rows, e.cols);
  for (std::int64_t i = 0; i < e.rows; ++i)
    for (std::int64_t j = 0; j < e.cols; ++j) x(i, j) = e.values[std::size_t(i * e.cols + j)];
  if (q.normalize) {
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      if (x.row(i).norm() == 0) throw std::invalid_argument("feature row " + std::to_string(i) + " is zero: no direction");
    x.rowwise().normalize();  // [HTL]: features of unit length, so distances lie in [0, 4]
  }
  const auto cd = th::class_distances(x, l.labels[level]);
  const auto t = th::build_class_tree(cd, q.levels, linkage);
  const json j = ex::class_tree_json(cd, t, {{"command", "htl tree"}, {"features", q.features}, {"labels", q.labels},
                                            {"level", l.level_names.empty() ? std::string() : l.level_names[level]},
                                            {"levels", q.levels}, {"linkage", q.linkage}, {"normalize", q.normalize}});
  for (int lv = 0; lv <= t.levels(); ++lv) {
    std::cout << "level " << lv << ": threshold " << t.threshold[std::size_t(lv)] << ", " << t.nodes(lv) << " nodes";
    int merged = 0;
    for (const auto& g : j["levels"][std::size_t(lv)]["groups"]) merged += g.size() > 1;
    std::cout << " (" << merged << " holding several classes)\n";
  }
  std::cout << cd.classes.size() << " classes, d_0 = " << cd.d0 << "\n";
  if (!q.out.empty()) {
    ex::write_file_atomically(q.out, j.dump(2) + "\n");
    std::cout << "wrote " << q.out << "\n";
  }
}

}  // namespace

void add_htl_commands(CLI::App& app) {
  auto* htl = app.add_subcommand("htl", "the hierarchical triplet loss ([HTL]): its class tree");
  htl->require_subcommand(1);
  auto* tree = htl->add_subcommand("tree", "the [HTL] class hierarchy of features from any source: nodes per level, "
                                           "merge thresholds d_l, which classes merged where");
  auto q = std::make_shared<TreeRequest>();
  tree->add_option("--features", q->features, "N x d features (CSV, .npy, idx), e.g. a run's embeddings/train.npy")
      ->required();
  tree->add_option("--labels", q->labels, "their labels (one per line, CSV with a header, .npy, idx)")->required();
  tree->add_option("--level", q->level, "the label column to build the tree of (default: the first)");
  tree->add_option("--levels", q->levels, "L, levels above the leaves ([HTL]: 16 levels with the leaves)")
      ->capture_default_str();
  tree->add_option("--linkage", q->linkage, "single | average | complete (the slides do not say)")
      ->capture_default_str();
  tree->add_flag("!--no-normalize", q->normalize, "use the features as given instead of L2-normalising them");
  tree->add_option("--out", q->out, "write the tree as JSON (starts with its config)");
  tree->callback([q] { run_tree(*q); });
}

}  // namespace dmlbench::app
