// How often a decided claim recurs with its seeds resampled (experiments/src/verdicts/
// bootstrap_recurrence.cpp), checked against the exact bootstrap distribution enumerated over every resample.
#include "dmlbench/experiments/anytime_t_test.hpp"
#include "dmlbench/experiments/bootstrap_recurrence.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace dmlbench::experiments;
using Catch::WithinAbs;

namespace {

AnytimeClaimInput claim_of(const std::vector<double>& d) {
  AnytimeClaimInput in;
  in.differences = summarize(d);
  in.paper_sign = +1;
  in.delta = 0.5;
  return in;
}

}  // namespace

TEST_CASE("bootstrap recurrence: the shares match the exact bootstrap distribution over all 6^6 resamples",
          "[experiments][recurrence]") {
  // six seeds, five far above 0 and one near it: decided (verified) at 0.05, but resamples with the near seed
  // repeated are not (the exact share that recurs is 0.737)
  const std::vector<double> d = {6.1, 5.8, 6.3, 5.9, 6.0, 1.0};
  const AnytimeClaimInput in = claim_of(d);
  const AnytimeDecision own = anytime_claim_outcome(in);
  REQUIRE(own.outcome == TrainingOutcome::verified);
  // exact: every ordered resample (6^6 = 46656), each equally likely
  std::size_t same = 0, flipped = 0, total = 0;
  std::vector<double> x(6);
  for (std::size_t code = 0; code < 46656; ++code) {
    std::size_t c = code;
    for (auto& v : x) {
      v = d[c % 6];
      c /= 6;
    }
    AnytimeClaimInput r = in;
    r.differences = summarize(x);
    const auto o = anytime_claim_outcome(r).outcome;
    same += o == TrainingOutcome::verified;
    flipped += o == TrainingOutcome::refuted;
    ++total;
  }
  const double exact_same = double(same) / double(total), exact_flipped = double(flipped) / double(total);
  REQUIRE(exact_same > 0.05);  // the premise: neither certain nor impossible, so the check can fail both ways
  REQUIRE(exact_same < 0.95);
  const Recurrence b = bootstrap_recurrence(d, in, own.outcome, 20000, 49);
  // 20000 draws: a share's SE is at most sqrt(0.25 / 20000) = 0.0035; 4 SE
  CHECK_THAT(b.same, WithinAbs(exact_same, 0.014));
  CHECK_THAT(b.flipped, WithinAbs(exact_flipped, 0.014));
  CHECK_THAT(b.same + b.undecided + b.flipped, WithinAbs(1.0, 1e-12));
  CHECK(b.resamples == 20000);
  // deterministic for a seed; another seed differs a little
  const Recurrence again = bootstrap_recurrence(d, in, own.outcome, 20000, 49);
  CHECK(again.same == b.same);
  CHECK(bootstrap_recurrence(d, in, own.outcome, 20000, 50).same != b.same);
}

TEST_CASE("bootstrap recurrence: a verdict every seed carries recurs always, bad inputs throw",
          "[experiments][recurrence]") {
  const std::vector<double> d = {6.1, 5.8, 6.3, 5.9, 6.0, 6.2};
  const AnytimeClaimInput in = claim_of(d);
  REQUIRE(anytime_claim_outcome(in).outcome == TrainingOutcome::verified);
  const Recurrence r = bootstrap_recurrence(d, in, TrainingOutcome::verified, 2000);
  // a resample that repeats one seed has no spread (inconclusive), at most 6 / 6^6 of them
  CHECK(r.same > 0.99);
  CHECK(r.flipped == 0);
  // the control: asked about the other outcome, none recur
  CHECK(bootstrap_recurrence(d, in, TrainingOutcome::refuted, 2000).same == 0);
  CHECK_THROWS_WITH(bootstrap_recurrence({1.0}, in, TrainingOutcome::verified),
                    Catch::Contains("needs at least 2 values"));
  CHECK_THROWS_WITH(bootstrap_recurrence({1.0, NAN}, in, TrainingOutcome::verified), Catch::Contains("finite"));
  CHECK_THROWS_WITH(bootstrap_recurrence(d, in, TrainingOutcome::verified, 0), Catch::Contains("at least 1 resample"));
}
