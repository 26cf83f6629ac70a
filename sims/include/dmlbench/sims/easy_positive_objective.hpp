// Easy Positive Sampling in the noisy environment ([LCC] Sec 4.3, Appendix B): the positive of anchor x_i is its
// closest point with the same observed label. Exact expectations E O_EPStrip and E O_EPSmargin, and the two
// embeddings f1 (collapsed) and f2 (class A_1 split in two modalities) of Claims 1-2.
#pragma once

#include "dmlbench/sims/noisy_label_objective.hpp"

#include <Eigen/Core>

namespace dmlbench::sims {

// Expectation of Phi(Y_i, Y_j) delta(Y_i, Y_j) (1 - delta(Y_i, Y_k)) under independent labels, derived here:
// order the points other than i by (D_il, l) (ties broken by index, the paper's "infinitesimally close" points in a
// fixed order). x_j is the easy positive iff Y_j = Y_i = c and no point before j has label c, so
//   E = sum_c pi_i(c) pi_j(c) prod_{l before j} (1 - pi_l(c)) * w_k(c),
// with w_k(c) = 1 - pi_k(c) if k comes after j, 1 if before (Y_k != c is already required), 0 if k = j or k = i.
// The margin form uses E[Phi delta_ij] (the same sum without w_k) on positives and 1 - P(Y_i = Y_j) on negatives.
// Phi(Y_i, Y_i) = 0: the positive is another point, so the j = i terms vanish under either triple convention.
//
// Value and gradient with respect to the distance matrix D (n x n) and beta: dcost_dD(i, j) for the ordered pair.
// The ordering is held fixed (the objective jumps where it changes; its gradient exists almost everywhere).
struct EpsEvaluation {
  double cost = 0;
  Eigen::MatrixXd dcost_dD;
  Eigen::VectorXd dcost_dbeta;
};
EpsEvaluation expected_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta);

// The same for one draw of labels: the Monte Carlo reference.
double realized_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta,
                              const std::vector<int>& labels);

// Squared-distance matrices of the proofs: f1 has D = 0 inside a class and alpha between classes; f2 is f1 with
// A_1 split into its first and second halves at D = alpha ([LCC] App. B prints the split at t/2n, read n/(2t)).
Eigen::MatrixXd f1_distances(const NoisyLabelModel& m, double alpha);
Eigen::MatrixXd f2_distances(const NoisyLabelModel& m, double alpha);

// Smallest n (a multiple of 2t, up to n_max) from which E O_EPS(f2) < E O_EPS(f1) holds for every larger n tried
// (Claims 1-2's M); -1 if the inequality still fails at n_max. Betas: alpha for every point.
int claim_threshold_n(Objective o, int t, double p, double alpha, int n_max);

}  // namespace dmlbench::sims
