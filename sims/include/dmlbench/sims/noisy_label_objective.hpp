// Exact expectations over the noisy labels of the [LCC] objectives, with D the squared Euclidean distance ([LCC] Sec 3):
// E O_trip (Theorem 1), E O_margin with a learnable beta per point (Theorem 2), and E O_con (Sec 4.1).
#pragma once

#include "dmlbench/sims/noisy_label_model.hpp"

#include <Eigen/Core>

#include <random>

namespace dmlbench::sims {

enum class Objective { triplet, margin, contrastive };
Objective parse_objective(const std::string& s);
const char* name(Objective o);

// Positive sampling: every same-label point (the plain objectives), or the easy positive only ([LCC] Sec 4.3, EPS).
enum class Sampling { all, eps };
Sampling parse_sampling(const std::string& s);
const char* name(Sampling s);

struct ObjectiveConfig {
  NoisyLabelModel model;
  Objective objective = Objective::triplet;
  Sampling sampling = Sampling::all;  // eps: triplet and margin only
  double alpha = 0.2;  // margin
  int dim = 2;         // m: embedding dimension
  // Hinge smoothing for the optimizer's continuation: (z)_+ -> tau log(1 + e^{z/tau}) when tau > 0. Reported
  // objectives are always the exact ones (tau = 0).
  double smoothing = 0.0;
  void validate() const;
  // Number of parameters: n*m points, plus n betas for the margin loss.
  int parameters() const;
};

// Value and (where gradient != nullptr) exact gradient of the expected objective at the stacked parameters
// x = [f(x_1); ...; f(x_n); beta_1..beta_n]. Hinges contribute their one-sided gradient (0 at the kink). With
// sampling = eps this is E O_EPStrip / E O_EPSmargin (easy_positive_objective.hpp), without hinge smoothing.
// The exact triplet objectives (smoothing = 0) use the sorted O(n^2 t log n) evaluation
// (sorted_triplet_expectation.hpp); everything else the dense loops below.
double expected_objective(const ObjectiveConfig& c, const double* x, double* gradient);

// The dense O(n^3) evaluation of the same expectation: the reference the sorted one is tested against.
double expected_objective_dense(const ObjectiveConfig& c, const double* x, double* gradient);

// Squared distances of the stacked points, and the chain rule from d cost / d D back to the points.
Eigen::MatrixXd squared_distances(const ObjectiveConfig& c, const double* x);
void distance_gradient_to_points(const ObjectiveConfig& c, const double* x, const Eigen::MatrixXd& dcost_dD,
                                 double* gradient);

// The same objective for one draw of the labels Y (a vector of n labels in 0..t-1): the Monte Carlo reference.
double realized_objective(const ObjectiveConfig& c, const double* x, const std::vector<int>& labels);
std::vector<int> sample_labels(const NoisyLabelModel& m, std::mt19937_64& rng);

// The collapsed candidate f1 of the proofs: every class at one vertex of a regular simplex whose squared edge is
// `squared_gap` (alpha for the triplet loss, 2 alpha for the margin loss per the proofs), betas = beta.
Eigen::VectorXd collapsed_embedding(const ObjectiveConfig& c, double squared_gap, double beta);

// The proofs' collapsed candidate: squared gap alpha and (margin) gap 2 alpha with beta = alpha; contrastive: alpha.
struct CollapsedCandidate {
  double squared_gap = 0, beta = 0, objective = 0;
};
CollapsedCandidate proof_candidate(const ObjectiveConfig& c);

}  // namespace dmlbench::sims
