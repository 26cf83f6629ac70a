#include "dmlbench/theory/triplet_movement.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::theory {

Movement classify_dot_movement(double ap0, double an0, double ap1, double an1, double tolerance) {
  for (double s : {ap0, an0, ap1, an1})
    if (!(s >= -1.0 && s <= 1.0))
      throw std::invalid_argument("classify_dot_movement: a similarity outside [-1, 1]: " + std::to_string(s));
  if (!(tolerance >= 0)) throw std::invalid_argument("classify_dot_movement: the tolerance must be >= 0");
  auto moved = [&](double d) { return std::abs(d) > tolerance ? d : 0.0; };
  return classify(SimilarityChange{moved(ap1 - ap0), moved(an1 - an0)});
}

double MovementCounts::fraction(Movement m) const {
  const auto n = quadrant_total();
  if (n == 0 || m == Movement::stationary) return NAN;
  return double(count[std::size_t(m)]) / double(n);
}

}  // namespace dmlbench::theory
