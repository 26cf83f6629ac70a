// Gradient of pair-wise losses = unit direction x pair weight x triplet weight ([XGS Sec 3, eqs 5-19, Table 1]).
// The extraction of [XGS] lost its equations; every factor is reconstructed from the original paper of the loss,
// cited at each function, and the check is that -dL/df (by autodiff of the loss) equals the composition.
#pragma once

#include "dmlbench/theory/autodiff_gradient.hpp"
#include "dmlbench/theory/spn_decomposition.hpp"

#include <Eigen/Core>

#include <cmath>
#include <string>
#include <vector>

namespace dmlbench::theory::xgs {

// ---- unit directions [XGS Sec 3.2] -------------------------------------------------------------------------
enum class Direction { euclidean, cosine };

// Descent directions (along -gradient) of one triplet: positive, negative, and the anchor's two pair terms.
struct UnitDirections {
  Eigen::VectorXd p, n, a_from_p, a_from_n;
};

// Euclidean D_E (eq 5): f_p moves along (f_a - f_p)/|f_a - f_p|, f_n along (f_n - f_a)/|f_n - f_a|, the anchor along
// (f_p - f_a)/|.| and (f_a - f_n)/|.|. Cosine D_C (eq 6): f_p along f_a, f_n along -f_a, the anchor along f_p and -f_n.
UnitDirections unit_directions(Direction dir, const Triplet& t);

// ---- pair weights [XGS Sec 3.3] ----------------------------------------------------------------------------
struct PairWeights {
  double p = 0, n = 0;
};

// P_c (eq 8): the constant scale s of the cosine NCA triplet loss.
inline PairWeights constant_pair_weight(double scale) { return {scale, scale}; }

// P_E (eq 9): 2|f_a - f_p| and 2|f_a - f_n|, the distance-proportional weight of the squared-distance triplet
// loss of Schroff et al. 2015 (the 2 because d(|x|^2) = 2|x| d|x|).
PairWeights euclidean_pair_weight(const Triplet& t);

// P_L (eq 10), Circle loss (Sun et al. CVPR 2020, eq 4 and Sec 3.2): gamma [1 + m - S_ap]_+ and gamma [S_an + m]_+.
PairWeights linear_pair_weight(double s_ap, double s_an, double gamma, double m);

// P_S (eq 11), binomial deviance (Yi et al. ICPR 2014, in the form of Wang et al. CVPR 2019 eq 6 with
// hyper-parameters alpha, beta, lambda): alpha / (1 + e^{alpha (S_ap - lambda)}), beta / (1 + e^{-beta (S_an - lambda)}).
PairWeights sigmoid_pair_weight(double s_ap, double s_an, double alpha, double beta, double lambda);

// ---- triplet weights [XGS Sec 3.4] -------------------------------------------------------------------------
// T_1 (eq 15).
inline double constant_triplet_weight() { return 1.0; }
// The hinge of the Euclidean triplet loss: 1 where |a-p|^2 - |a-n|^2 + margin > 0, else 0 (eq 5).
double hinge_triplet_weight(const Triplet& t, double margin);
// T_NCA (eq 16): e^{s S_an} / (e^{s S_ap} + e^{s S_an}).
double nca_triplet_weight(double s_ap, double s_an, double scale);
// T_Circle (eq 17): sigmoid(gamma (alpha_n (S_an - Delta_n) - alpha_p (S_ap - Delta_p))), alpha_p = [1+m-S_ap]_+,
// alpha_n = [S_an+m]_+, Delta_p = 1-m, Delta_n = m (Sun et al. 2020 eqs 4-6). Its level sets are circles when
// alpha > 0: the exponent is gamma (S_an^2 + (1-S_ap)^2 - 2 m^2).
double circle_triplet_weight(double s_ap, double s_an, double gamma, double m);
// M_SC1 (eq 18): SCT (Xuan et al. ECCV 2020) drops the positive pair of a triplet with a hard negative S_an > S_ap.
inline bool sct1_selects(double s_ap, double s_an) { return s_an > s_ap; }
// M_SC2 (eq 19), reconstructed: the selection boundary becomes the circle of T_Circle, S_an^2 + (1-S_ap)^2 = 2 m^2.
inline bool sct2_selects(double s_ap, double s_an, double m) {
  return s_an * s_an + (1 - s_ap) * (1 - s_ap) > 2 * m * m;
}

// ---- composition -------------------------------------------------------------------------------------------
// -dL/df_a, -dL/df_p, -dL/df_n of one triplet.
struct TripletDescent {
  Eigen::VectorXd a, p, n;
};

// T (w_p d_p, w_n d_n, w_p d_ap + w_n d_an): the [XGS] gradient of one triplet.
TripletDescent compose(Direction dir, const PairWeights& w, double triplet_weight, const Triplet& t);

// ---- the losses of [XGS Table 1], over stacked features x = [f_a; f_p; f_n] ---------------------------------
struct LossParams {
  double margin = 0.2;    // Euclidean triplet margin (Schroff et al.)
  double scale = 16.0;    // s of the NCA triplet loss, gamma of Circle loss
  double circle_m = 0.25; // Circle loss relaxation m (Sun et al. default)
  double alpha = 2.0, beta = 50.0, lambda = 0.5;  // binomial deviance / MS (Wang et al. defaults: 2, 50, 1 -> 0.5)
  double sct_lambda = 1.0;  // SCT weight of the contrastive term on a hard negative
};

template <class T>
T euclidean_triplet_loss(const std::vector<T>& x, int d, const LossParams& c) {
  T dap(0.0), dan(0.0);
  for (int i = 0; i < d; ++i) {
    const T u = x[std::size_t(i)] - x[std::size_t(d + i)], v = x[std::size_t(i)] - x[std::size_t(2 * d + i)];
    dap += u * u;
    dan += v * v;
  }
  const T D = dap - dan + c.margin;
  return D > 0.0 ? D : T(0.0);
}

template <class T>
T nca_cosine_triplet_loss(const std::vector<T>& x, int d, const LossParams& c) {
  using std::exp;
  using std::log;
  const T sp = dot(x, 0, d, d), sn = dot(x, 0, 2 * d, d);
  return log(1.0 + exp(c.scale * (sn - sp)));
}

// Circle loss of one triplet (Sun et al. 2020 eq 6 with one positive and one negative); alpha_p, alpha_n are
// constants in back-propagation, as in the authors' implementation (they are computed from detached similarities).
template <class T>
T circle_loss(const std::vector<T>& x, int d, const LossParams& c) {
  using std::exp;
  using std::log;
  const T sp = dot(x, 0, d, d), sn = dot(x, 0, 2 * d, d);
  const double ap = std::max(0.0, 1 + c.circle_m - value_of(sp)), an = std::max(0.0, value_of(sn) + c.circle_m);
  const double dp = 1 - c.circle_m, dn = c.circle_m;
  return log(1.0 + exp(c.scale * (an * (sn - dn) - ap * (sp - dp))));
}

template <class T>
T binomial_deviance_loss(const std::vector<T>& x, int d, const LossParams& c) {
  using std::exp;
  using std::log;
  const T sp = dot(x, 0, d, d), sn = dot(x, 0, 2 * d, d);
  return log(1.0 + exp(-c.alpha * (sp - c.lambda))) + log(1.0 + exp(c.beta * (sn - c.lambda)));
}

// Selectively contrastive triplet loss (Xuan et al. ECCV 2020 eq 5): lambda S_an on a hard-negative triplet,
// the NCA triplet loss otherwise.
template <class T>
T sct_loss(const std::vector<T>& x, int d, const LossParams& c) {
  const T sp = dot(x, 0, d, d), sn = dot(x, 0, 2 * d, d);
  if (sct1_selects(value_of(sp), value_of(sn))) return c.sct_lambda * sn;
  return nca_cosine_triplet_loss(x, d, c);
}

// ---- Multi-Similarity (Wang et al. CVPR 2019 eqs 10-12, 15), one anchor with several positives and negatives ----
struct AnchorSet {
  Eigen::VectorXd a;
  std::vector<Eigen::VectorXd> positives, negatives;
};

inline constexpr double kMsMiningEpsilon = 0.1;  // Wang et al. epsilon

// Pairs kept by MS mining (eqs 10-11): negatives with S + eps > min positive S, positives with S - eps < max negative S.
struct MsSelection {
  std::vector<bool> positive, negative;
};
MsSelection ms_mining(const AnchorSet& s);

// L_MS of one anchor over stacked [f_a; positives; negatives], mining fixed by sel (piecewise constant).
template <class T>
T ms_loss(const std::vector<T>& x, int d, int n_pos, int n_neg, const MsSelection& sel, const LossParams& c) {
  using std::exp;
  using std::log;
  T sum_p(0.0), sum_n(0.0);
  for (int k = 0; k < n_pos; ++k)
    if (sel.positive[std::size_t(k)]) sum_p += exp(-c.alpha * (dot(x, 0, d * (1 + k), d) - c.lambda));
  for (int k = 0; k < n_neg; ++k)
    if (sel.negative[std::size_t(k)]) sum_n += exp(c.beta * (dot(x, 0, d * (1 + n_pos + k), d) - c.lambda));
  return log(1.0 + sum_p) / c.alpha + log(1.0 + sum_n) / c.beta;
}

// P_MS (eqs 12-13): w+_j = 1 / (e^{alpha (S_j - lambda)} + sum_{k in P~} e^{-alpha (S_k - S_j)}) and
// w-_j = 1 / (e^{-beta (S_j - lambda)} + sum_{k in N~} e^{beta (S_k - S_j)}), the sums over the mined sets
// including j itself (the "1 +" inside the log of L_MS). With no other pair they reduce to the sigmoid P_S.
struct MsWeights {
  std::vector<double> positive, negative;  // 0 for pairs not mined
};
MsWeights ms_pair_weights(const AnchorSet& s, const MsSelection& sel, const LossParams& c);

// The composed descent of MS: -dL/df_a = sum_j w+_j f_pj - sum_j w-_j f_nj, -dL/df_pj = w+_j f_a, -dL/df_nj = -w-_j f_a.
Eigen::VectorXd ms_compose(const AnchorSet& s, const MsWeights& w);  // stacked like the loss input

}  // namespace dmlbench::theory::xgs
