// The three triplet losses whose single gradient step [XHN] analyses: L1st (eq 1), vanilla L^v (eq 28), L2nd (eq 16).
#pragma once

#include <stdexcept>
#include <string>

namespace dmlbench::theory {

enum class TripletLoss { nca_first_order, vanilla_margin, second_order };

inline const char* name(TripletLoss l) {
  switch (l) {
    case TripletLoss::nca_first_order: return "l1st";
    case TripletLoss::vanilla_margin: return "vanilla";
    case TripletLoss::second_order: return "l2nd";
  }
  return "?";
}

inline TripletLoss parse_triplet_loss(const std::string& s) {
  if (s == "l1st" || s == "nca") return TripletLoss::nca_first_order;
  if (s == "vanilla" || s == "margin" || s == "triplet") return TripletLoss::vanilla_margin;
  if (s == "l2nd" || s == "second-order") return TripletLoss::second_order;
  throw std::invalid_argument("unknown triplet loss '" + s + "' (expected l1st, vanilla or l2nd)");
}

}  // namespace dmlbench::theory
