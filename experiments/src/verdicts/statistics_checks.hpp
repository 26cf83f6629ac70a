// The argument checks the statistics of verdicts/ share: one std::invalid_argument line naming the argument and value.
#pragma once

#include <cmath>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments::statistics_checks {

inline std::string number_text(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}
// alpha, power: an open unit interval
inline void check_open_unit(double x, const std::string& what) {
  if (!(x > 0 && x < 1)) throw std::invalid_argument(what + " must lie in (0, 1), got " + number_text(x));
}
inline void check_alpha(double alpha) { check_open_unit(alpha, "alpha"); }
inline void check_delta(double delta) {
  if (!(delta >= 0) || !std::isfinite(delta))
    throw std::invalid_argument("the smallest effect of interest delta must be a finite number >= 0, got " +
                                number_text(delta));
}
inline void check_finite(double x, const std::string& what) {
  if (!std::isfinite(x)) throw std::invalid_argument(what + " must be finite, got " + number_text(x));
}
inline void check_sd(double sd, const std::string& what) {
  if (!(sd >= 0) || !std::isfinite(sd))
    throw std::invalid_argument(what + " must be a finite standard deviation >= 0, got " + number_text(sd));
}
inline void check_seeds(std::size_t n, const std::string& what) {
  if (n < 2)
    throw std::invalid_argument(what + " needs at least 2 values (seeds) for a t-test, got " + std::to_string(n));
}

}  // namespace dmlbench::experiments::statistics_checks
