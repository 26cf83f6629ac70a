// Input validation shared by every theory function: similarities and gamma in [-1, 1], unit vectors,
// positive learning rates. Bad input throws dmlbench::theory::domain_error naming the offending value;
// nothing in theory/ returns a silent NaN.
#pragma once

#include <Eigen/Core>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dmlbench::theory {

struct domain_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A unit vector computed in double has | ||v|| - 1 | of order d * eps (3e-14 for d = 128); 1e-9 admits
// every such vector and rejects any vector that was not normalised.
inline constexpr double kUnitNormTolerance = 1e-9;

inline std::string format_value(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

inline void require_finite(const char* name, double v) {
  if (!std::isfinite(v)) throw domain_error(std::string(name) + " must be finite, got " + format_value(v));
}

inline void require_similarity(const char* name, double s) {
  require_finite(name, s);
  if (s < -1.0 || s > 1.0)
    throw domain_error(std::string(name) + " is a cosine similarity and must lie in [-1, 1], got " +
                       format_value(s));
}

inline void require_gamma(double gamma) {
  require_finite("gamma", gamma);
  if (gamma < -1.0 || gamma > 1.0)
    throw domain_error("gamma is a cosine between planes and must lie in [-1, 1], got " + format_value(gamma));
}

inline void require_positive(const char* name, double v) {
  require_finite(name, v);
  if (!(v > 0.0)) throw domain_error(std::string(name) + " must be > 0, got " + format_value(v));
}

inline void require_in_closed(const char* name, double v, double lo, double hi) {
  require_finite(name, v);
  if (v < lo || v > hi)
    throw domain_error(std::string(name) + " must lie in [" + format_value(lo) + ", " + format_value(hi) +
                       "], got " + format_value(v));
}

// The inputs of one gradient step on the scatter diagram: two similarities and a learning rate.
inline void require_step_inputs(double s_ap, double s_an, double lr) {
  require_similarity("S_ap", s_ap);
  require_similarity("S_an", s_an);
  require_positive("learning rate", lr);
}

inline void require_unit(const char* name, const Eigen::VectorXd& v) {
  if (v.size() == 0) throw domain_error(std::string(name) + " is empty");
  if (!v.allFinite()) throw domain_error(std::string(name) + " has a non-finite coordinate");
  const double norm = v.norm();
  if (std::abs(norm - 1.0) > kUnitNormTolerance)
    throw domain_error(std::string(name) + " must be a unit vector, its norm is " + format_value(norm));
}

inline void require_same_dimension(const Eigen::VectorXd& a, const Eigen::VectorXd& p, const Eigen::VectorXd& n) {
  if (a.size() != p.size() || a.size() != n.size())
    throw domain_error("anchor, positive and negative must have the same dimension, got " +
                       std::to_string(a.size()) + ", " + std::to_string(p.size()) + ", " +
                       std::to_string(n.size()));
}

}  // namespace dmlbench::theory
