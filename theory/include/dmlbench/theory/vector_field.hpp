// The vector field (Delta S_ap^total, Delta S_an^total) over the triplet scatter diagram ([XHN Fig 2, Fig 5],
// eqs 9-12) and the movement directions of [XHN Sec 6.1] (no top-left movement).
#pragma once

#include "dmlbench/theory/entanglement.hpp"

#include <array>
#include <string>
#include <vector>

namespace dmlbench::theory {

struct FieldConfig {
  TripletLoss loss = TripletLoss::nca_first_order;
  double gamma = 0.5;        // [XHN Fig 2] uses 0.5; Fig 5 adds 0.2 and 0.8
  double entanglement = 0.4; // p of eqs 11-12; the paper plots 0.4 and 0.8
  double lr = 0.1;           // alpha
  int grid = 100;            // grid x grid cell centres of [lo, hi)^2
  double lo = 0.0;
  double hi = 1.0;
};

void validate(const FieldConfig& c);

struct FieldSample {
  double s_ap, s_an;
  SimilarityChange delta;  // eqs 9-10
  SimilarityChange total;  // eqs 11-12
};

enum class Movement { up_right = 0, up_left = 1, down_left = 2, down_right = 3, stationary = 4 };
const char* name(Movement m);

// Direction on the scatter diagram (S_ap right, S_an up) of a total change.
Movement classify(const SimilarityChange& total);

// Evaluates the field at every cell centre, row-major in S_an then S_ap.
std::vector<FieldSample> sweep_vector_field(const FieldConfig& c);

// Region statistics of a sweep: fraction of points per movement direction, with S_ap decreasing, with S_an
// increasing; in the top band S_an >= 0.8 (hard negatives, Problem 1) the fraction with S_an increasing; in the
// right band S_ap >= 0.8 (easy positives, Problem 2) the fraction with S_an decreasing; near (1,1) (both >= 0.8)
// the fraction moving up-right.
inline constexpr double kBand = 0.8;
struct FieldStats {
  std::size_t points = 0;
  std::array<double, 5> movement_fraction{};
  double ap_decreasing = 0, an_increasing = 0;
  double top_band_an_increasing = 0, right_band_an_decreasing = 0;
  double near_11_up_right = 0;
  std::size_t top_band_points = 0, right_band_points = 0, near_11_points = 0;
};
FieldStats field_stats(const std::vector<FieldSample>& samples);

}  // namespace dmlbench::theory
