// The class-collapse phase diagram of [LCC] Sec 4 (Thm 1 and its EPS counterpart): at each (t, p, n), minimizers of
// the expected objective from random starts, and whether all of them, none or some collapse every class.
#pragma once

#include "dmlbench/sims/collapse_minimizer.hpp"
#include "dmlbench/sims/noisy_label_objective.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace dmlbench::sims {

struct PhasePoint {
  int classes = 2;         // t
  double p_correct = 1.0;  // p = P(correct label)
  int n = 12;              // points
};

struct PhaseResult {
  int restarts = 0, collapsed = 0;       // minimizer runs, and how many of them collapse every class
  double best_objective = 0;             // the lowest final objective over the runs
  double collapsed_candidate = 0;        // the proof's collapsed candidate's objective (NaN where dim < t - 1)
  double max_class_diameter = 0;         // of the best run
  double min_interclass_sq_distance = 0;  // of the best run
  std::string region;                    // collapsed | not-collapsed | mixed
};

// The points of classes x p_correct x ns (in that nesting order) with n divisible by t and p > 1/t.
std::vector<PhasePoint> phase_grid(const std::vector<int>& classes, const std::vector<double>& p_correct,
                                   const std::vector<int>& ns);

// One point: `base` with its model set to the point, minimized from mc.restarts random starts (mc.seed each point).
PhaseResult phase_point(const ObjectiveConfig& base, const PhasePoint& point, const MinimizerConfig& mc);

// Every point on `threads` threads (>= 1), handed out in order; a point's result does not depend on the thread
// count or on which thread ran it. on_done(done, index, result), if given, is called once per finished point under a
// lock, `done` counting the finished points. The first exception a point throws is rethrown after every thread ends.
using PhaseProgress = std::function<void(std::size_t done, std::size_t index, const PhaseResult& result)>;
std::vector<PhaseResult> phase_sweep(const ObjectiveConfig& base, const std::vector<PhasePoint>& points,
                                     const MinimizerConfig& mc, int threads, const PhaseProgress& on_done = {});

}  // namespace dmlbench::sims
