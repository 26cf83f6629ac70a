#include "dmlbench/theory/triplet_movement.hpp"

#include <cmath>
#include <stdexcept>

namespace dmlbench::theory {

const char* name(Movement m) {
  switch (m) {
    case Movement::top_right: return "top-right";
    case Movement::top_left: return "top-left";
    case Movement::bottom_left: return "bottom-left";
    case Movement::bottom_right: return "bottom-right";
    case Movement::on_axis: return "on-axis";
    case Movement::stationary: return "stationary";
  }
  return "?";
}

Movement classify_movement(double ap0, double an0, double ap1, double an1, double tolerance) {
  for (double s : {ap0, an0, ap1, an1})
    if (!(s >= -1.0 && s <= 1.0))
      throw std::invalid_argument("classify_movement: a similarity outside [-1, 1]: " + std::to_string(s));
  if (!(tolerance >= 0)) throw std::invalid_argument("classify_movement: the tolerance must be >= 0");
  const double dx = ap1 - ap0, dy = an1 - an0;
  const bool mx = std::abs(dx) > tolerance, my = std::abs(dy) > tolerance;
  if (!mx && !my) return Movement::stationary;
  if (!mx || !my) return Movement::on_axis;
  if (dy > 0) return dx > 0 ? Movement::top_right : Movement::top_left;
  return dx > 0 ? Movement::bottom_right : Movement::bottom_left;
}

double MovementCounts::fraction(Movement m) const {
  const auto n = quadrant_total();
  if (n == 0 || m == Movement::on_axis || m == Movement::stationary) return NAN;
  return double(count[std::size_t(m)]) / double(n);
}

}  // namespace dmlbench::theory
