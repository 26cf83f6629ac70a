// The implementations of the registered losses (training_loss.hpp), by name, and what a sampler reads of a loss's state.
#include "dmlbench/experiments/training_loss.hpp"

#include <map>
#include <stdexcept>

namespace dmlbench::experiments {

namespace {
std::map<std::string, LossFactory>& factories() {
  static std::map<std::string, LossFactory> f;
  return f;
}
}  // namespace

const std::vector<double>& loss_class_distances(const TrainingLoss& loss) {
  static const std::vector<double> none;
  const auto* state = capability<EpochState>(loss);
  return state ? state->class_distances() : none;
}

void register_loss(LossSpec spec, LossFactory make) {
  factories()[spec.name] = std::move(make);
  register_loss_spec(std::move(spec));
}

std::unique_ptr<TrainingLoss> make_training_loss(const LossSetup& s) {
  const auto& spec = loss_spec(s.config.loss.name);  // config_error for an unknown name
  const auto it = factories().find(spec.name);
  if (it == factories().end())
    throw config_error("loss.name = " + spec.name + " has a spec but no implementation linked (the engine library)");
  return it->second(s);
}

}  // namespace dmlbench::experiments
