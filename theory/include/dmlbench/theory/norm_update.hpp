// Closed forms of the squared norms of the updated features as printed in [XHN eqs 20-22, 25-27, 35-37] and
// [XHN-A eqs 4-6, 14-16]; each function transcribes one printed equation (gamma as under [XHN eq 19]).
// The transcriptions take S, gamma in [-1, 1] as checked by their callers (delta_s_closed_form, the sweep, the
// claims); they are the paper's formulas verbatim and nothing else.
#pragma once

#include "dmlbench/theory/spn_decomposition.hpp"

#include <cmath>

namespace dmlbench::theory {

// [XHN eq 20] = [XHN-A eq 4]: |f_p^new|^2 = (1 + b S_ap)^2 + b^2 (1 - S_ap^2).
inline double xhn_eq20_norm_p_sq(double s_ap, double b) {
  return std::pow(1 + b * s_ap, 2) + b * b * (1 - s_ap * s_ap);
}

// [XHN eq 21] = [XHN-A eq 5]: |f_n^new|^2 = (1 - b S_an)^2 + b^2 (1 - S_an^2).
inline double xhn_eq21_norm_n_sq(double s_an, double b) {
  return std::pow(1 - b * s_an, 2) + b * b * (1 - s_an * s_an);
}

// [XHN eq 22] = [XHN eq 37] = [XHN-A eqs 6, 16]:
// |f_a^new|^2 = (1 + b S_ap - b S_an)^2 + (b sqrt(1-S_ap^2) - gamma b sqrt(1-S_an^2))^2
//               + (b sqrt(1-gamma^2) sqrt(1-S_an^2))^2.
inline double xhn_eq22_norm_a_sq(double s_ap, double s_an, double gamma, double b) {
  return std::pow(1 + b * s_ap - b * s_an, 2) + std::pow(b * detail::sine(s_ap) - gamma * b * detail::sine(s_an), 2) +
         std::pow(b * detail::sine(gamma) * detail::sine(s_an), 2);
}

// [XHN eq 25]: |f_p^new|^2 = (1 + w_ap b S_ap)^2 + w_ap^2 b^2 (1 - S_ap^2).
inline double xhn_eq25_norm_p_sq(double s_ap, double b, double w_ap) {
  return std::pow(1 + w_ap * b * s_ap, 2) + w_ap * w_ap * b * b * (1 - s_ap * s_ap);
}

// [XHN eq 26]: |f_n^new|^2 = (1 - w_an b S_an)^2 + w_an^2 b^2 (1 - S_an^2).
inline double xhn_eq26_norm_n_sq(double s_an, double b, double w_an) {
  return std::pow(1 - w_an * b * s_an, 2) + w_an * w_an * b * b * (1 - s_an * s_an);
}

// [XHN eq 27]: |f_a^new|^2 = (1 + w_ap b S_ap - w_an b S_an)^2 + (w_ap b sqrt(1-S_ap^2) - gamma w_an b sqrt(1-S_an^2))^2
//                            + (w_an b sqrt(1-gamma^2) sqrt(1-S_an^2))^2.
inline double xhn_eq27_norm_a_sq(double s_ap, double s_an, double gamma, double b, double w_ap, double w_an) {
  return std::pow(1 + w_ap * b * s_ap - w_an * b * s_an, 2) +
         std::pow(w_ap * b * detail::sine(s_ap) - gamma * w_an * b * detail::sine(s_an), 2) +
         std::pow(w_an * b * detail::sine(gamma) * detail::sine(s_an), 2);
}

// [XHN eq 35] = [XHN-A eq 14]: |f_p^new|^2 = (1 - b + b S_ap)^2 + b^2 (1 - S_ap^2).
inline double xhn_eq35_norm_p_sq(double s_ap, double b) {
  return std::pow(1 - b + b * s_ap, 2) + b * b * (1 - s_ap * s_ap);
}

// [XHN eq 36] = [XHN-A eq 15]: |f_n^new|^2 = (1 + b - b S_an)^2 + b^2 (1 - S_an^2).
inline double xhn_eq36_norm_n_sq(double s_an, double b) {
  return std::pow(1 + b - b * s_an, 2) + b * b * (1 - s_an * s_an);
}

}  // namespace dmlbench::theory
