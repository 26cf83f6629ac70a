// The class-level hierarchy and dynamic violate margin of the hierarchical triplet loss ([HTL] Sec 4.1-4.2: class
// distance d(p, q), average inner distance d_0, merge thresholds d_l = l (4 - d_0) / L + d_0, alpha_z = beta +
// d_H(y_a, y_n) - s_{y_a}). Eigen only; features are rows, assumed L2-normalised as [HTL] says (then every squared
// distance lies in [0, 4]); nothing here requires it, but thresholds above 4 then merge every class.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::theory {

// Class distances of features grouped by label ([HTL] Sec 4.1): d(p, q) = mean over i in p, j in q of |r_i - r_j|^2
// (also for p = q, where it includes i = j); s_c = mean over i != j in c of |r_i - r_j|^2 (the class's average inner
// distance, [HTL] eq for s_{y_a}); d_0 = mean of s_c over classes. Classes are the sorted distinct labels.
struct ClassDistances {
  std::vector<std::int64_t> classes;
  Eigen::MatrixXd d;     // C x C
  Eigen::VectorXd inner; // s_c
  double d0 = 0;
};

// Throws std::invalid_argument for rows / labels of different lengths, a non-finite feature, or a class with fewer than
// two samples (its s_c is undefined).
ClassDistances class_distances(const Eigen::MatrixXd& features, const std::vector<std::int64_t>& labels);

// How two nodes' distance is taken once they hold several classes: [HTL] does not say. single: the smallest class
// distance between them (merging at d_l is then the connected components of d < d_l); average: the mean class
// distance (UPGMA, the default: a chain of close pairs does not merge two far classes); complete: the largest.
enum class Linkage { single, average, complete };
Linkage linkage_from_name(const std::string& name);  // single | average | complete, else std::invalid_argument

// The tree: levels 0..L, node[l][c] the node (0..nodes(l)-1) of class index c at level l; threshold[l] = d_l.
// Level l merges, starting from level l-1's nodes (level 0 from the classes), the closest pair of nodes while their
// linkage distance is < d_l, so each level is a partition coarser than (or equal to) the one below.
struct ClassTree {
  std::vector<double> threshold;
  std::vector<std::vector<int>> node;
  int levels() const { return int(threshold.size()) - 1; }  // L
  int nodes(int level) const;
  // The level at which class indices a and b first share a node; -1 if they never do (a distance >= d_L = 4).
  int merge_level(int a, int b) const;
};

// L >= 1 levels above the leaves ([HTL]: 16 levels including the leaves, so L = 15 in this numbering).
ClassTree build_class_tree(const ClassDistances& cd, int levels, Linkage linkage = Linkage::average);

// [HTL] alpha_z = beta + d_{H(y_a, y_n)} - s_{y_a}: d_H the threshold of the level where the anchor's and the
// negative's classes first share a node (the classes given as indices into cd.classes); a pair that never merges
// takes d_L. beta = 0.1 in [HTL].
double dynamic_violate_margin(const ClassTree& tree, const ClassDistances& cd, int anchor_class, int negative_class,
                              double beta = 0.1);

}  // namespace dmlbench::theory
