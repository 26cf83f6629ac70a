// Anchor-neighbour (A-N) batches of [HTL] Sec 4.2: batch.classes / batch.classes_per_anchor random anchor classes, each
// with its nearest classes by the loss's class tree; class-balanced batches until the first tree.
#include "dmlbench/experiments/anchor_neighbour_sampler.hpp"
#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <map>
#include <memory>
#include <random>

namespace dmlbench::experiments {
namespace {
BatchSource anchor_neighbour(const SamplerContext& s) {
  const auto& c = s.config;
  if (s.class_distances.empty()) return sampler_spec("class-balanced").make(s);  // until the loss's first tree
  auto rng = std::make_shared<std::mt19937_64>(c.seed * 1000003ULL + std::uint64_t(s.epoch) + 0x9e3779b97f4a7c15ULL);
  const AnchorNeighbourConfig an{c.batch.classes / c.batch.classes_per_anchor, c.batch.classes_per_anchor,
                                 c.batch.per_class};
  return [rng, an, d = &s.class_distances, items = &s.items_by_class] {
    return anchor_neighbour_batch(*d, *items, an, *rng);
  };
}

void check(const RunConfig& c) {
  if (c.batch.classes % c.batch.classes_per_anchor != 0)
    throw config_error("batch.sampler = anchor-neighbour: batch.classes (" + std::to_string(c.batch.classes) +
                       ") must be a multiple of batch.classes_per_anchor (" +
                       std::to_string(c.batch.classes_per_anchor) + "), l' anchors of m classes each");
}

const bool registered = [] {
  SamplerSpec s;
  s.name = "anchor-neighbour";
  s.doc = "[HTL] A-N sampling: batch.classes / classes_per_anchor random anchors, each with its nearest classes by "
          "the loss's class tree";
  s.settings = {ranged(config_key("batch.classes_per_anchor", "integer", 2,
                                  "anchor-neighbour: m, an anchor class and its m - 1 nearest classes"),
                       1, 1e6)};
  s.needs_class_tree = true;
  s.check = check;
  s.check_data = require_per_class_images;  // each class gives t distinct images
  s.make = anchor_neighbour;
  register_sampler_spec(std::move(s));
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
