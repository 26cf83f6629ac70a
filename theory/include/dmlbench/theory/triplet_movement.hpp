// Where a triplet's dot (S_ap, S_an) moves on the triplet scatter between two iterations ([XHN] Sec 6.1, Fig 3):
// top-right, top-left, bottom-left, bottom-right; x = S_ap, y = S_an, so "top" is S_an growing.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace dmlbench::theory {

// A change of at most `tolerance` in a coordinate counts as none (ties): both none is `stationary`, exactly one none
// is `on_axis` (the dot moves along an axis, into no quadrant). [XHN] counts the four quadrants only.
enum class Movement { top_right, top_left, bottom_left, bottom_right, on_axis, stationary };
const char* name(Movement m);

// Throws std::invalid_argument for a similarity outside [-1, 1] or NaN, or a negative tolerance.
Movement classify_movement(double s_ap_before, double s_an_before, double s_ap_after, double s_an_after,
                           double tolerance = 0.0);

// Counts of each movement over many triplets; fraction() over the four quadrants (on-axis and stationary dots left
// out, counted apart), as [XHN] Fig 3 reports them.
struct MovementCounts {
  std::array<std::int64_t, 6> count{};
  void add(Movement m) { ++count[std::size_t(m)]; }
  std::int64_t quadrant_total() const { return count[0] + count[1] + count[2] + count[3]; }
  std::int64_t total() const { return quadrant_total() + count[4] + count[5]; }
  double fraction(Movement m) const;  // of the quadrant moves; NaN when there is none (or m is not a quadrant)
};

}  // namespace dmlbench::theory
