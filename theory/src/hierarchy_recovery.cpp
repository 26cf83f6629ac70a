#include "dmlbench/theory/hierarchy_recovery.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace dmlbench::theory {

namespace {

double entropy(const std::map<std::int64_t, double>& counts, double n) {
  double h = 0;
  for (const auto& [k, m] : counts) h -= m / n * std::log(m / n);
  return h;
}

double purity_of(const std::map<std::pair<std::int64_t, std::int64_t>, double>& joint, bool by_first, double n) {
  std::map<std::int64_t, double> best;
  for (const auto& [key, m] : joint) {
    auto& b = best[by_first ? key.first : key.second];
    b = std::max(b, m);
  }
  double s = 0;
  for (const auto& [k, m] : best) s += m;
  return s / n;
}

}  // namespace

PartitionAgreement partition_agreement(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("partition_agreement: " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                " classes");
  if (a.empty()) throw std::invalid_argument("partition_agreement: no classes");
  const double n = double(a.size());
  std::map<std::int64_t, double> ca, cb;
  std::map<std::pair<std::int64_t, std::int64_t>, double> joint;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ca[a[i]] += 1;
    cb[b[i]] += 1;
    joint[{a[i], b[i]}] += 1;
  }
  PartitionAgreement r;
  r.groups_a = int(ca.size());
  r.groups_b = int(cb.size());
  r.purity = purity_of(joint, true, n);
  r.inverse_purity = purity_of(joint, false, n);
  const double ha = entropy(ca, n), hb = entropy(cb, n);
  double mi = 0;
  for (const auto& [key, m] : joint) mi += m / n * std::log(m * n / (ca[key.first] * cb[key.second]));
  r.nmi = ha + hb > 0 ? 2 * mi / (ha + hb) : 1.0;
  return r;
}

LevelAgreement closest_level_agreement(const std::vector<std::vector<int>>& node, const std::vector<std::int64_t>& known) {
  if (node.empty()) throw std::invalid_argument("closest_level_agreement: a tree with no levels");
  const int groups = int(std::set<std::int64_t>(known.begin(), known.end()).size());
  LevelAgreement best;
  int best_gap = -1;
  for (std::size_t l = 0; l < node.size(); ++l) {
    const int nodes = int(std::set<int>(node[l].begin(), node[l].end()).size());
    const int gap = std::abs(nodes - groups);
    if (best_gap < 0 || gap < best_gap) {
      best_gap = gap;
      best.level = int(l);
      best.nodes = nodes;
    }
  }
  const auto& v = node[std::size_t(best.level)];
  best.agreement = partition_agreement(std::vector<std::int64_t>(v.begin(), v.end()), known);
  return best;
}

}  // namespace dmlbench::theory
