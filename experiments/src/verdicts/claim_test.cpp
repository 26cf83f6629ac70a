// A training claim's test by its estimand: the t-test of a mean, the betting test of a bounded mean, the sign e-process
// of a typical seed (claim_test.hpp).
#include "dmlbench/experiments/claim_test.hpp"

#include "dmlbench/experiments/betting_mean_test.hpp"
#include "dmlbench/experiments/typical_seed_test.hpp"
#include "statistics_checks.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

namespace {

std::string text(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

void check_input(const ClaimTestInput& in) {
  if (in.differences.size() < 2)
    throw std::invalid_argument("a claim's test needs at least 2 seeds, got " + std::to_string(in.differences.size()));
  for (const double d : in.differences) sc::check_finite(d, "every per-seed difference");
  sc::check_alpha(in.level);
  sc::check_alpha(in.alpha);
  sc::check_delta(in.delta);
  if (in.paper_sign != 1 && in.paper_sign != -1)
    throw std::invalid_argument("the paper's direction must be +1 or -1, got " + std::to_string(in.paper_sign));
  if (in.estimand == ClaimEstimand::bounded_mean && !(in.lo < 0 && 0 < in.hi))
    throw std::invalid_argument("a bounded mean needs its differences' range lo < 0 < hi, got [" + text(in.lo) + ", " +
                                text(in.hi) + "]");
}

// log of the mean of the two sides' mixture e-values: s and o seeds strictly above and below 0 of n
double typical_log_e(std::size_t s, std::size_t o, std::size_t n) {
  const double a = typical_seed_log_e_value(s, n), b = typical_seed_log_e_value(o, n), m = std::max(a, b);
  return m + std::log(0.5 * (std::exp(a - m) + std::exp(b - m)));
}

void count_sides(const ClaimTestInput& in, ClaimDecision& d) {
  for (const double x : in.differences) {
    d.paper_side += in.paper_sign * x > 0;
    d.other_side += in.paper_sign * x < 0;
  }
}

std::string interval_text(const ClaimDecision& d, const std::string& what) {
  return what + " [" + text(d.low) + ", " + text(d.high) + "] at level " + text(d.level) + " after " +
         std::to_string(d.n) + " seeds";
}

ClaimDecision decide_mean(const ClaimTestInput& in) {
  AnytimeClaimInput a;
  a.differences = summarize(in.differences);
  a.paper_sign = in.paper_sign;
  a.delta = in.delta;
  a.alpha = in.level;
  a.g = in.g;
  const AnytimeDecision t = anytime_claim_outcome(a);
  ClaimDecision d;
  d.outcome = t.outcome;
  d.reason = t.reason;
  d.low = t.interval.low;
  d.high = t.interval.high;
  d.t = t.t;
  d.multiplier = t.interval.multiplier;
  d.log_e_value = t.log_e_value;
  if (!t.interval.testable()) d.low = d.high = NAN;
  return d;
}

ClaimDecision decide_bounded_mean(const ClaimTestInput& in) {
  const BettingInterval b = betting_interval(in.differences, in.lo, in.hi, in.level, in.alpha);
  ClaimDecision d;
  d.level = in.level;
  d.n = b.n;
  d.low = b.low;
  d.high = b.high;
  d.log_e_value = betting_log_capital(in.differences, 0.0, in.lo, in.hi, in.alpha);
  d.outcome = interval_outcome(b.low, b.high, in.paper_sign, in.delta);
  const std::string i = interval_text(d, "the betting interval of the mean (the values in [" + text(in.lo) + ", " +
                                             text(in.hi) + "])");
  d.reason = interval_outcome_reason(d.outcome, i, b.low, in.delta);
  return d;
}

ClaimDecision decide_typical_seed(const ClaimTestInput& in) {
  ClaimDecision d;
  d.level = in.level;
  d.n = in.differences.size();
  count_sides(in, d);
  d.log_e_value = typical_log_e(d.paper_side, d.other_side, d.n);
  const std::string counts = std::to_string(d.paper_side) + " of " + std::to_string(d.n) +
                             " seeds on the paper's side, " + std::to_string(d.other_side) + " on the other (E = " +
                             text(std::exp(d.log_e_value)) + ", 1/level = " + text(1 / in.level) + ")";
  if (d.log_e_value >= std::log(1 / in.level) && d.paper_side != d.other_side) {
    d.outcome = d.paper_side > d.other_side ? TrainingOutcome::verified : TrainingOutcome::refuted;
    d.reason = std::string("a typical seed lies ") + (d.outcome == TrainingOutcome::verified ? "on" : "against") +
               " the paper's side: " + counts;
  } else {
    d.reason = "no typical side yet: " + counts;
  }
  return d;
}

}  // namespace

std::string claim_estimand_name(ClaimEstimand e) {
  switch (e) {
    case ClaimEstimand::mean: return "mean";
    case ClaimEstimand::bounded_mean: return "bounded mean";
    case ClaimEstimand::typical_seed: return "typical seed";
  }
  return "mean";
}

ClaimEstimand claim_estimand_named(const std::string& name) {
  for (const auto e : {ClaimEstimand::mean, ClaimEstimand::bounded_mean, ClaimEstimand::typical_seed})
    if (claim_estimand_name(e) == name) return e;
  throw std::invalid_argument("no estimand \"" + name + "\" (estimands: mean, bounded mean, typical seed)");
}

ClaimDecision decide_claim(const ClaimTestInput& in) {
  check_input(in);
  ClaimDecision d = in.estimand == ClaimEstimand::mean           ? decide_mean(in)
                    : in.estimand == ClaimEstimand::bounded_mean ? decide_bounded_mean(in)
                                                                 : decide_typical_seed(in);
  d.n = in.differences.size();
  d.level = in.level;
  double sum = 0;
  for (const double x : in.differences) sum += x;
  d.mean = sum / double(d.n);
  if (in.estimand != ClaimEstimand::typical_seed) count_sides(in, d);
  return d;
}

double claim_log_e_value(const ClaimTestInput& in) {
  check_input(in);
  switch (in.estimand) {
    case ClaimEstimand::mean: {
      const SampleSummary s = summarize(in.differences);
      return s.sd > 0 ? anytime_t_log_e_value(s, 0.0, in.g) : NAN;
    }
    case ClaimEstimand::bounded_mean: return betting_log_capital(in.differences, 0.0, in.lo, in.hi, in.alpha);
    case ClaimEstimand::typical_seed: break;
  }
  ClaimDecision d;
  count_sides(in, d);
  return typical_log_e(d.paper_side, d.other_side, in.differences.size());
}

std::size_t typical_seed_fewest_deciding(double level, std::size_t limit) {
  sc::check_alpha(level);
  for (std::size_t n = 1; n <= limit; ++n)
    if (typical_log_e(n, 0, n) >= std::log(1 / level)) return n;
  return 0;
}

bool claim_could_decide_by(const ClaimTestInput& in, std::size_t cap) {
  check_input(in);
  const std::size_t n = in.differences.size();
  if (n >= cap) return false;
  switch (in.estimand) {
    case ClaimEstimand::mean: {
      const SampleSummary s = summarize(in.differences);
      if (!(s.sd > 0)) return false;
      const double c = anytime_radius_multiplier(cap, in.level, in.g);
      return std::isfinite(c) && std::abs(s.mean / (s.sd / std::sqrt(double(n)))) * std::sqrt(double(cap) / double(n)) >= c;
    }
    case ClaimEstimand::bounded_mean: return true;
    case ClaimEstimand::typical_seed: break;
  }
  ClaimDecision d;
  count_sides(in, d);
  const std::size_t more = cap - n, lead = std::max(d.paper_side, d.other_side),
                    lag = std::min(d.paper_side, d.other_side);
  return typical_log_e(lead + more, lag, cap) >= std::log(1 / in.level);
}

std::size_t claim_stop(const ClaimTestInput& in, std::size_t first, std::size_t cap) {
  const std::size_t all = in.differences.size();
  ClaimTestInput prefix = in;
  for (std::size_t n = std::max<std::size_t>(first, 2); n < all; ++n) {
    prefix.differences.assign(in.differences.begin(), in.differences.begin() + std::ptrdiff_t(n));
    if (decide_claim(prefix).outcome != TrainingOutcome::inconclusive || !claim_could_decide_by(prefix, cap)) return n;
  }
  return all;
}

}  // namespace dmlbench::experiments
