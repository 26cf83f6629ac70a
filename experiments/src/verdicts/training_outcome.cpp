// The four outcomes of a training claim: verified, refuted, not-reproduced (TOST), inconclusive (with power).
#include "dmlbench/experiments/training_outcome.hpp"

#include "statistics_checks.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace sc = statistics_checks;

std::string training_outcome_name(TrainingOutcome o) {
  switch (o) {
    case TrainingOutcome::verified: return "verified";
    case TrainingOutcome::refuted: return "refuted";
    case TrainingOutcome::not_reproduced: return "not-reproduced";
    case TrainingOutcome::inconclusive: return "inconclusive";
    case TrainingOutcome::direction_only: return "direction-only";
  }
  return "inconclusive";
}

TrainingOutcome interval_outcome(double low, double high, int paper_sign, double delta) {
  const bool inside = delta > 0 && low > -delta && high < delta;
  const int side = low > 0 ? +1 : high < 0 ? -1 : 0;
  if (side != 0 && side != paper_sign) return TrainingOutcome::refuted;
  if (side != 0) return inside ? TrainingOutcome::direction_only : TrainingOutcome::verified;
  return inside ? TrainingOutcome::not_reproduced : TrainingOutcome::inconclusive;
}

std::string paper_position_name(PaperPosition p) {
  switch (p) {
    case PaperPosition::none: return "none";
    case PaperPosition::inside: return "inside";
    case PaperPosition::above: return "above";
    case PaperPosition::below: return "below";
  }
  return "none";
}

namespace {

void check_input(const OutcomeInput& in) {
  if (in.baseline.has_value() == in.bound.has_value())
    throw std::invalid_argument("a training claim compares its treatment with exactly one of a baseline or a bound");
  if (in.paper_sign != 1 && in.paper_sign != -1)
    throw std::invalid_argument("the paper's direction must be +1 or -1, got " + std::to_string(in.paper_sign));
  sc::check_alpha(in.alpha);
  sc::check_open_unit(in.power, "power");
  sc::check_delta(in.delta);
  if (in.paper_difference) sc::check_finite(*in.paper_difference, "the paper's difference");
  if (in.effect_to_detect) sc::check_finite(*in.effect_to_detect, "the effect to detect");
}

PaperPosition position_of(const std::optional<double>& paper, const TComparison& c) {
  if (!paper || !c.testable()) return PaperPosition::none;
  if (*paper < c.ci_low) return PaperPosition::below;
  if (*paper > c.ci_high) return PaperPosition::above;
  return PaperPosition::inside;
}

std::string text(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

// MDE and seeds for the effect to detect, from the observed spreads and seeds
void put_power(const OutcomeInput& in, OutcomeResult& r) {
  const double effect =
      in.effect_to_detect ? *in.effect_to_detect : in.paper_difference ? std::abs(*in.paper_difference) : in.delta;
  const double sd_a = in.treatment.sd;
  if (in.baseline) {
    r.minimum_detectable_effect = minimum_detectable_effect(
        welch_design(sd_a, in.baseline->sd, in.treatment.n, in.baseline->n), in.alpha, in.power);
    r.seeds_needed = welch_seeds_needed(effect, sd_a, in.baseline->sd, in.alpha, in.power, in.seeds_cap);
  } else {
    r.minimum_detectable_effect = minimum_detectable_effect(one_sample_design(sd_a, in.treatment.n), in.alpha, in.power);
    r.seeds_needed = one_sample_seeds_needed(effect, sd_a, in.alpha, in.power, in.seeds_cap);
  }
}

}  // namespace

OutcomeResult training_outcome(const OutcomeInput& in) {
  check_input(in);
  OutcomeResult r;
  r.comparison = in.baseline ? welch_difference(in.treatment, *in.baseline, in.alpha)
                             : one_sample_difference(in.treatment, *in.bound, in.alpha);
  r.equivalence = equivalence_test(r.comparison, in.delta);
  r.paper_position = position_of(in.paper_difference, r.comparison);
  put_power(in, r);
  const TComparison& c = r.comparison;
  if (!c.testable()) {
    r.outcome = TrainingOutcome::inconclusive;
    r.reason = "no spread: every seed gave the same value on each side, so no t-test is possible";
    return r;
  }
  if (!(in.p_adjusted >= 0 && in.p_adjusted <= 1))
    throw std::invalid_argument("the adjusted p of a testable claim must lie in [0, 1], got " + text(in.p_adjusted));
  const std::string p = "adjusted p = " + text(in.p_adjusted);
  if (in.p_adjusted < in.alpha) {
    const bool with_paper = (c.difference > 0 ? 1 : -1) == in.paper_sign;
    r.outcome = with_paper ? TrainingOutcome::verified : TrainingOutcome::refuted;
    r.reason = p + " < " + text(in.alpha) + (with_paper ? " in the paper's direction" : " against the paper's direction");
  } else if (r.equivalence.equivalent) {
    r.outcome = TrainingOutcome::not_reproduced;
    r.reason = p + "; TOST p = " + text(r.equivalence.p_tost) + " < " + text(in.alpha) + ": |difference| < delta = " +
               text(in.delta);
  } else {
    r.outcome = TrainingOutcome::inconclusive;
    r.reason = p + "; TOST p = " + text(r.equivalence.p_tost) + ": neither an effect nor its absence below delta = " +
               text(in.delta) + "; detectable at " + text(in.power * 100) + "% power: " +
               text(r.minimum_detectable_effect);
  }
  return r;
}

std::string interval_outcome_reason(TrainingOutcome o, const std::string& interval, double low, double delta) {
  const std::string band = "(-" + text(delta) + ", " + text(delta) + ")";
  switch (o) {
    case TrainingOutcome::verified:
    case TrainingOutcome::refuted:
      return interval + (low > 0 ? " lies above 0" : " lies below 0") +
             (o == TrainingOutcome::verified ? ", the paper's side" : ", against the paper's side");
    case TrainingOutcome::direction_only:
      return interval + " lies on the paper's side of 0 and inside (-delta, +delta) = " + band +
             ": the direction holds, the effect is smaller than delta";
    case TrainingOutcome::not_reproduced: return interval + " lies inside (-delta, +delta) = " + band;
    case TrainingOutcome::inconclusive: break;
  }
  return interval + " holds 0" + (delta > 0 ? " and reaches beyond " + band : "");
}

}  // namespace dmlbench::experiments
