// Effective projection strength of the Euclidean vs the cosine gradient direction on a pair of similarity S
// ([XGS eq 20]): the length of the unit direction's component tangent to the sphere at the moved feature.
#pragma once

#include "dmlbench/theory/spn_decomposition.hpp"

#include <Eigen/Core>

#include <cmath>

namespace dmlbench::theory {

// The text of [XGS] Sec 5.4 lost eq 20; reconstructed from its definition: for a positive f_p moved along the unit
// direction u, only u's part orthogonal to f_p changes the angle to f_a. Euclidean direction u = (f_a-f_p)/|f_a-f_p|
// gives sqrt((1+S)/2); cosine direction u = f_a gives sqrt(1-S^2).
inline double euclidean_projection_strength(double s) {
  require_similarity("S", s);
  return std::sqrt((1.0 + s) / 2.0);
}

inline double cosine_projection_strength(double s) { return sine_of(s); }

// The same quantity measured on explicit unit vectors: |u - (u.f) f| for u the unit direction moving f towards g.
inline double measured_projection_strength(const Eigen::VectorXd& u, const Eigen::VectorXd& f) {
  return (u - u.dot(f) * f).norm();
}

// The similarity above which the Euclidean direction is stronger: sqrt((1+S)/2) = sqrt(1-S^2) at S = 1/2.
inline constexpr double kProjectionCrossover = 0.5;

}  // namespace dmlbench::theory
