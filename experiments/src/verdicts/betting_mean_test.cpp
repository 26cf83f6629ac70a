// [WSR24] Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", Thm 3 and eq (26): the
// hedged capital process and its confidence sequence.
#include "dmlbench/experiments/betting_mean_test.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {
namespace {

constexpr double kTruncation = 0.5;  // c: every factor of the capital is at least 1 - c
constexpr double kHedge = 0.5;       // theta: the weight of the upward bet
constexpr double kEndTolerance = 1e-12;  // of the unit range: bisection stops there

void check_range(double lo, double hi, double alpha) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo >= hi) {
    std::ostringstream s;
    s << "betting test: the range [" << lo << ", " << hi << "] must be finite with lo < hi";
    throw std::invalid_argument(s.str());
  }
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("betting test: alpha must lie in (0, 1)");
}

// The values scaled to [0, 1], each checked against [lo, hi].
std::vector<double> unit_values(const std::vector<double>& values, double lo, double hi) {
  std::vector<double> y;
  y.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!(v >= lo && v <= hi)) {
      std::ostringstream s;
      s << "betting test: value " << i + 1 << " (" << v << ") lies outside the range [" << lo << ", " << hi << "]";
      throw std::invalid_argument(s.str());
    }
    y.push_back(std::min(1.0, std::max(0.0, (v - lo) / (hi - lo))));
  }
  return y;
}

// The predictable plug-in bets l_1..l_n of eq (26): l_i reads only y_1..y_{i-1}.
std::vector<double> plug_in_bets(const std::vector<double>& y, double alpha) {
  std::vector<double> bets;
  bets.reserve(y.size());
  double sum = 0, squares = 0;  // sum_{j < i} y_j and sum_{j < i} (y_j - mhat_j)^2
  for (std::size_t k = 0; k < y.size(); ++k) {
    const double i = static_cast<double>(k + 1);
    const double s2 = (0.25 + squares) / i;  // s2_{i-1} = (1/4 + ...) / ((i - 1) + 1)
    bets.push_back(std::sqrt(2 * std::log(2 / alpha) / (s2 * i * std::log1p(i))));
    sum += y[k];
    const double mhat = (0.5 + sum) / (i + 1);
    squares += (y[k] - mhat) * (y[k] - mhat);
  }
  return bets;
}

// log K+_n(m) (up = true) or log K-_n(m) at m in (0, 1).
double log_capital(const std::vector<double>& y, const std::vector<double>& bets, double m, bool up) {
  double log_k = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double bet = std::min(bets[i], kTruncation / (up ? m : 1 - m));
    log_k += std::log1p((up ? bet : -bet) * (y[i] - m));
  }
  return log_k;
}

// The m in [0, 1] where a monotone side crosses log(1/alpha): `rejects(m)` is true below the crossing for the upward
// bet (it rejects small means) and above it for the downward one.
template <class Rejects>
double crossing(Rejects rejects, bool rejects_below) {
  double a = 0, b = 1;  // rejects_below: rejects(a) holds (or a = 0), rejects(b) does not (or b = 1)
  const double edge = rejects_below ? kEndTolerance : 1 - kEndTolerance;
  if (!rejects(edge)) return rejects_below ? 0.0 : 1.0;  // nothing rejected at this end: the interval is closed there
  while (b - a > kEndTolerance) {
    const double mid = 0.5 * (a + b);
    if (rejects(mid) == rejects_below) a = mid; else b = mid;
  }
  return 0.5 * (a + b);
}

}  // namespace

double betting_log_capital(const std::vector<double>& values, double mu0, double lo, double hi, double alpha) {
  check_range(lo, hi, alpha);
  if (!(mu0 > lo && mu0 < hi)) throw std::invalid_argument("betting test: the null mean must lie inside (lo, hi)");
  const auto y = unit_values(values, lo, hi);
  const auto bets = plug_in_bets(y, alpha);
  const double m = (mu0 - lo) / (hi - lo);
  return std::max(std::log(kHedge) + log_capital(y, bets, m, true), std::log1p(-kHedge) + log_capital(y, bets, m, false));
}

BettingInterval betting_interval(const std::vector<double>& values, double lo, double hi, double alpha) {
  return betting_interval(values, lo, hi, alpha, alpha);
}

BettingInterval betting_interval(const std::vector<double>& values, double lo, double hi, double alpha,
                                 double bets_alpha) {
  check_range(lo, hi, alpha);
  check_range(lo, hi, bets_alpha);
  const auto y = unit_values(values, lo, hi);
  const auto bets = plug_in_bets(y, bets_alpha);
  BettingInterval r;
  r.n = values.size();
  r.alpha = alpha;
  r.lo = lo;
  r.hi = hi;
  r.mean = values.empty() ? std::numeric_limits<double>::quiet_NaN()
                          : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  const double level = std::log(1 / alpha);
  const double low = crossing([&](double m) { return std::log(kHedge) + log_capital(y, bets, m, true) >= level; }, true);
  const double high =
      crossing([&](double m) { return std::log1p(-kHedge) + log_capital(y, bets, m, false) >= level; }, false);
  // an empty set (each side rejects what the other keeps: probability at most alpha) is read as the point between
  const double a = low <= high ? low : 0.5 * (low + high), b = low <= high ? high : a;
  r.low = lo + a * (hi - lo);
  r.high = lo + b * (hi - lo);
  return r;
}

}  // namespace dmlbench::experiments
