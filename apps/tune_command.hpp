// `dmlbench tune`: each arm of a reproduction searched with the same number of trials on class-disjoint
// folds of its training classes, by Optuna's TPE (scripts/optuna_tune.py), here or as a Slurm job array.
#pragma once

namespace CLI {
class App;
}

namespace dmlbench::experiments {

void add_tune_command(CLI::App& app);

}  // namespace dmlbench::experiments
