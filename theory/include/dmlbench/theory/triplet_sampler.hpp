// Triplets on the unit sphere in R^d built from (S_ap, S_an, gamma) ([XHN eq 19] parametrisation) or drawn at random.
#pragma once

#include "dmlbench/theory/spn_decomposition.hpp"

#include <Eigen/Core>
#include <Eigen/QR>

#include <random>
#include <string>
#include <vector>

namespace dmlbench::theory {

// An orthonormal triple (e1, e2, e3) in R^d, d >= 3, drawn uniformly (QR of a Gaussian matrix).
inline Eigen::MatrixXd random_orthonormal_frame(int d, std::mt19937_64& rng) {
  if (d < 3) throw domain_error("a triplet with arbitrary gamma needs dimension d >= 3, got " + std::to_string(d));
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd g(d, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < d; ++i) g(i, j) = normal(rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(d, 3);
  return q;
}

// The triplet with the given similarities and projection factor, embedded along frame's columns:
//   a = e1, p = S_ap e1 + sqrt(1-S_ap^2) e2, n = S_an e1 + sqrt(1-S_an^2) (gamma e2 + sqrt(1-gamma^2) e3).
// At S = +-1 the vectors are exactly +-e1.
inline Triplet make_triplet(double s_ap, double s_an, double gamma, const Eigen::MatrixXd& frame) {
  require_similarity("S_ap", s_ap);
  require_similarity("S_an", s_an);
  require_gamma(gamma);
  if (frame.cols() < 3) throw domain_error("make_triplet needs a frame of 3 orthonormal columns");
  const Eigen::VectorXd e1 = frame.col(0), e2 = frame.col(1), e3 = frame.col(2);
  Triplet t;
  t.a = e1;
  t.p = s_ap * e1 + sine_of(s_ap) * e2;
  t.n = s_an * e1 + sine_of(s_an) * (gamma * e2 + sine_of(gamma) * e3);
  return t;
}

// A random triplet of one of two kinds: (S_ap, S_an, gamma) uniform on [-1,1]^3 (covers the whole scatter
// diagram in any dimension), or three independent uniform points on the sphere (typical of high d).
inline Triplet random_triplet(int d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::bernoulli_distribution by_similarity(0.75);
  if (by_similarity(rng)) {
    const double s_ap = u(rng), s_an = u(rng), gamma = u(rng);
    return make_triplet(s_ap, s_an, gamma, random_orthonormal_frame(d, rng));
  }
  std::normal_distribution<double> normal(0.0, 1.0);
  auto point = [&] {
    Eigen::VectorXd v(d);
    for (int i = 0; i < d; ++i) v(i) = normal(rng);
    return Eigen::VectorXd(v / v.norm());
  };
  Triplet t;
  t.a = point();
  t.p = point();
  t.n = point();
  return t;
}

// Hand-picked awkward points: S at and next to +-1 and 0, gamma = -1, 0, 1 (coplanar and orthogonal planes).
struct EdgeCase {
  double s_ap, s_an, gamma;
};

inline std::vector<EdgeCase> edge_cases() {
  const double near = 1.0 - 1e-6;
  const std::vector<double> s_values = {-1.0, -near, -0.5, 0.0, 0.5, near, 1.0};
  const std::vector<double> g_values = {-1.0, 0.0, 0.3, 1.0};
  std::vector<EdgeCase> out;
  for (double s_ap : s_values)
    for (double s_an : s_values)
      for (double g : g_values) out.push_back({s_ap, s_an, g});
  return out;
}

}  // namespace dmlbench::theory
