// A typical seed below (or above) a bound: the mixture e-process of the per-seed indicators (typical_seed_test.hpp).
#include "dmlbench/experiments/typical_seed_test.hpp"

#include <boost/math/special_functions/beta.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

double typical_seed_log_e_value(std::size_t successes, std::size_t n) {
  if (successes > n)
    throw std::invalid_argument("typical-seed test: " + std::to_string(successes) + " successes of " +
                                std::to_string(n) + " seeds");
  if (n == 0) return 0;
  const double a = double(successes) + 1, b = double(n - successes) + 1;
  const double log_beta = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  return (double(n) + 1) * std::log(2.0) + log_beta + std::log(boost::math::ibetac(a, b, 0.5));
}

TypicalSeedEvidence typical_seed_evidence(const std::vector<double>& values, double bound, bool below) {
  if (!std::isfinite(bound)) throw std::invalid_argument("typical-seed test: the bound is not finite");
  TypicalSeedEvidence e;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      throw std::invalid_argument("typical-seed test: value " + std::to_string(i + 1) + " is not finite");
    e.on_side += below ? values[i] < bound : values[i] > bound;
  }
  e.n = values.size();
  e.log_e_value = typical_seed_log_e_value(e.on_side, e.n);
  return e;
}

}  // namespace dmlbench::experiments
