// Minimizers of the expected [LCC] objectives from random starts, by Ceres' L-BFGS line search on the exact
// expectation and its gradient (ceres::GradientProblem).
#pragma once

#include "dmlbench/sims/embedding_structure.hpp"
#include "dmlbench/sims/noisy_label_objective.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::sims {

struct MinimizerConfig {
  int restarts = 8;
  std::uint64_t seed = 1;
  double init_scale = 1.0;     // starting points uniform in [-init_scale, init_scale]^m
  int max_iterations = 2000;
  double structure_threshold_factor = 0.05;  // single-linkage threshold = factor * sqrt(alpha)
  // Continuation: L-BFGS on the hinge smoothed at each temperature (times alpha) in turn, then on the exact
  // objective. Piecewise-linear objectives stall plain L-BFGS at kinks; an empty list disables smoothing.
  std::vector<double> smoothing_schedule = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  // Optional start (stacked points): each restart begins at start + uniform(-init_scale, init_scale) noise.
  std::optional<Eigen::VectorXd> start;
};

struct MinimizerRun {
  int restart = 0;
  double initial_objective = 0, final_objective = 0, gradient_norm = 0;
  int iterations = 0;
  std::string termination;
  EmbeddingStructure structure;
  Eigen::VectorXd x;
};

std::vector<MinimizerRun> minimize_from_random_starts(const ObjectiveConfig& c, const MinimizerConfig& mc);

}  // namespace dmlbench::sims
