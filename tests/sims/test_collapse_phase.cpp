// The class-collapse phase sweep of [LCC] Sec 4 (Thm 1): its grid, one point's summary, and the same results on any
// number of threads.
#include "dmlbench/sims/collapse_phase.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace dmlbench::sims;

namespace {

ObjectiveConfig triplet_base(int dim = 2) {
  ObjectiveConfig c;
  c.objective = Objective::triplet;
  c.alpha = 0.2;
  c.dim = dim;
  return c;
}

MinimizerConfig starts(int restarts, std::uint64_t seed) {
  MinimizerConfig mc;
  mc.restarts = restarts;
  mc.seed = seed;
  return mc;
}

// Equal to the bit, NaN included (memcmp): what "does not depend on the thread count" means.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_result(const PhaseResult& a, const PhaseResult& b) {
  return a.restarts == b.restarts && a.collapsed == b.collapsed && a.region == b.region &&
         same_bits(a.best_objective, b.best_objective) && same_bits(a.collapsed_candidate, b.collapsed_candidate) &&
         same_bits(a.max_class_diameter, b.max_class_diameter) &&
         same_bits(a.min_interclass_sq_distance, b.min_interclass_sq_distance);
}

}  // namespace

TEST_CASE("[LCC] Sec 4 phase grid: the points with n divisible by t and p > 1/t, in nesting order", "[sims][phase]") {
  const auto g = phase_grid({2, 3}, {0.3, 0.5, 0.6}, {6, 8});
  REQUIRE(g.size() == 4);
  const std::vector<std::tuple<int, double, int>> want = {{2, 0.6, 6}, {2, 0.6, 8}, {3, 0.5, 6}, {3, 0.6, 6}};
  for (std::size_t i = 0; i < g.size(); ++i) {
    CHECK(g[i].classes == std::get<0>(want[i]));
    CHECK(g[i].p_correct == std::get<1>(want[i]));
    CHECK(g[i].n == std::get<2>(want[i]));
  }
  CHECK(phase_grid({2}, {0.5}, {6}).empty());  // p = 1/t is outside (1/t, 1]
}

TEST_CASE("[LCC] Thm 1 phase point: the summary of the runs minimize_from_random_starts returns", "[sims][phase]") {
  const auto mc = starts(3, 7);
  for (const PhasePoint pt : {PhasePoint{2, 1.0, 8}, PhasePoint{2, 0.6, 8}, PhasePoint{3, 0.8, 6}}) {
    const auto r = phase_point(triplet_base(), pt, mc);
    ObjectiveConfig c = triplet_base();
    c.model = {pt.n, pt.classes, pt.p_correct, Triples::distinct};
    const auto runs = minimize_from_random_starts(c, mc);
    REQUIRE(r.restarts == int(runs.size()));
    double best = std::numeric_limits<double>::infinity();
    int collapsed = 0;
    for (const auto& run : runs) {
      best = std::min(best, run.final_objective);
      collapsed += run.structure.collapsed;
    }
    CHECK(same_bits(r.best_objective, best));  // the same minimizer, so the same bits
    CHECK(r.collapsed == collapsed);
    CHECK(r.region == (collapsed == r.restarts ? "collapsed" : collapsed == 0 ? "not-collapsed" : "mixed"));
    CHECK(same_bits(r.collapsed_candidate, proof_candidate(c).objective));
    CHECK(r.max_class_diameter >= 0);
  }
  // [LCC] Thm 1 for 0.5 < p < 1: every minimizer found collapses every class. At p = 1 (no noise) the triplet loss
  // is zero on many spread embeddings, and the runs need not collapse.
  CHECK(phase_point(triplet_base(), {2, 0.8, 8}, mc).region == "collapsed");
  // Three classes in one dimension: the proof's simplex candidate does not exist, so no candidate objective.
  CHECK(std::isnan(phase_point(triplet_base(1), {3, 0.8, 6}, starts(1, 7)).collapsed_candidate));
}

TEST_CASE("[LCC] Sec 4 phase sweep: every point's result is the same bits on 1, 2 and 5 threads", "[sims][phase]") {
  const auto grid = phase_grid({2, 3}, {0.6, 0.8, 1.0}, {6, 8, 12});
  const auto mc = starts(2, 11);
  const auto one = phase_sweep(triplet_base(), grid, mc, 1);
  REQUIRE(one.size() == grid.size());
  for (int threads : {2, 5}) {
    std::set<std::size_t> seen;
    std::size_t last_done = 0;
    const auto on_done = [&](std::size_t done, std::size_t i, const PhaseResult& r) {
      CHECK(done == last_done + 1);  // called once per point, under the lock
      last_done = done;
      seen.insert(i);
      CHECK(same_result(r, phase_point(triplet_base(), grid[i], mc)));
    };
    const auto many = phase_sweep(triplet_base(), grid, mc, threads, on_done);
    CHECK(seen.size() == grid.size());
    for (std::size_t i = 0; i < grid.size(); ++i) CHECK(same_result(one[i], many[i]));
  }
  // Negative control: another seed's starts end in other minimizers, which the comparison tells apart.
  const auto other = phase_sweep(triplet_base(), grid, starts(2, 12), 2);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) differ += !same_result(one[i], other[i]);
  CHECK(differ > 0);
}

TEST_CASE("[LCC] Sec 4 phase sweep: a point's error is rethrown, and fewer than 1 thread refused", "[sims][phase]") {
  const std::vector<PhasePoint> grid = {{2, 0.8, 6}, {2, 0.4, 6}, {2, 0.9, 6}};  // p = 0.4 <= 1/t
  CHECK_THROWS_WITH(phase_sweep(triplet_base(), grid, starts(1, 1), 2), Catch::Contains("p"));
  CHECK_THROWS_WITH(phase_sweep(triplet_base(), grid, starts(1, 1), 0), Catch::Contains("threads must be >= 1"));
}
