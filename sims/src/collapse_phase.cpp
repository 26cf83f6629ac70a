// The class-collapse phase diagram of [LCC] Sec 4: minimizers from random starts at each (t, p, n), on threads.
#include "dmlbench/sims/collapse_phase.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

namespace dmlbench::sims {

std::vector<PhasePoint> phase_grid(const std::vector<int>& classes, const std::vector<double>& p_correct,
                                   const std::vector<int>& ns) {
  std::vector<PhasePoint> grid;
  for (int t : classes)
    for (double p : p_correct)
      for (int n : ns)
        if (t > 0 && n % t == 0 && p > 1.0 / t) grid.push_back({t, p, n});
  return grid;
}

PhaseResult phase_point(const ObjectiveConfig& base, const PhasePoint& point, const MinimizerConfig& mc) {
  ObjectiveConfig c = base;
  c.model = {point.n, point.classes, point.p_correct, base.model.triples};
  c.validate();
  PhaseResult r;
  r.best_objective = std::numeric_limits<double>::infinity();
  r.min_interclass_sq_distance = std::numeric_limits<double>::infinity();
  const auto runs = minimize_from_random_starts(c, mc);
  r.restarts = int(runs.size());
  for (const auto& run : runs) {
    r.collapsed += run.structure.collapsed;
    if (run.final_objective < r.best_objective) {  // the first of equal objectives, as the runs come
      r.best_objective = run.final_objective;
      const auto& d = run.structure.class_diameter;
      r.max_class_diameter = *std::max_element(d.begin(), d.end());
      r.min_interclass_sq_distance = run.structure.min_interclass_sq_distance;
    }
  }
  r.collapsed_candidate = c.dim >= point.classes - 1 ? proof_candidate(c).objective : std::nan("");
  r.region = r.collapsed == r.restarts ? "collapsed" : r.collapsed == 0 ? "not-collapsed" : "mixed";
  return r;
}

std::vector<PhaseResult> phase_sweep(const ObjectiveConfig& base, const std::vector<PhasePoint>& points,
                                     const MinimizerConfig& mc, int threads, const PhaseProgress& on_done) {
  if (threads < 1) throw theory::domain_error("threads must be >= 1, got " + std::to_string(threads));
  std::vector<PhaseResult> results(points.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex lock;
  std::size_t done = 0;
  std::exception_ptr error;
  auto work = [&] {
    for (std::size_t i = next++; i < points.size() && !failed; i = next++) {
      try {
        PhaseResult r = phase_point(base, points[i], mc);
        const std::lock_guard<std::mutex> guard(lock);
        results[i] = std::move(r);
        if (on_done) on_done(++done, i, results[i]);
      } catch (...) {
        const std::lock_guard<std::mutex> guard(lock);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const auto n_threads = std::min<std::size_t>(std::size_t(threads), std::max<std::size_t>(points.size(), 1));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n_threads; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace dmlbench::sims
