#include "dmlbench/theory/hierarchical_class_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace dmlbench::theory {

ClassDistances class_distances(const Eigen::MatrixXd& x, const std::vector<std::int64_t>& labels) {
  if (std::size_t(x.rows()) != labels.size())
    throw std::invalid_argument("class_distances: " + std::to_string(x.rows()) + " feature rows for " +
                                std::to_string(labels.size()) + " labels");
  if (!x.allFinite()) throw std::invalid_argument("class_distances: a feature is NaN or infinite");
  std::map<std::int64_t, std::vector<Eigen::Index>> rows;
  for (std::size_t i = 0; i < labels.size(); ++i) rows[labels[i]].push_back(Eigen::Index(i));
  ClassDistances cd;
  const auto C = Eigen::Index(rows.size());
  Eigen::MatrixXd mean(C, x.cols());
  Eigen::VectorXd mean_sq(C), n(C);
  cd.inner.resize(C);
  Eigen::Index c = 0;
  for (const auto& [label, r] : rows) {
    if (r.size() < 2)
      throw std::invalid_argument("class_distances: class " + std::to_string(label) +
                                  " has one sample; its average inner distance needs two");
    cd.classes.push_back(label);
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(x.cols());
    double sq = 0;
    for (auto i : r) {
      sum += x.row(i).transpose();
      sq += x.row(i).squaredNorm();
    }
    const double m = double(r.size());
    mean.row(c) = sum.transpose() / m;
    mean_sq(c) = sq / m;
    n(c) = m;
    // sum over i != j of |r_i - r_j|^2 = 2 m sum |r_i|^2 - 2 |sum r_i|^2
    cd.inner(c) = std::max(0.0, (2 * m * sq - 2 * sum.squaredNorm()) / (m * m - m));
    ++c;
  }
  // d(p, q) = mean |r_i|^2 over p + mean |r_j|^2 over q - 2 mu_p . mu_q
  cd.d = (mean_sq.replicate(1, C) + mean_sq.transpose().replicate(C, 1) - 2 * mean * mean.transpose()).cwiseMax(0.0);
  cd.d0 = cd.inner.mean();
  return cd;
}

Linkage linkage_from_name(const std::string& name) {
  if (name == "single") return Linkage::single;
  if (name == "average") return Linkage::average;
  if (name == "complete") return Linkage::complete;
  throw std::invalid_argument("linkage '" + name + "' is not single, average or complete");
}

int ClassTree::nodes(int level) const {
  const auto& v = node.at(std::size_t(level));
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end()) + 1;
}

int ClassTree::merge_level(int a, int b) const {
  for (std::size_t l = 0; l < node.size(); ++l)
    if (node[l].at(std::size_t(a)) == node[l].at(std::size_t(b))) return int(l);
  return -1;
}

namespace {

// The linkage distance of nodes a and b over cd.d(i, j), i in a and j in b in their member order (the order of the
// sum, so the bits do not depend on how the pair was found).
double node_distance(const ClassDistances& cd, Linkage linkage, const std::vector<int>& a, const std::vector<int>& b) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0, sum = 0;
  for (int i : a)
    for (int j : b) {
      const double v = cd.d(i, j);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
  return linkage == Linkage::single ? lo : linkage == Linkage::complete ? hi : sum / double(a.size() * b.size());
}

// The current nodes (member lists by slot, `order` the slots in node order) and the distance of every pair, kept
// between merges: a merge changes only the merged node's pairs, so each is computed once, not once per merge (an
// [HTL] tree of 869 glyph-proxy letters took seconds when every merge recomputed every pair). Each row also keeps
// its smallest distance to a later node and the first such node, so the search for the closest pair reads one value
// a node, not every pair; it finds the pair the scan of every pair in node order finds (the first strictly smaller).
struct Agglomeration {
  const ClassDistances& cd;
  Linkage linkage;
  std::vector<std::vector<int>> members;  // by slot
  std::vector<std::size_t> order;         // the live slots in node order
  std::vector<double> pair;               // pair[s * C + t]: slot s ahead of slot t in `order`
  std::size_t C;
  std::vector<double> row_min;            // by slot: the smallest pair with a later node (+inf: none)
  std::vector<std::size_t> row_arg;       // by slot: the first later slot at that distance
  std::vector<std::size_t> pos;           // by slot: its position in `order`

