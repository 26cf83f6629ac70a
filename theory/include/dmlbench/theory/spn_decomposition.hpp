// S_pn = S_ap S_an + gamma sqrt(1 - S_ap^2) sqrt(1 - S_an^2), gamma the projection factor ([XHN eq 19], [XHN-A eq 3]).
#pragma once

#include "dmlbench/theory/domain_checks.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>

namespace dmlbench::theory {

// The three cosine similarities of a triplet on the unit sphere.
struct TripletSimilarities {
  double ap = 0.0;
  double an = 0.0;
  double pn = 0.0;
};

// A triplet of feature vectors (anchor, positive, negative).
struct Triplet {
  Eigen::VectorXd a;
  Eigen::VectorXd p;
  Eigen::VectorXd n;
};

// [f_a; f_p; f_n] as one vector of 3d coordinates: the layout the autodiff gradients of the losses use.
inline Eigen::VectorXd stacked(const Triplet& t) {
  Eigen::VectorXd x(3 * t.a.size());
  x << t.a, t.p, t.n;
  return x;
}

inline void require_unit_triplet(const Triplet& t) {
  require_same_dimension(t.a, t.p, t.n);
  require_unit("anchor f_a", t.a);
  require_unit("positive f_p", t.p);
  require_unit("negative f_n", t.n);
}

// A dot product of unit vectors can overshoot [-1, 1] by a few ulps (e.g. -1 - 2.2e-16 for f_p = -f_a). Such an
// overshoot (at most 1e-12) is rounding and is clamped; anything larger means the vectors were not unit.
inline double measured_similarity(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  const double s = x.dot(y);
  if (std::abs(s) > 1.0 + 1e-12) throw domain_error("similarity of unit vectors out of [-1, 1]: " + format_value(s));
  return std::clamp(s, -1.0, 1.0);
}

inline TripletSimilarities similarities(const Triplet& t) {
  return {measured_similarity(t.a, t.p), measured_similarity(t.a, t.n), measured_similarity(t.p, t.n)};
}

namespace detail {
// sqrt(1 - s^2) for |s| <= 1 already checked by the caller; (1-s)(1+s) keeps accuracy near |s| = 1.
inline double sine(double s) { return std::sqrt((1.0 - s) * (1.0 + s)); }
}  // namespace detail

// sqrt(1 - s^2), the length of the component of a unit vector orthogonal to the anchor.
inline double sine_of(double s) {
  require_similarity("similarity", s);
  return detail::sine(s);
}

// Right-hand side of [XHN eq 19].
inline double spn_from_decomposition(double s_ap, double s_an, double gamma) {
  require_similarity("S_ap", s_ap);
  require_similarity("S_an", s_an);
  require_gamma(gamma);
  return s_ap * s_an + gamma * sine_of(s_ap) * sine_of(s_an);
}

// Components of f_p and f_n orthogonal to f_a shorter than this are treated as zero: gamma is then
// undefined, and its coefficient sqrt(1-S_ap^2) sqrt(1-S_an^2) in eq 19 is below 1e-12 anyway.
inline constexpr double kPerpendicularFloor = 1e-12;

// gamma = <f_p^{a perp}, f_n^{a perp}> / (|f_p^{a perp}| |f_n^{a perp}|) as defined under [XHN eq 19].
// Returns 0 where either perpendicular part vanishes (p or n parallel to a), where eq 19 holds for any gamma.
inline double measure_gamma(const Triplet& t) {
  require_unit_triplet(t);
  const Eigen::VectorXd p_perp = t.p - t.a.dot(t.p) * t.a;
  const Eigen::VectorXd n_perp = t.n - t.a.dot(t.n) * t.a;
  const double np = p_perp.norm();
  const double nn = n_perp.norm();
  if (np < kPerpendicularFloor || nn < kPerpendicularFloor) return 0.0;
  const double g = p_perp.dot(n_perp) / (np * nn);
  return std::clamp(g, -1.0, 1.0);
}

}  // namespace dmlbench::theory
