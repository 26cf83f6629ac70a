// Similarity change after one step, Delta S ([XHN eqs 9-10]), and the entanglement model
// Delta S^total = Delta S + p sqrt(S_ap S_an) Delta S^other ([XHN eqs 11-12]).
#pragma once

#include "dmlbench/theory/margin_triplet_loss.hpp"
#include "dmlbench/theory/nca_triplet_loss.hpp"
#include "dmlbench/theory/norm_update.hpp"
#include "dmlbench/theory/second_order_loss.hpp"
#include "dmlbench/theory/similarity_update.hpp"
#include "dmlbench/theory/triplet_loss_kind.hpp"

#include <cmath>

namespace dmlbench::theory {

struct SimilarityChange {
  double ap = 0.0;
  double an = 0.0;
};

namespace detail {
// Delta S of [XHN eqs 9-10] from the printed closed forms only, for S, gamma in [-1, 1] and lr > 0 checked by the
// caller. Returns false where the step sends a feature to the origin (Delta S undefined).
inline bool delta_s_kernel(TripletLoss loss, double s_ap, double s_an, double gamma, double lr, SimilarityChange& out) {
  const TripletSimilarities s{s_ap, s_an, s_ap * s_an + gamma * sine(s_ap) * sine(s_an)};  // [XHN eq 19]
  double sap_new = 0, san_new = 0, na2 = 0, np2 = 0, nn2 = 0;
  switch (loss) {
    case TripletLoss::nca_first_order: {
      const double b = nca_beta(s_ap, s_an, lr);
      sap_new = xhn_eq7_sap_new(s, b);
      san_new = xhn_eq8_san_new(s, b);
      np2 = xhn_eq20_norm_p_sq(s_ap, b);
      nn2 = xhn_eq21_norm_n_sq(s_an, b);
      na2 = xhn_eq22_norm_a_sq(s_ap, s_an, gamma, b);
      break;
    }
    case TripletLoss::second_order: {
      const double b = second_order_beta(s_ap, s_an, lr);
      const double w_ap = 1.0 - s_ap, w_an = s_an;  // [XHN] Sec 5
      sap_new = xhn_eq23_sap_new(s, b, w_ap, w_an);
      san_new = xhn_eq24_san_new(s, b, w_ap, w_an);
      np2 = xhn_eq25_norm_p_sq(s_ap, b, w_ap);
      nn2 = xhn_eq26_norm_n_sq(s_an, b, w_an);
      na2 = xhn_eq27_norm_a_sq(s_ap, s_an, gamma, b, w_ap, w_an);
      break;
    }
    case TripletLoss::vanilla_margin: {
      const double b = kMarginGradientBeta * lr;  // beta = 2 alpha, see margin_step_beta
      sap_new = xhn_eq38_sap_new(s, b);
      san_new = xhn_eq39_san_new(s, b);
      np2 = xhn_eq35_norm_p_sq(s_ap, b);
      nn2 = xhn_eq36_norm_n_sq(s_an, b);
      na2 = xhn_eq22_norm_a_sq(s_ap, s_an, gamma, b);  // eq 37 prints the same form as eq 22
      break;
    }
  }
  if (!(na2 > 0 && np2 > 0 && nn2 > 0)) return false;
  out = {sap_new / std::sqrt(na2 * np2) - s_ap, san_new / std::sqrt(na2 * nn2) - s_an};
  return true;
}
}  // namespace detail

// Delta S of [XHN eqs 9-10] from the printed closed forms only: eqs 7-8 and 20-22 (L1st), 23-27 (L2nd),
// 35-39 (vanilla, hinge active, beta = 2 alpha: see margin_step_beta).
inline SimilarityChange delta_s_closed_form(TripletLoss loss, double s_ap, double s_an, double gamma, double lr) {
  require_step_inputs(s_ap, s_an, lr);
  require_gamma(gamma);
  SimilarityChange d;
  if (!detail::delta_s_kernel(loss, s_ap, s_an, gamma, lr, d))
    throw domain_error("the step sends a feature to the origin (|f^new| = 0): S_ap=" + format_value(s_ap) +
                       " S_an=" + format_value(s_an) + " gamma=" + format_value(gamma) +
                       " lr=" + format_value(lr) + "; Delta S is undefined there");
  return d;
}

// The feature update of one gradient step as the paper prints it (eqs 4-6, 13-15, 32-34 with beta = 2 alpha).
inline Triplet printed_update(TripletLoss loss, const Triplet& t, double lr) {
  switch (loss) {
    case TripletLoss::nca_first_order: return nca_update(t, lr);
    case TripletLoss::second_order: return second_order_update(t, lr);
    case TripletLoss::vanilla_margin: return margin_update(t, margin_step_beta(lr));
  }
  return t;
}

// Delta S of [XHN eqs 9-10] measured directly on explicit vectors: cosine after the step minus before.
inline SimilarityChange delta_s_from_vectors(TripletLoss loss, const Triplet& t, double lr) {
  const Triplet u = printed_update(loss, t, lr);
  const double na = u.a.norm(), np = u.p.norm(), nn = u.n.norm();
  if (!(na > 0 && np > 0 && nn > 0)) throw domain_error("the step sends a feature to the origin");
  return {u.a.dot(u.p) / (na * np) - t.a.dot(t.p), u.a.dot(u.n) / (na * nn) - t.a.dot(t.n)};
}

namespace detail {
inline SimilarityChange entangled_total(const SimilarityChange& d, double s_ap, double s_an, double p) {
  const double pq = p * std::sqrt(s_ap * s_an);
  return {d.ap + pq * d.an, d.an + pq * d.ap};
}
}  // namespace detail

// [XHN eqs 11-12]. q = sqrt(S_ap S_an) is real only where S_ap S_an >= 0: outside it the model is undefined.
inline SimilarityChange entangled_total(const SimilarityChange& d, double s_ap, double s_an, double p) {
  require_similarity("S_ap", s_ap);
  require_similarity("S_an", s_an);
  require_in_closed("entanglement p", p, 0.0, 1.0);
  if (s_ap * s_an < 0)
    throw domain_error("the entanglement factor q = sqrt(S_ap S_an) of [XHN eqs 11-12] is undefined for S_ap S_an < 0 "
                       "(S_ap=" + format_value(s_ap) + ", S_an=" + format_value(s_an) + ")");
  return detail::entangled_total(d, s_ap, s_an, p);
}

}  // namespace dmlbench::theory
