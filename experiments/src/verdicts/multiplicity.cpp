// Holm's step-down (1979) and Benjamini-Hochberg's step-up (1995) adjusted p-values over a family of tests.
#include "dmlbench/experiments/multiplicity.hpp"

#include "statistics_checks.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dmlbench::experiments {

PAdjustment p_adjustment_named(const std::string& name) {
  if (name == "holm") return PAdjustment::holm;
  if (name == "bh") return PAdjustment::benjamini_hochberg;
  throw std::invalid_argument("the p-value adjustment must be holm or bh, got '" + name + "'");
}

std::string p_adjustment_name(PAdjustment method) {
  return method == PAdjustment::holm ? "holm" : "bh";
}

namespace {

// The indices of the family's members (the non-NaN entries), by increasing p (ties in input order).
std::vector<std::size_t> family_by_p(const std::vector<double>& p) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (std::isnan(p[i])) continue;
    if (!(p[i] >= 0 && p[i] <= 1))
      throw std::invalid_argument("p-value " + std::to_string(i) + " must lie in [0, 1] (or be NaN: no test), got " +
                                  statistics_checks::number_text(p[i]));
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

// Holm: the j-th smallest (1-based) of m gets max over i <= j of min(1, (m - i + 1) p_(i)).
std::vector<double> holm_adjusted(const std::vector<double>& p) {
  const auto order = family_by_p(p);
  std::vector<double> out(p.size(), NAN);
  const double m = double(order.size());
  double running = 0;
  for (std::size_t j = 0; j < order.size(); ++j) {
    running = std::max(running, std::min(1.0, (m - double(j)) * p[order[j]]));
    out[order[j]] = running;
  }
  return out;
}

// BH: the j-th smallest (1-based) of m gets min over i >= j of min(1, m / i p_(i)).
std::vector<double> benjamini_hochberg_adjusted(const std::vector<double>& p) {
  const auto order = family_by_p(p);
  std::vector<double> out(p.size(), NAN);
  const double m = double(order.size());
  double running = 1;
  for (std::size_t j = order.size(); j-- > 0;) {
    running = std::min(running, m / double(j + 1) * p[order[j]]);
    out[order[j]] = running;
  }
  return out;
}

std::vector<double> adjusted_p_values(const std::vector<double>& p, PAdjustment method) {
  return method == PAdjustment::holm ? holm_adjusted(p) : benjamini_hochberg_adjusted(p);
}

}  // namespace dmlbench::experiments