  void distance_of(std::size_t i, std::size_t j) {  // the nodes at positions i < j, summed in that order
    pair[order[i] * C + order[j]] = node_distance(cd, linkage, members[order[i]], members[order[j]]);
  }
  void all_distances() {
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) distance_of(i, j);
    for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = i, row_minimum(i);
  }
  void distances_of(std::size_t k) {  // every pair with the node at position k
    for (std::size_t i = 0; i < order.size(); ++i)
      if (i != k) distance_of(std::min(i, k), std::max(i, k));
  }
  void row_minimum(std::size_t i) {  // the row at position i, scanned as the search over every pair scans it
    const std::size_t s = order[i];
    const double* row = pair.data() + s * C;
    row_min[s] = std::numeric_limits<double>::infinity();
    row_arg[s] = s;
    for (std::size_t j = i + 1; j < order.size(); ++j)
      if (row[order[j]] < row_min[s]) row_min[s] = row[order[j]], row_arg[s] = order[j];
  }
  // After slot `from` was merged into the node at position k: the rows whose pairs changed.
  void update_row_minima(std::size_t k, std::size_t from) {
    const std::size_t into = order[k];
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::size_t s = order[i];
      if (i == k || row_arg[s] == into || row_arg[s] == from) {
        row_minimum(i);  // its minimum may have grown or gone
      } else if (i < k) {  // only its pair with the merged node changed, and that node is its earliest candidate
        const double v = pair[s * C + into];
        if (v < row_min[s] || (v == row_min[s] && pos[into] < pos[row_arg[s]])) row_min[s] = v, row_arg[s] = into;
      }
    }
  }
  // Merges the closest pair (the first in node order on a tie) while it is closer than th; false when none is.
  bool merge_closer_than(double th) {
    double best = std::numeric_limits<double>::infinity();
    std::size_t bi = 0;
    for (std::size_t i = 0; i < order.size(); ++i)
      if (row_min[order[i]] < best) best = row_min[order[i]], bi = i;
    if (!(best < th)) return false;
    const std::size_t from = row_arg[order[bi]], bj = pos[from];
    auto& into = members[order[bi]];
    into.insert(into.end(), members[from].begin(), members[from].end());
    order.erase(order.begin() + std::ptrdiff_t(bj));
    for (std::size_t j = bj; j < order.size(); ++j) pos[order[j]] = j;
    distances_of(bi);
    update_row_minima(bi, from);
    return true;
  }
};

}  // namespace

ClassTree build_class_tree(const ClassDistances& cd, int levels, Linkage linkage) {
  if (levels < 1) throw std::invalid_argument("build_class_tree: levels L must be >= 1, got " + std::to_string(levels));
  const auto C = int(cd.classes.size());
  if (C < 1 || cd.d.rows() != C || cd.d.cols() != C) throw std::invalid_argument("build_class_tree: no classes");
  ClassTree t;
  const auto n = std::size_t(C);
  Agglomeration g{cd, linkage, std::vector<std::vector<int>>(n), std::vector<std::size_t>(n),
                  std::vector<double>(n * n), n, std::vector<double>(n), std::vector<std::size_t>(n),
                  std::vector<std::size_t>(n)};
  for (int c = 0; c < C; ++c) g.members[std::size_t(c)] = {c}, g.order[std::size_t(c)] = std::size_t(c);
  g.all_distances();
  for (int l = 0; l <= levels; ++l) {
    const double th = double(l) * (4.0 - cd.d0) / double(levels) + cd.d0;  // [HTL] d_l
    t.threshold.push_back(th);
    while (g.merge_closer_than(th)) {
    }
    // Nodes are numbered by their smallest class index, so the numbering is canonical. `order` already is that
    // order: it starts as the classes, and a merge keeps the earlier node's place, whose smallest index is the smaller.
    std::vector<int> at(static_cast<std::size_t>(C));
    for (std::size_t k = 0; k < g.order.size(); ++k)
      for (int c : g.members[g.order[k]]) at[std::size_t(c)] = int(k);
    t.node.push_back(at);
  }
  return t;
}

double dynamic_violate_margin(const ClassTree& tree, const ClassDistances& cd, int a, int n, double beta) {
  if (a < 0 || n < 0 || a >= int(cd.classes.size()) || n >= int(cd.classes.size()))
    throw std::invalid_argument("dynamic_violate_margin: class index out of range");
  const int h = tree.merge_level(a, n);
  const double d_h = h < 0 ? tree.threshold.back() : tree.threshold[std::size_t(h)];
  return beta + d_h - cd.inner(a);
}

}  // namespace dmlbench::theory
