// The registries of losses, miners and batch samplers (loss_spec.hpp, miner_spec.hpp, batch_sampler_spec.hpp): each a
// function-local NamedRegistry, so that registrations at static initialisation find it built.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/miner_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "named_registry.hpp"

#include <map>

namespace dmlbench::experiments {

namespace {
NamedRegistry<LossSpec>& losses() {
  static NamedRegistry<LossSpec> r("loss.name");
  return r;
}
NamedRegistry<MinerSpec>& miners() {
  static NamedRegistry<MinerSpec> r("miner.name");
  return r;
}
NamedRegistry<SamplerSpec>& samplers() {
  static NamedRegistry<SamplerSpec> r("batch.sampler");
  return r;
}
}  // namespace

void register_loss_spec(LossSpec spec) { losses().add(std::move(spec)); }
const std::vector<LossSpec>& loss_specs() { return losses().all(); }
const LossSpec& loss_spec(const std::string& name) { return losses().find(name); }
std::vector<std::string> loss_names() { return losses().names(); }

void register_miner_spec(MinerSpec spec) { miners().add(std::move(spec)); }
const std::vector<MinerSpec>& miner_specs() { return miners().all(); }
const MinerSpec& miner_spec(const std::string& name) { return miners().find(name); }
std::vector<std::string> miner_names() { return miners().names(); }

void register_sampler_spec(SamplerSpec spec) { samplers().add(std::move(spec)); }
const std::vector<SamplerSpec>& sampler_specs() { return samplers().all(); }
const SamplerSpec& sampler_spec(const std::string& name) { return samplers().find(name); }

void require_per_class_images(const RunConfig& c, const std::vector<std::int64_t>& train_labels) {
  std::map<std::int64_t, std::int64_t> count;
  for (auto y : train_labels) ++count[y];
  for (const auto& [y, n] : count)
    if (n < c.batch.per_class)
      throw config_error("batch.sampler = " + c.batch.sampler + " draws batch.per_class = " +
                         std::to_string(c.batch.per_class) + " distinct images per class, but training class " +
                         std::to_string(y) + " has " + std::to_string(n) +
                         " after the holdout: lower batch.per_class or dataset.holdout");
}
std::vector<std::string> sampler_names() { return samplers().names(); }

}  // namespace dmlbench::experiments
