// The typical-seed test (experiments/src/verdicts/typical_seed_test.cpp): its closed form against the mixture
// integrated numerically, the seeds it needs, its inputs, and by simulation its validity under continuous monitoring,
// with the fixed-n exact binomial test at every look as the negative control.
//
// Tolerances: the closed form is a few lgamma and one ibetac (Boost.Math, ~1e-15 relative each); the quadrature is
// composite Simpson on 20,000 panels of a polynomial of degree <= 30, whose error is below 1e-12 relative here: 1e-9
// relative on E leaves three orders. Monte Carlo: 4,000 sequences, the standard error of a rate near 0.05 is 0.0034;
// the bound alpha + 3 se = 0.060.
#include "dmlbench/experiments/typical_seed_test.hpp"

#include <boost/math/distributions/binomial.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace dmlbench::experiments;
using Catch::Matchers::WithinRel;

namespace {

// 2 int_{1/2}^{1} (2q)^s (2(1 - q))^(n - s) dq by composite Simpson.
double mixture_by_quadrature(int s, int n) {
  const int panels = 20000;
  const double h = 0.5 / panels;
  const auto f = [&](double q) { return std::pow(2 * q, s) * std::pow(2 * (1 - q), n - s); };
  double sum = f(0.5) + f(1.0);
  for (int i = 1; i < panels; ++i) sum += (i % 2 ? 4 : 2) * f(0.5 + i * h);
  return 2 * sum * h / 3;
}

// The share of `reps` sequences of `looks` Bernoulli(p) seeds that some look decides: by the e-process at 1/alpha,
// and by the one-sided exact binomial test at alpha (fixed-n, at every look).
std::pair<double, double> ever_decided(double p, int reps, int looks, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int by_e = 0, by_binomial = 0;
  for (int r = 0; r < reps; ++r) {
    bool e = false, b = false;
    std::size_t s = 0;
    for (int n = 1; n <= looks; ++n) {
      s += std::bernoulli_distribution(p)(rng);
      e = e || typical_seed_log_e_value(s, std::size_t(n)) >= std::log(20.0);
      const double pv = s == 0 ? 1.0 : cdf(complement(boost::math::binomial(n, 0.5), double(s) - 1));
      b = b || pv <= 0.05;
    }
    by_e += e;
    by_binomial += b;
  }
  return {by_e / double(reps), by_binomial / double(reps)};
}

}  // namespace

TEST_CASE("typical-seed test: its closed form is the mixture over q uniform on [1/2, 1], integrated",
          "[experiments][typical_seed]") {
  for (int n : {1, 2, 5, 10, 17, 30})
    for (int s = 0; s <= n; s += (n > 10 ? 3 : 1)) {
      INFO("s " << s << " of " << n);
      CHECK_THAT(std::exp(typical_seed_log_e_value(std::size_t(s), std::size_t(n))),
                 WithinRel(mixture_by_quadrature(s, n), 1e-9));
    }
  CHECK(typical_seed_log_e_value(0, 0) == 0);
}

TEST_CASE("typical-seed test: n seeds all on the side give (2^(n+1) - 1) / (n + 1): decided at 7 seeds at alpha 0.05, "
          "at 8 at 0.03, never by a seed on the other side alone", "[experiments][typical_seed]") {
  for (std::size_t n = 1; n <= 40; ++n)
    CHECK_THAT(typical_seed_log_e_value(n, n), WithinRel(std::log((std::pow(2.0, double(n) + 1) - 1) / (double(n) + 1)), 1e-12));
  CHECK(typical_seed_log_e_value(6, 6) < std::log(20.0));
  CHECK(typical_seed_log_e_value(7, 7) >= std::log(20.0));
  CHECK(typical_seed_log_e_value(7, 7) < std::log(1 / 0.03));
  CHECK(typical_seed_log_e_value(8, 8) >= std::log(1 / 0.03));
  CHECK(typical_seed_log_e_value(9, 10) < std::log(20.0));  // 9 of 10: not yet
  CHECK(typical_seed_log_e_value(0, 10) < 0);               // evidence against: E below 1
}

TEST_CASE("typical-seed test: values at the bound count as not on the side, and bad input is refused",
          "[experiments][typical_seed]") {
  const auto below = typical_seed_evidence({0, 0, 1.0, 0.5, 2.0}, 1.0, true);
  CHECK(below.n == 5);
  CHECK(below.on_side == 3);
  CHECK(below.log_e_value == typical_seed_log_e_value(3, 5));
  CHECK(typical_seed_evidence({0, 0, 1.0, 0.5, 2.0}, 1.0, false).on_side == 1);
  CHECK_THROWS_WITH(typical_seed_evidence({0, NAN}, 1.0, true), Catch::Contains("value 2 is not finite"));
  CHECK_THROWS_AS(typical_seed_evidence({0}, INFINITY, true), std::invalid_argument);
  CHECK_THROWS_AS(typical_seed_log_e_value(3, 2), std::invalid_argument);
}

TEST_CASE("typical-seed test: looked at after every seed up to 50, it decides a null p = 1/2 at most alpha of the "
          "time, where the exact binomial test at every look does not (negative control)", "[experiments][typical_seed]") {
  const double bound = 0.05 + 3 * std::sqrt(0.05 * 0.95 / 4000);
  const auto [e, binomial] = ever_decided(0.5, 4000, 50, 71);
  INFO("p = 1/2: e-process " << e << ", binomial at every look " << binomial);
  CHECK(e <= bound);
  CHECK(binomial > 2 * 0.05);
  // inside the null (p = 0.4) it decides less still
  CHECK(ever_decided(0.4, 4000, 50, 72).first <= e);
  // and a typical seed that is below (p = 0.9) is decided in most sequences by 20 seeds
  CHECK(ever_decided(0.9, 1000, 20, 73).first > 0.9);
}
