#include "dmlbench/experiments/anchor_neighbour_sampler.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

std::vector<std::int64_t> anchor_neighbour_batch(const std::vector<double>& d,
                                                 const std::vector<std::vector<std::int64_t>>& items,
                                                 const AnchorNeighbourConfig& c, std::mt19937_64& rng) {
  const auto C = items.size();
  if (c.anchors < 1 || c.classes_per_anchor < 1 || c.per_class < 1)
    throw std::invalid_argument("anchor-neighbour sampling: l', m and t must be >= 1");
  if (d.size() != C * C)
    throw std::invalid_argument("anchor-neighbour sampling: " + std::to_string(d.size()) + " class distances for " +
                                std::to_string(C) + " classes (C x C needed)");
  const auto want = std::size_t(c.anchors) * std::size_t(c.classes_per_anchor);
  if (want > C)
    throw std::invalid_argument("anchor-neighbour sampling: l' m = " + std::to_string(want) + " classes per batch, " +
                                "but there are " + std::to_string(C));
  for (std::size_t k = 0; k < C; ++k)
    if (items[k].size() < std::size_t(c.per_class))
      throw std::invalid_argument("anchor-neighbour sampling: class " + std::to_string(k) + " has " +
                                  std::to_string(items[k].size()) + " items, fewer than t = " +
                                  std::to_string(c.per_class));
  std::vector<char> taken(C, 0);
  std::vector<std::size_t> order;  // classes in the order drawn
  for (int a = 0; a < c.anchors; ++a) {
    std::vector<std::size_t> free;
    for (std::size_t k = 0; k < C; ++k)
      if (!taken[k]) free.push_back(k);
    const auto anchor = free[std::uniform_int_distribution<std::size_t>(0, free.size() - 1)(rng)];
    taken[anchor] = 1;
    order.push_back(anchor);
    std::vector<std::size_t> rest;
    for (std::size_t k : free)
      if (k != anchor) rest.push_back(k);
    std::stable_sort(rest.begin(), rest.end(),
                     [&](std::size_t p, std::size_t q) { return d[anchor * C + p] < d[anchor * C + q]; });
    for (int j = 0; j + 1 < c.classes_per_anchor; ++j) {
      taken[rest[std::size_t(j)]] = 1;
      order.push_back(rest[std::size_t(j)]);
    }
  }
  std::vector<std::int64_t> batch;
  for (std::size_t k : order) {
    auto pool = items[k];
    for (int i = 0; i < c.per_class; ++i) {  // partial Fisher-Yates: t distinct items
      const auto j = std::uniform_int_distribution<std::size_t>(std::size_t(i), pool.size() - 1)(rng);
      std::swap(pool[std::size_t(i)], pool[j]);
      batch.push_back(pool[std::size_t(i)]);
    }
  }
  return batch;
}

}  // namespace dmlbench::experiments
