// How well a level of a learned class tree ([HTL] Sec 4.1) recovers a known grouping of the classes (letters within
// scripts): purity, inverse purity and NMI of two partitions of the same classes. Beyond [HTL], which draws its tree
// but does not score it.
#pragma once

#include <cstdint>
#include <vector>

namespace dmlbench::theory {

// a[c], b[c]: the group of class c in each partition (any integers). purity = (1/C) sum over groups of a of the
// largest overlap with a group of b; inverse_purity the same with a and b swapped; nmi = 2 I(a; b) / (H(a) + H(b))
// (1 when both partitions are one group). Throws std::invalid_argument for lengths that differ or no classes.
struct PartitionAgreement {
  double purity = 0, inverse_purity = 0, nmi = 0;
  int groups_a = 0, groups_b = 0;
};
PartitionAgreement partition_agreement(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The level of a tree (node[l][c], as ClassTree holds it) whose node count is closest to `groups` (ties: the lower
// level) and its agreement with the known grouping `known[c]`. The stated measure of the report.
struct LevelAgreement {
  int level = 0, nodes = 0;
  PartitionAgreement agreement;
};
LevelAgreement closest_level_agreement(const std::vector<std::vector<int>>& node, const std::vector<std::int64_t>& known);

}  // namespace dmlbench::theory
