// The 2nd-order triplet loss L2nd ([XHN eq 16]) and its weighted gradient step ([XHN eqs 13-15]).
#pragma once

#include "dmlbench/theory/autodiff_gradient.hpp"
#include "dmlbench/theory/spn_decomposition.hpp"

#include <cmath>

namespace dmlbench::theory {

// [XHN eq 16]: -log(e^{S_ap - S_ap^2/2} / (e^{S_ap - S_ap^2/2} + e^{S_an^2/2})).
template <class T>
T second_order_loss(const T& s_ap, const T& s_an) {
  using std::exp;
  using std::log;
  const T ea = exp(s_ap - 0.5 * s_ap * s_ap), en = exp(0.5 * s_an * s_an);
  return -log(ea / (ea + en));
}

template <class T>
T second_order_loss_features(const std::vector<T>& x, int d) {
  return second_order_loss(dot(x, 0, d, d), dot(x, 0, 2 * d, d));
}

// The weights of [XHN] Sec 5: w_ap = 1 - S_ap, w_an = S_an.
struct SecondOrderWeights {
  double w_ap = 0.0;
  double w_an = 0.0;
};

inline SecondOrderWeights second_order_weights(double s_ap, double s_an) {
  require_similarity("S_ap", s_ap);
  require_similarity("S_an", s_an);
  return {1.0 - s_ap, s_an};
}

namespace detail {
inline double second_order_beta(double s_ap, double s_an, double lr) {
  return lr / (1.0 + std::exp(s_ap - 0.5 * s_ap * s_ap - 0.5 * s_an * s_an));
}
}  // namespace detail

// beta_w = alpha e^{S_an^2/2} / (e^{S_ap - S_ap^2/2} + e^{S_an^2/2}) under [XHN eq 15].
inline double second_order_beta(double s_ap, double s_an, double lr) {
  require_step_inputs(s_ap, s_an, lr);
  return detail::second_order_beta(s_ap, s_an, lr);
}

// The printed update [XHN eqs 13-15]: f - alpha g^w.
inline Triplet second_order_update(const Triplet& t, double lr) {
  require_unit_triplet(t);
  const auto s = similarities(t);
  const double s_ap = s.ap, s_an = s.an;
  const double b = second_order_beta(s_ap, s_an, lr);
  const auto w = second_order_weights(s_ap, s_an);
  return {t.a - b * w.w_an * t.n + b * w.w_ap * t.p, t.p + b * w.w_ap * t.a, t.n - b * w.w_an * t.a};
}

}  // namespace dmlbench::theory
