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
  Eigen::VectorXd anchor_cost;  // anchor i's share of cost (same scale; they sum to cost)
};
EpsEvaluation expected_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta);

// The same for one draw of labels: the Monte Carlo reference.
double realized_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta,
                              const std::vector<int>& labels);

// Squared-distance matrices of the proofs: f1 has D = 0 inside a class and alpha between classes; f2 is f1 with
// A_1 split into its first and second halves at D = alpha ([LCC] App. B prints the split at t/2n, read n/(2t)).
Eigen::MatrixXd f1_distances(const NoisyLabelModel& m, double alpha);
Eigen::MatrixXd f2_distances(const NoisyLabelModel& m, double alpha);

// E O_EPSmargin with every anchor's beta_i at its optimum. Exact: anchor i's share is convex and piecewise linear in
// beta_i (non-negative weights on (D_ij - beta_i + alpha)_+ and (beta_i - D_ij + alpha)_+), so its minimum lies at
// one of its kinks D_ij +- alpha, or beyond all of them where it is constant; every kink of every row is tried. With
// `nonnegative`, over beta_i >= 0 only: the kinks >= 0 and 0 itself (where a kink below 0 was the free minimum, the
// constrained one lies at 0 or at a kink above it).
struct MarginBetaOptimum {
  double cost = 0;
  Eigen::VectorXd beta;
};
MarginBetaOptimum optimal_margin_betas(const ObjectiveConfig& c, const Eigen::MatrixXd& D, bool nonnegative = false);

// How Claims 1-2's comparison sets the margin loss's beta, which [LCC] App. B leaves free (the proof keeps
// beta_{x_i} symbolic): alpha for every point, or per anchor at its optimum for each embedding, over every real beta
// (optimised, where beta ~ -alpha switches every negative term off) or over beta >= 0 (optimised_nonnegative: a
// margin boundary at a distance, as the margin loss's beta is).
enum class MarginBeta { alpha, optimised, optimised_nonnegative };

// Smallest n (a multiple of 2t, up to n_max) from which E O_EPS(f2) < E O_EPS(f1) holds for every larger n tried
// (Claims 1-2's M); -1 if the inequality still fails at n_max. Betas (margin only): as `beta` says.
int claim_threshold_n(Objective o, int t, double p, double alpha, int n_max, MarginBeta beta = MarginBeta::alpha);

// The two sides of Claim 2 at one n: E O_EPSmargin of f1 and of f2, with the betas `beta` says.
struct Claim2Sides {
  double f1 = 0, f2 = 0;
};
Claim2Sides claim2_sides(int n, int t, double p, double alpha, MarginBeta beta);

// Claims 3-4 of [LCC] App. B, for the anchor x_0 with the other points in index order (the proofs' "WLOG
// D_{x1,x1} < D_{x1,x2} < ... "), ranks 1..n-1:
//  - margin_pair_weights: at rank r, a_r = E[Phi delta] (weight of (D - beta + alpha)_+) and b_r = E[1 - delta]
//    (weight of (beta - D + alpha)_+). The pair term is minimised at D = beta + alpha iff b_r > a_r.
//  - triplet_swap_weights: for the positive at rank t and the point at rank t + j, w_forward = weight of
//    (D_t - D_{t+j} + alpha)_+ and w_backward = weight of (D_{t+j} - D_t + alpha)_+; their sum is minimised at
//    D_{t+j} = D_t + alpha iff w_forward > w_backward.
struct PairWeightsAtRank {
  std::vector<double> a, b;  // index r = 1..n-1 (a[0], b[0] unused)
};
PairWeightsAtRank margin_pair_weights(const NoisyLabelModel& m);
struct SwapWeights {
  double forward = 0, backward = 0;
};
SwapWeights triplet_swap_weights(const NoisyLabelModel& m, int t_rank, int j);

// The smallest rank M (Claim 3) / offset M (Claim 4, positive at rank t_rank) from which the claimed minimiser holds
// for every later rank; -1 if it fails at the last rank.
int claim3_threshold_rank(const NoisyLabelModel& m);
int claim4_threshold_offset(const NoisyLabelModel& m, int t_rank);

}  // namespace dmlbench::sims
