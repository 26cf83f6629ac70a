// The NCA triplet loss L1st = -log(e^{S_ap} / (e^{S_ap} + e^{S_an})) and its gradient step ([XHN eqs 1, 4-6]).
#pragma once

#include "dmlbench/theory/autodiff_gradient.hpp"
#include "dmlbench/theory/spn_decomposition.hpp"

#include <cmath>

namespace dmlbench::theory {

// [XHN eq 1], with an optional scale s on the similarities ([XGS eq 4]; s = 1 in [XHN]).
template <class T>
T nca_triplet_loss(const T& s_ap, const T& s_an, double scale = 1.0) {
  using std::exp;
  using std::log;
  const T ea = exp(scale * s_ap), en = exp(scale * s_an);
  return -log(ea / (ea + en));
}

// L1st of three feature vectors stacked as x = [f_a; f_p; f_n], S = plain dot products (as [XHN] differentiates).
template <class T>
T nca_triplet_loss_features(const std::vector<T>& x, int d) {
  return nca_triplet_loss(dot(x, 0, d, d), dot(x, 0, 2 * d, d));
}

namespace detail {
inline double nca_beta(double s_ap, double s_an, double lr) { return lr / (1.0 + std::exp(s_ap - s_an)); }
}  // namespace detail

// beta = alpha e^{S_an} / (e^{S_ap} + e^{S_an}) under [XHN eq 6].
inline double nca_beta(double s_ap, double s_an, double lr) {
  require_step_inputs(s_ap, s_an, lr);
  return detail::nca_beta(s_ap, s_an, lr);
}

// The printed update [XHN eqs 4-6]: f_p + beta f_a, f_n - beta f_a, f_a - beta f_n + beta f_p.
inline Triplet nca_update(const Triplet& t, double lr) {
  require_unit_triplet(t);
  const auto s = similarities(t);
  const double b = nca_beta(s.ap, s.an, lr);
  return {t.a - b * t.n + b * t.p, t.p + b * t.a, t.n - b * t.a};
}

}  // namespace dmlbench::theory
