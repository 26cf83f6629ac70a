// Structure of an embedding of the [LCC] toy sets: per-class diameters, the smallest inter-class distance, the
// number of sub-clusters per class (single linkage) and the class-collapse verdict of [LCC Sec 4].
#pragma once

#include "dmlbench/sims/noisy_label_model.hpp"

#include <Eigen/Core>

#include <vector>

namespace dmlbench::sims {

struct EmbeddingStructure {
  std::vector<double> class_diameter;   // max distance between two points of a true class
  double min_interclass_distance = 0;   // min distance between points of different true classes
  double max_interclass_sq_distance = 0;
  double min_interclass_sq_distance = 0;
  std::vector<int> subclusters;         // single-linkage clusters per class at the threshold
  double threshold = 0;
  bool collapsed = false;               // every class diameter below the threshold
};

// points: n x m (row i = f(x_i)). threshold: the single-linkage and collapse distance.
EmbeddingStructure analyse_structure(const NoisyLabelModel& m, const Eigen::MatrixXd& points, double threshold);

}  // namespace dmlbench::sims
