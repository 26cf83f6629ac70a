#include "dmlbench/theory/vector_field.hpp"

namespace dmlbench::theory {

void validate(const FieldConfig& c) {
  require_gamma(c.gamma);
  require_in_closed("entanglement p", c.entanglement, 0.0, 1.0);
  require_positive("learning rate", c.lr);
  if (c.grid < 1) throw domain_error("grid must be >= 1, got " + std::to_string(c.grid));
  require_similarity("grid lower bound", c.lo);
  require_similarity("grid upper bound", c.hi);
  if (!(c.lo < c.hi)) throw domain_error("grid bounds must satisfy lo < hi");
  if (c.entanglement > 0 && c.lo < 0)
    throw domain_error("the entanglement model (p > 0) needs S_ap S_an >= 0: use a grid inside [0, 1)");
}

const char* name(Movement m) {
  switch (m) {
    case Movement::up_right: return "up-right";
    case Movement::up_left: return "up-left";
    case Movement::down_left: return "down-left";
    case Movement::down_right: return "down-right";
    case Movement::stationary: return "stationary";
  }
  return "?";
}

Movement classify(const SimilarityChange& t) {
  if (t.ap > 0 && t.an > 0) return Movement::up_right;
  if (t.ap < 0 && t.an > 0) return Movement::up_left;
  if (t.ap < 0 && t.an < 0) return Movement::down_left;
  if (t.ap > 0 && t.an < 0) return Movement::down_right;
  return Movement::stationary;
}

std::vector<FieldSample> sweep_vector_field(const FieldConfig& c) {
  validate(c);
  std::vector<FieldSample> out;
  out.reserve(std::size_t(c.grid) * std::size_t(c.grid));
  const double h = (c.hi - c.lo) / c.grid;
  for (int j = 0; j < c.grid; ++j) {
    const double s_an = c.lo + (j + 0.5) * h;
    for (int i = 0; i < c.grid; ++i) {
      const double s_ap = c.lo + (i + 0.5) * h;
      // the config was validated once above; grid points lie inside [lo, hi) by construction
      FieldSample f{s_ap, s_an, {}, {}};
      if (!detail::delta_s_kernel(c.loss, s_ap, s_an, c.gamma, c.lr, f.delta))
        f.delta = delta_s_closed_form(c.loss, s_ap, s_an, c.gamma, c.lr);  // throws with the point named
      f.total = c.entanglement > 0 ? detail::entangled_total(f.delta, s_ap, s_an, c.entanglement) : f.delta;
      out.push_back(f);
    }
  }
  return out;
}

FieldStats field_stats(const std::vector<FieldSample>& samples) {
  FieldStats s;
  s.points = samples.size();
  if (samples.empty()) return s;
  std::size_t near_up_right = 0, top_up = 0, right_down = 0;
  for (const auto& f : samples) {
    const Movement m = classify(f.total);
    s.movement_fraction[std::size_t(m)] += 1;
    s.ap_decreasing += f.total.ap < 0;
    s.an_increasing += f.total.an > 0;
    if (f.s_an >= kBand) {
      ++s.top_band_points;
      top_up += f.total.an > 0;
    }
    if (f.s_ap >= kBand) {
      ++s.right_band_points;
      right_down += f.total.an < 0;
    }
    if (f.s_ap >= kBand && f.s_an >= kBand) {
      ++s.near_11_points;
      near_up_right += m == Movement::up_right;
    }
  }
  auto frac = [](std::size_t k, std::size_t n) { return n ? double(k) / double(n) : 0.0; };
  s.top_band_an_increasing = frac(top_up, s.top_band_points);
  s.right_band_an_decreasing = frac(right_down, s.right_band_points);
  const double n = double(samples.size());
  for (auto& x : s.movement_fraction) x /= n;
  s.ap_decreasing /= n;
  s.an_increasing /= n;
  s.near_11_up_right = frac(near_up_right, s.near_11_points);
  return s;
}

}  // namespace dmlbench::theory
