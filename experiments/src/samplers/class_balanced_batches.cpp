// Class-balanced batches: batch.classes random classes x batch.per_class items ([XHN] Sec 6, [LCC] App. C).
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/class_balanced_sampler.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <memory>

namespace dmlbench::experiments {
namespace {
BatchSource class_balanced(const SamplerContext& s) {
  const auto& c = s.config;
  auto sampler = std::make_shared<ClassBalancedSampler>(s.labels, c.batch.classes, c.batch.per_class,
                                                        c.seed * 1000003ULL + std::uint64_t(s.epoch));
  return [sampler] {
    const auto b = sampler->next_batch();
    return std::vector<std::int64_t>(b.begin(), b.end());
  };
}

const bool registered = [] {
  SamplerSpec s;
  s.name = "class-balanced";
  s.doc = "random classes, batch.per_class items each ([XHN] Sec 6, [LCC] App. C)";
  s.check_data = require_per_class_images;  // a class short of per_class images was drawn twice in one batch
  s.make = class_balanced;
  register_sampler_spec(std::move(s));
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
