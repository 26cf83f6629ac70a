// E O_trip ([LCC] Thm 1) and E O_EPStrip ([LCC] App. B) with their gradients in O(n^2 t log n) instead of O(n^3):
// per anchor, the distances are sorted, and the hinge sums over a class of negatives become a count and a prefix
// sum. Same objective as the dense triple loop (noisy_label_objective.cpp), which stays the reference in the tests.
#pragma once

#include "dmlbench/sims/noisy_label_objective.hpp"

#include <Eigen/Core>

namespace dmlbench::sims {

// For the exact (unsmoothed) triplet objectives: value and d cost / d D (n x n). sampling = all uses the triple
// convention of the model; sampling = eps the easy positive (convention-free, see easy_positive_objective.hpp).
double sorted_triplet_expectation(const ObjectiveConfig& c, const Eigen::MatrixXd& D, Eigen::MatrixXd* dcost_dD);

}  // namespace dmlbench::sims
