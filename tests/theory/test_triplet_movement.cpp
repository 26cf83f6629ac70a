// The movement classifier of [XHN] Sec 6.1 / Fig 3 on hand-made before/after dots, ties and a stationary dot.
#include "dmlbench/theory/triplet_movement.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dmlbench::theory;

TEST_CASE("a triplet dot's movement on the scatter: the four quadrants by hand [XHN Sec 6.1]", "[theory][XHN]") {
  // x = S_ap, y = S_an: top = S_an grows
  CHECK(classify_movement(0.5, 0.2, 0.6, 0.3) == Movement::top_right);
  CHECK(classify_movement(0.5, 0.2, 0.4, 0.3) == Movement::top_left);
  CHECK(classify_movement(0.5, 0.2, 0.4, 0.1) == Movement::bottom_left);
  CHECK(classify_movement(0.5, 0.2, 0.6, 0.1) == Movement::bottom_right);
  // negative control: swapping the axes turns top-left into bottom-right, so the classifier reads S_an as y
  CHECK(classify_movement(0.2, 0.5, 0.3, 0.4) == Movement::bottom_right);
  CHECK(std::string(name(Movement::top_left)) == "top-left");
}

TEST_CASE("ties: a stationary dot, a dot moving along one axis, and the tolerance [XHN Sec 6.1]", "[theory][XHN]") {
  CHECK(classify_movement(0.5, 0.2, 0.5, 0.2) == Movement::stationary);
  CHECK(classify_movement(0.5, 0.2, 0.7, 0.2) == Movement::on_axis);  // S_an unchanged
  CHECK(classify_movement(0.5, 0.2, 0.5, -0.1) == Movement::on_axis); // S_ap unchanged
  // a change of 1e-9 is below a tolerance of 1e-8 (counts as none) and above one of 1e-10
  CHECK(classify_movement(0.5, 0.2, 0.5 + 1e-9, 0.2 + 1e-9, 1e-8) == Movement::stationary);
  CHECK(classify_movement(0.5, 0.2, 0.5 + 1e-9, 0.2 + 1e-9, 1e-10) == Movement::top_right);
  CHECK(classify_movement(-1.0, 1.0, -1.0, 1.0) == Movement::stationary);  // the corners of the scatter
  CHECK_THROWS_AS(classify_movement(1.5, 0.2, 0.5, 0.2), std::invalid_argument);
  CHECK_THROWS_AS(classify_movement(0.5, NAN, 0.5, 0.2), std::invalid_argument);
  CHECK_THROWS_AS(classify_movement(0.5, 0.2, 0.5, 0.2, -1.0), std::invalid_argument);
}

TEST_CASE("movement counts: fractions of the quadrant moves, ties counted apart [XHN Fig 3]", "[theory][XHN]") {
  MovementCounts c;
  CHECK(std::isnan(c.fraction(Movement::top_right)));  // no moves yet
  for (int i = 0; i < 3; ++i) c.add(Movement::top_right);
  c.add(Movement::bottom_right);
  c.add(Movement::stationary);
  c.add(Movement::on_axis);
  CHECK(c.quadrant_total() == 4);
  CHECK(c.total() == 6);
  CHECK(c.fraction(Movement::top_right) == 0.75);
  CHECK(c.fraction(Movement::bottom_right) == 0.25);
  CHECK(c.fraction(Movement::top_left) == 0.0);
  CHECK(std::isnan(c.fraction(Movement::stationary)));
}
