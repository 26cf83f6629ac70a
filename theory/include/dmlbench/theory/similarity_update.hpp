// Closed forms of the un-normalised updated similarities f_a^new . f_p^new and f_a^new . f_n^new as printed in
// [XHN eqs 7-8, 17-18, 23-24, 38-39] and [XHN-A eqs 1-2, 17-18]; each function transcribes one printed equation
// (polynomials: defined for every input; their callers check S and beta).
#pragma once

#include "dmlbench/theory/spn_decomposition.hpp"

namespace dmlbench::theory {

// [XHN eq 7] = [XHN eq 17] = [XHN-A eq 1]: S_ap^new = (1+b^2) S_ap + 2b - b S_pn - b^2 S_an.
inline double xhn_eq7_sap_new(const TripletSimilarities& s, double b) {
  return (1 + b * b) * s.ap + 2 * b - b * s.pn - b * b * s.an;
}

// [XHN eq 8] = [XHN eq 18]: S_an^new = (1+b^2) S_an - 2b + b S_pn - b^2 S_ap.
inline double xhn_eq8_san_new(const TripletSimilarities& s, double b) {
  return (1 + b * b) * s.an - 2 * b + b * s.pn - b * b * s.ap;
}

// [XHN-A eq 2] as printed: S_an^new = (1+b^2) S_ap - 2b + b S_pn - b^2 S_ap (erratum: the first S_ap is S_an).
inline double xhna_eq2_san_new_printed(const TripletSimilarities& s, double b) {
  return (1 + b * b) * s.ap - 2 * b + b * s.pn - b * b * s.ap;
}

// [XHN eq 23]: S_ap^new = (1 + w_ap^2 b^2) S_ap + 2 w_ap b - w_an b S_pn - w_ap w_an b^2 S_an.
inline double xhn_eq23_sap_new(const TripletSimilarities& s, double b, double w_ap, double w_an) {
  return (1 + w_ap * w_ap * b * b) * s.ap + 2 * w_ap * b - w_an * b * s.pn - w_ap * w_an * b * b * s.an;
}

// [XHN eq 24]: S_an^new = (1 + w_an^2 b^2) S_an - 2 w_an b + w_ap b S_pn - w_ap w_an b^2 S_ap.
inline double xhn_eq24_san_new(const TripletSimilarities& s, double b, double w_ap, double w_an) {
  return (1 + w_an * w_an * b * b) * s.an - 2 * w_an * b + w_ap * b * s.pn - w_ap * w_an * b * b * s.ap;
}

// [XHN eq 38] = [XHN-A eq 17]: S_ap^new = (1-b+b^2) S_ap + 2b - b^2 - b(1-b) S_pn - b^2 S_an.
inline double xhn_eq38_sap_new(const TripletSimilarities& s, double b) {
  return (1 - b + b * b) * s.ap + 2 * b - b * b - b * (1 - b) * s.pn - b * b * s.an;
}

// [XHN eq 39] = [XHN-A eq 18]: S_an^new = (1+b+b^2) S_an - 2b - b^2 + b(1+b) S_pn - b^2 S_ap.
inline double xhn_eq39_san_new(const TripletSimilarities& s, double b) {
  return (1 + b + b * b) * s.an - 2 * b - b * b + b * (1 + b) * s.pn - b * b * s.ap;
}

}  // namespace dmlbench::theory
