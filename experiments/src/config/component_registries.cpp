// The registries of losses, miners and batch samplers (loss_spec.hpp, miner_spec.hpp, batch_sampler_spec.hpp): each a
// function-local NamedRegistry, so that registrations at static initialisation find it built.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/miner_spec.hpp"
#include "named_registry.hpp"

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
std::vector<std::string> sampler_names() { return samplers().names(); }

}  // namespace dmlbench::experiments
