#include "dmlbench/sims/collapse_minimizer.hpp"

#include <ceres/ceres.h>

#include <cmath>
#include <random>

namespace dmlbench::sims {

namespace {

class ExpectedObjectiveFunction final : public ceres::FirstOrderFunction {
 public:
  explicit ExpectedObjectiveFunction(ObjectiveConfig c) : c_(std::move(c)) {}
  bool Evaluate(const double* parameters, double* cost, double* gradient) const override {
    *cost = expected_objective(c_, parameters, gradient);
    return std::isfinite(*cost);
  }
  int NumParameters() const override { return c_.parameters(); }

 private:
  ObjectiveConfig c_;
};

}  // namespace

std::vector<MinimizerRun> minimize_from_random_starts(const ObjectiveConfig& c, const MinimizerConfig& mc) {
  c.validate();
  if (mc.restarts < 1) throw theory::domain_error("restarts must be >= 1, got " + std::to_string(mc.restarts));
  theory::require_positive("init scale", mc.init_scale);
  std::mt19937_64 rng(mc.seed);
  std::uniform_real_distribution<double> u(-mc.init_scale, mc.init_scale);
  const int n = c.model.n, m = c.dim;
  std::vector<MinimizerRun> runs;
  for (int r = 0; r < mc.restarts; ++r) {
    MinimizerRun run;
    run.restart = r;
    run.x.resize(c.parameters());
    for (int i = 0; i < run.x.size(); ++i) run.x(i) = u(rng);
    if (mc.start) run.x.head(mc.start->size()) += *mc.start;  // a given start, perturbed by the random draw
    if (c.objective == Objective::margin) run.x.tail(n).setConstant(c.alpha);  // betas start at alpha
    run.initial_objective = expected_objective(c, run.x.data(), nullptr);

    ceres::GradientProblemSolver::Options options;
    options.line_search_direction_type = ceres::LBFGS;
    options.max_num_iterations = mc.max_iterations;
    options.function_tolerance = 1e-15;
    options.gradient_tolerance = 1e-12;
    options.parameter_tolerance = 1e-14;
    options.logging_type = ceres::SILENT;
    ceres::GradientProblemSolver::Summary summary;
    std::vector<double> schedule;
    if (c.sampling == Sampling::all)  // the EPS expectation is minimised on its exact form only
      for (double tau : mc.smoothing_schedule) schedule.push_back(tau * c.alpha);
    schedule.push_back(0.0);  // the exact objective last
    for (double tau : schedule) {
      ObjectiveConfig stage = c;
      stage.smoothing = tau;
      ceres::GradientProblem problem(new ExpectedObjectiveFunction(stage));
      ceres::Solve(options, problem, run.x.data(), &summary);
      run.iterations += int(summary.iterations.size());
    }

    Eigen::VectorXd g(c.parameters());
    run.final_objective = expected_objective(c, run.x.data(), g.data());
    run.gradient_norm = g.norm();
    run.termination = ceres::TerminationTypeToString(summary.termination_type);
    const Eigen::MatrixXd pts = Eigen::Map<const Eigen::MatrixXd>(run.x.data(), m, n).transpose();
    run.structure = analyse_structure(c.model, pts, mc.structure_threshold_factor * std::sqrt(c.alpha));
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace dmlbench::sims
