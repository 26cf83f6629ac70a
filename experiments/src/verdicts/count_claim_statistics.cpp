// A claim on a share of pooled counts: exact binomial test, Clopper-Pearson interval and exact TOST.
#include "dmlbench/experiments/count_claim_statistics.hpp"

#include "dmlbench/experiments/binomial_test.hpp"
#include "statistics_checks.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

void check_sides(const CountSides& in) {
  if (in.successes > in.trials)
    throw std::invalid_argument("a count's successes must not exceed its trials, got " + std::to_string(in.successes) +
                                " of " + std::to_string(in.trials));
  if (!(in.scale > 0)) throw std::invalid_argument("a count claim's scale must be > 0");
  const double p0 = in.bound / in.scale;
  if (!(p0 >= 0 && p0 <= 1))
    throw std::invalid_argument("a count claim's bound must be a share in [0, 1] of its scale, got " +
                                statistics_checks::number_text(in.bound) + " at scale " +
                                statistics_checks::number_text(in.scale));
  if (in.paper_sign != 1 && in.paper_sign != -1) throw std::invalid_argument("paper_sign must be +1 or -1");
  statistics_checks::check_alpha(in.alpha);
  statistics_checks::check_delta(in.delta);
}

// Exact TOST of the share within (p0 - d, p0 + d): the larger one-sided p (statsmodels binom_tost); a margin past 0 or
// 1 leaves that side's hypothesis empty (p 0).
double count_tost_p(std::uint64_t k, std::uint64_t n, double p0, double d) {
  const double low = p0 - d, upp = p0 + d;
  const double p_low = low < 0 ? 0.0 : binomial_test_greater_p(k, n, low);
  const double p_upp = upp > 1 ? 0.0 : binomial_test_less_p(k, n, upp);
  return std::max(p_low, p_upp);
}

std::string p_text(double p) {
  std::ostringstream o;
  o.precision(2);
  o << p;
  return o.str();
}

// The outcome at p_decision, as training_outcome.hpp's four outcomes read for a count.
void decide(json& s, double p_decision) {
  const double alpha = s.at("alpha").get<double>(), diff = s.at("difference").get<double>();
  const int sign = s.at("paper_sign").get<int>();
  std::ostringstream why;
  const std::string pooled = pooled_counts_text(s);
  s["p_decision"] = p_decision;
  if (p_decision < alpha && diff != 0) {
    const bool holds = (diff > 0) == (sign > 0);
    s["outcome"] = holds ? "verified" : "refuted";
    why << "exact binomial p " << p_text(p_decision) << " < " << alpha << " (" << pooled << "), share "
        << (diff > 0 ? "above" : "below") << " the bound, " << (holds ? "as" : "against") << " the paper";
  } else if (s.at("p_tost").get<double>() < alpha) {
    s["outcome"] = "not-reproduced";
    why << "not significant (p " << p_text(p_decision) << ", " << pooled << ") and the share lies within +-"
        << s.at("smallest_effect").get<double>() << " of the bound (exact TOST p " << p_text(s["p_tost"].get<double>())
        << ")";
  } else {
    s["outcome"] = "inconclusive";
    why << "neither significant (p " << p_text(p_decision) << ") nor within +-" << s.at("smallest_effect").get<double>()
        << " of the bound (exact TOST p " << p_text(s["p_tost"].get<double>()) << "), " << pooled;
  }
  s["outcome_reason"] = why.str();
}

}  // namespace

std::string pooled_counts_text(const json& s) {
  const auto runs = s.at("runs").get<std::size_t>();
  return std::to_string(s.at("successes").get<std::uint64_t>()) + " of " +
         std::to_string(s.at("trials").get<std::uint64_t>()) + " pooled over " + std::to_string(runs) +
         (runs == 1 ? " run" : " runs");
}

json count_claim_statistics(const CountSides& in) {
  check_sides(in);
  json s = {{"test", "binomial"}, {"alpha", in.alpha}, {"paper_sign", in.paper_sign}, {"successes", in.successes},
            {"trials", in.trials}, {"runs", in.runs}, {"bound", in.bound}, {"scale", in.scale},
            {"smallest_effect", in.delta}, {"smallest_effect_reason", in.delta_reason},
            {"paper_difference", nullptr}, {"paper_position", "none"}};
  if (in.trials == 0) {
    s["outcome"] = "inconclusive";
    s["outcome_reason"] = "no trials: nothing was counted in any run, so there is nothing to test";
    return s;
  }
  const double p0 = in.bound / in.scale, share = double(in.successes) / double(in.trials);
  const ProportionInterval ci = clopper_pearson_interval(in.successes, in.trials, in.alpha);
  s["share"] = share * in.scale;
  s["difference"] = share * in.scale - in.bound;
  s["ci_low"] = ci.low * in.scale - in.bound;
  s["ci_high"] = ci.high * in.scale - in.bound;
  s["p"] = binomial_test_p(in.successes, in.trials, p0);
  s["p_tost"] = count_tost_p(in.successes, in.trials, p0, in.delta / in.scale);
  decide(s, s["p"].get<double>());
  return s;
}

}  // namespace dmlbench::experiments
