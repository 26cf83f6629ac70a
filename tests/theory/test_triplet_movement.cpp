// The movement classifier of [XHN] Sec 6.1 / Fig 3 on hand-made before/after dots, ties and a stationary dot.
#include "dmlbench/theory/triplet_movement.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace dmlbench::theory;

TEST_CASE("a triplet dot's movement on the scatter: the four quadrants by hand [XHN Sec 6.1]", "[theory][XHN]") {
  // x = S_ap, y = S_an: up = S_an grows
  CHECK(classify_dot_movement(0.5, 0.2, 0.6, 0.3) == Movement::up_right);
  CHECK(classify_dot_movement(0.5, 0.2, 0.4, 0.3) == Movement::up_left);
  CHECK(classify_dot_movement(0.5, 0.2, 0.4, 0.1) == Movement::down_left);
  CHECK(classify_dot_movement(0.5, 0.2, 0.6, 0.1) == Movement::down_right);
  // negative control: swapping the axes turns up-left into down-right, so the classifier reads S_an as y
  CHECK(classify_dot_movement(0.2, 0.5, 0.3, 0.4) == Movement::down_right);
  CHECK(std::string(name(Movement::up_left)) != std::string(name(Movement::down_right)));
}

TEST_CASE("ties: a stationary dot, a dot moving along one axis, and the tolerance [XHN Sec 6.1]", "[theory][XHN]") {
  CHECK(classify_dot_movement(0.5, 0.2, 0.5, 0.2) == Movement::stationary);
  CHECK(classify_dot_movement(0.5, 0.2, 0.7, 0.2) == Movement::stationary);   // S_an unchanged: no quadrant
  CHECK(classify_dot_movement(0.5, 0.2, 0.5, -0.1) == Movement::stationary);  // S_ap unchanged
  // a change of 1e-9 is below a tolerance of 1e-8 (counts as none) and above one of 1e-10
  CHECK(classify_dot_movement(0.5, 0.2, 0.5 + 1e-9, 0.2 + 1e-9, 1e-8) == Movement::stationary);
  CHECK(classify_dot_movement(0.5, 0.2, 0.5 + 1e-9, 0.2 + 1e-9, 1e-10) == Movement::up_right);
  CHECK(classify_dot_movement(-1.0, 1.0, -1.0, 1.0) == Movement::stationary);  // a corner of the scatter
  CHECK_THROWS_AS(classify_dot_movement(1.5, 0.2, 0.5, 0.2), std::invalid_argument);
  CHECK_THROWS_AS(classify_dot_movement(0.5, NAN, 0.5, 0.2), std::invalid_argument);
  CHECK_THROWS_AS(classify_dot_movement(0.5, 0.2, 0.5, 0.2, -1.0), std::invalid_argument);
}

TEST_CASE("movement counts: fractions of the quadrant moves, stationary dots counted apart [XHN Fig 3]",
          "[theory][XHN]") {
  MovementCounts c;
  CHECK(std::isnan(c.fraction(Movement::up_right)));  // no moves yet
  for (int i = 0; i < 3; ++i) c.add(Movement::up_right);
  c.add(Movement::down_right);
  c.add(Movement::stationary);
  CHECK(c.quadrant_total() == 4);
  CHECK(c.fraction(Movement::up_right) == 0.75);
  CHECK(c.fraction(Movement::down_right) == 0.25);
  CHECK(c.fraction(Movement::up_left) == 0.0);
  CHECK(std::isnan(c.fraction(Movement::stationary)));
}
