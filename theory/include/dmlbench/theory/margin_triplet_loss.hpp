// The vanilla (margin) triplet loss max(|f_a-f_p|^2 - |f_a-f_n|^2 + margin, 0) and its step ([XHN eqs 28-34], [XHN-A eqs 7-13]).
#pragma once

#include "dmlbench/theory/autodiff_gradient.hpp"
#include "dmlbench/theory/spn_decomposition.hpp"

namespace dmlbench::theory {

// The gradient coefficient printed under [XHN eq 31]: g_p = -beta (f_a - f_p) etc. with beta = 2.
inline constexpr double kMarginGradientBeta = 2.0;

// A margin above 4 keeps the hinge active for every unit triplet (|f_a-f_p|^2 - |f_a-f_n|^2 >= -4), which is
// the case "D > 0" that [XHN] App. E assumes throughout.
inline constexpr double kAlwaysActiveMargin = 4.5;

// [XHN eq 28].
template <class T>
T margin_triplet_loss_features(const std::vector<T>& x, int d, double margin = kAlwaysActiveMargin) {
  T dap(0.0), dan(0.0);
  for (int i = 0; i < d; ++i) {
    const T u = x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(d + i)];
    const T v = x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(2 * d + i)];
    dap += u * u;
    dan += v * v;
  }
  const T D = dap - dan + margin;
  return D > 0.0 ? D : T(0.0);
}

// [XHN eqs 32-34] as printed, for a given beta: (1-beta) f_p + beta f_a, (1+beta) f_n - beta f_a,
// f_a - beta f_n + beta f_p. With the learning rate alpha, the gradient step of eqs 29-31 is this with
// beta = 2 alpha (see the claim xhn-eq32-34 and margin_step_beta).
inline Triplet margin_update(const Triplet& t, double beta) {
  require_unit_triplet(t);
  require_positive("beta", beta);
  return {t.a - beta * t.n + beta * t.p, (1.0 - beta) * t.p + beta * t.a, (1.0 + beta) * t.n - beta * t.a};
}

// The beta for which eqs 32-34 are the gradient step of learning rate alpha (erratum: printed beta = 2).
inline double margin_step_beta(double lr) {
  require_positive("learning rate", lr);
  return kMarginGradientBeta * lr;
}

}  // namespace dmlbench::theory
