// Anchor-neighbour (A-N) sampling of the hierarchical triplet loss ([HTL] Sec 4.2): l' anchor classes, each with its
// m - 1 nearest classes, t images per class: a batch of n = l' m t images. Torch-free.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace dmlbench::experiments {

struct AnchorNeighbourConfig {
  int anchors = 8;            // l'
  int classes_per_anchor = 2; // m (the anchor and its m - 1 nearest classes)
  int per_class = 4;          // t
};

// distances: C x C row-major class distances (d(p, q) of [HTL] Sec 4.1); items[c]: the item indices of class c.
// Stated rules where the slides are silent: each anchor is drawn uniformly from the classes not yet in the batch, and
// its neighbours are its m - 1 nearest classes not yet in the batch (ties by class index), so the batch always holds
// l' m distinct classes; each class's t items are drawn without replacement. Throws std::invalid_argument when
// l' m exceeds the classes, or a class has fewer than t items (naming it) — never an out-of-range index.
// Returns the batch's item indices, class by class in the order drawn.
std::vector<std::int64_t> anchor_neighbour_batch(const std::vector<double>& distances,
                                                 const std::vector<std::vector<std::int64_t>>& items,
                                                 const AnchorNeighbourConfig& c, std::mt19937_64& rng);

}  // namespace dmlbench::experiments
