// Where a trained triplet's dot (S_ap, S_an) moves between two iterations ([XHN] Sec 6.1, Fig 3), in the directions
// of the model's vector field (vector_field.hpp: up = S_an growing, right = S_ap growing).
#pragma once

#include "dmlbench/theory/vector_field.hpp"

#include <array>
#include <cstdint>

namespace dmlbench::theory {

// A change of at most `tolerance` in a coordinate counts as none (ties); a dot that moves along one axis only, or not
// at all, is `stationary` (in no quadrant; [XHN] Fig 3 counts the four quadrants). Throws std::invalid_argument for a
// similarity outside [-1, 1] or NaN, or a negative tolerance.
Movement classify_dot_movement(double s_ap_before, double s_an_before, double s_ap_after, double s_an_after,
                               double tolerance = 0.0);

// Counts per Movement; fraction() of the quadrant moves (stationary dots counted apart), NaN when there is none.
struct MovementCounts {
  std::array<std::int64_t, 5> count{};
  void add(Movement m) { ++count[std::size_t(m)]; }
  std::int64_t quadrant_total() const { return count[0] + count[1] + count[2] + count[3]; }
  double fraction(Movement m) const;
};

}  // namespace dmlbench::theory
