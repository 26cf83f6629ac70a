// How to add a batch sampler: "example-round-robin", the classes in turn, batch.classes a batch, batch.per_class each.
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <memory>

namespace dmlbench::experiments {
namespace {
// The epoch's batches: classes by position 0, 1, 2, ... (wrapping round), each with its first batch.per_class items.
BatchSource round_robin(const SamplerContext& s) {
  auto next = std::make_shared<std::size_t>(0);  // the next class position, kept from one batch to the next
  const int classes = s.config.batch.classes, per_class = s.config.batch.per_class;
  return [next, classes, per_class, items = &s.items_by_class] {
    std::vector<std::int64_t> batch;
    for (int k = 0; k < classes; ++k, *next = (*next + 1) % items->size()) {
      const auto& of = (*items)[*next];  // check_data below guarantees per_class items
      batch.insert(batch.end(), of.begin(), of.begin() + per_class);
    }
    return batch;
  };
}

const bool registered = [] {
  SamplerSpec s;
  s.name = "example-round-robin";  // the value of batch.sampler
  s.doc = "example only (tests/extend): the classes in turn, each with its first batch.per_class items";
  s.check_data = require_per_class_images;  // a class short of batch.per_class images: config_error naming it
  s.make = round_robin;
  register_sampler_spec(std::move(s));
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
